"""``ComposerTextEdit``: the plain-text editor inside the composer.

Owns the keyboard contract of the text itself: Enter emits ``submitted``,
Shift+Enter (or Alt+Enter) inserts a new line, Esc emits ``escape_pressed``, and
while an input method is composing (a non-empty preedit string) Enter belongs
to the input method and never sends. It grows with its text up to eight lines.
Pasted or dropped files and images do not become text: they are emitted as
``files_pasted(paths)`` / ``image_pasted(QImage)`` for the attachment chips."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt, Signal
from PySide6.QtGui import QFocusEvent, QImage, QInputMethodEvent, QKeyEvent
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QSizePolicy, QWidget

from .file_drop import is_attachable, local_files, mime_text, pasted_image

if TYPE_CHECKING:
    from .suggestion_popup import SuggestionPopup

log = logging.getLogger(__name__)

MIN_LINES = 2
MAX_LINES = 8
_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
_NEWLINE_MODIFIERS = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier


class ComposerTextEdit(QPlainTextEdit):
    """Plain-text editor that turns Enter into ``submitted`` unless an IME is composing."""

    submitted = Signal()
    escape_pressed = Signal()
    focus_changed = Signal(bool)
    files_pasted = Signal(list)  # local paths pasted or dropped into the text
    image_pasted = Signal(QImage)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._preedit = ""
        self.setObjectName("ComposerEdit")
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().documentLayout().documentSizeChanged.connect(self._update_height)
        self._update_height()

    def is_composing(self) -> bool:
        """True while an input method shows uncommitted (preedit) text."""
        return bool(self._preedit)

    def inputMethodEvent(self, event: QInputMethodEvent) -> None:
        self._preedit = event.preeditString()
        super().inputMethodEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _ENTER_KEYS:
            self._handle_enter(event)
            return
        if event.key() == Qt.Key.Key_Escape and not self._preedit:
            self.escape_pressed.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def _handle_enter(self, event: QKeyEvent) -> None:
        event.accept()
        if self._preedit:
            return  # the input method owns Enter while composing (it commits the text)
        if event.modifiers() & _NEWLINE_MODIFIERS:
            self.textCursor().insertBlock()
            self.ensureCursorVisible()
            return
        self.submitted.emit()

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self.focus_changed.emit(True)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.focus_changed.emit(False)

    def clear(self) -> None:
        self._preedit = ""
        super().clear()

    def visual_line_count(self) -> int:
        # QPlainTextDocumentLayout measures its document in lines, not pixels.
        lines = int(self.document().documentLayout().documentSize().height())
        return max(1, lines)

    def _update_height(self) -> None:
        lines = min(max(self.visual_line_count(), MIN_LINES), MAX_LINES)
        margins = self.contentsMargins()
        chrome = int(2 * self.document().documentMargin()) + margins.top() + margins.bottom()
        height = lines * self.fontMetrics().lineSpacing() + chrome + 2
        if self.height() != height or self.minimumHeight() != height:
            self.setFixedHeight(height)

    # Paste and drop both end here: files and images become attachments, text
    # stays text (also when a picture of it comes along, as from a spreadsheet).
    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return (
            is_attachable(source)
            or bool(mime_text(source))
            or super().canInsertFromMimeData(source)
        )

    def insertFromMimeData(self, source: QMimeData) -> None:
        files = local_files(source)
        image = pasted_image(source)
        if files:
            self.files_pasted.emit(files)
        elif image is not None:
            self.image_pasted.emit(image)
        elif not (source.hasText() and source.text()) and (words := mime_text(source)):
            self.insertPlainText(words)  # HTML alone: its words (a plain editor reads no HTML)
        else:
            super().insertFromMimeData(source)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._update_height()


class PopupKeyFilter(QObject):
    """Event filter for the editor: offers key presses to the open popups first.
    ``popups`` is read at each key press: popups appended later (built on first
    use) take part."""

    def __init__(self, popups: list[SuggestionPopup], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._popups = popups

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            composing = getattr(watched, "is_composing", lambda: False)()
            if not composing:
                return any(p.handle_key(event) for p in self._popups if p.is_open())
        return False
