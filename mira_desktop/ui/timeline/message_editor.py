"""Editing a user message in place (Edit → branch, PRODUCT.md §5).

Owns :class:`UserEditWidget`, which the timeline shows instead of the bubble
while a message's state is ``editing``: a plain-text box holding the draft (kept
in the state, so it survives scrolling away) that grows with its text up to a
dozen lines, and Cancel / "Save & send". Ctrl+Enter saves, Esc cancels. Saving
emits ``edit_submitted(id, text)``; the window makes that text a new version of
the message and answers it, the old branch stays reachable by the switcher.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QFontMetrics, QKeyEvent, QResizeEvent, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QPushButton, QSizePolicy, QWidget

from .message_state import MessageState, ViewOptions
from .message_widget import MessageWidget

log = logging.getLogger(__name__)

_MARGIN_TOP = 10
_MARGIN_BOTTOM = 6
_GAP = 6
_MIN_LINES = 3
_MAX_LINES = 12
_MAX_FRACTION = 0.9
#: the box's own frame, padding and document margin (QSS: 1 px border, 5/8 px padding)
_CHROME_V = 2 * (1 + 5 + 4)
_CHROME_H = 2 * (1 + 8 + 4)


class _EditBox(QPlainTextEdit):
    """The text box: Ctrl+Enter is ``save``, Esc is ``cancel``."""

    save = Signal()
    cancel = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if enter and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            event.accept()
            self.save.emit()
        elif event.key() == Qt.Key.Key_Escape:
            event.accept()
            self.cancel.emit()
        else:
            super().keyPressEvent(event)


class UserEditWidget(MessageWidget):
    """The inline editor of a user message."""

    def __init__(self, state: MessageState, options: ViewOptions, parent: QWidget | None = None):
        super().__init__(state, options, parent)
        self.setObjectName("userMessageEditor")
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.editor = _EditBox(self)
        self.editor.setObjectName("messageEditor")
        self.editor.setPlainText(state.edit_text)
        self.editor.moveCursor(QTextCursor.MoveOperation.End)
        self.cancel_button = QPushButton(self.tr("Cancel"), self)
        self.cancel_button.setObjectName("editCancelButton")
        self.save_button = QPushButton(self.tr("Save && send"), self)
        self.save_button.setObjectName("editSaveButton")
        self.save_button.setProperty("primary", True)
        self.save_button.setToolTip(self.tr("Send this as a new version (Ctrl+Enter)"))
        self.save_button.setDefault(True)
        self._editor_height = 0
        self.editor.textChanged.connect(self._on_text_changed)
        self.editor.save.connect(self.submit)
        self.editor.cancel.connect(self.cancel)
        self.save_button.clicked.connect(self.submit)
        self.cancel_button.clicked.connect(self.cancel)
        self.apply()

    # -- state --------------------------------------------------------------------

    def apply(self) -> None:
        can_save = self._options.actions_enabled and bool(self._state.edit_text.strip())
        self.save_button.setEnabled(can_save)
        self._layout_children(self.width())

    def focus_editor(self) -> None:
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def submit(self) -> None:
        text = self.editor.toPlainText().strip()
        if text and self._options.actions_enabled:
            self.edit_submitted.emit(self.message_id, text)

    def cancel(self) -> None:
        self.edit_cancelled.emit(self.message_id)

    def _on_text_changed(self) -> None:
        self._state.edit_text = self.editor.toPlainText()
        self.apply()
        if self.width() > 0 and self._box_height(self.width()) != self._editor_height:
            self.height_changed.emit(self.message_id)

    # -- geometry -----------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        buttons = self.save_button.sizeHint().height()
        return _MARGIN_TOP + self._box_height(width) + _GAP + buttons + _MARGIN_BOTTOM

    def _box_width(self, width: int) -> int:
        return max(120, int(width * _MAX_FRACTION))

    def _box_height(self, width: int) -> int:
        metrics = QFontMetrics(self.editor.font())
        inner = max(40, self._box_width(width) - _CHROME_H)
        flags = int(Qt.TextFlag.TextWordWrap)
        text = self.editor.toPlainText() or " "
        if text.endswith("\n"):
            text += " "
        text_h = metrics.boundingRect(QRect(0, 0, inner, 1_000_000), flags, text).height()
        line = metrics.lineSpacing()
        text_h = max(_MIN_LINES * line, min(_MAX_LINES * line, text_h))
        return text_h + _CHROME_V

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._layout_children(self.width())

    def _layout_children(self, width: int) -> None:
        if width <= 0:
            return
        box_w = self._box_width(width)
        self._editor_height = self._box_height(width)
        self.editor.setGeometry(width - box_w, _MARGIN_TOP, box_w, self._editor_height)
        y = _MARGIN_TOP + self._editor_height + _GAP
        right = width
        for button in (self.save_button, self.cancel_button):
            hint = button.sizeHint()
            button.setGeometry(right - hint.width(), y, hint.width(), hint.height())
            right -= hint.width() + 8
