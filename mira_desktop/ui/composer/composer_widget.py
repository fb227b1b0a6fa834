"""The composer: the multi-line box where a message is written and sent.

Owns the keyboard contract of sending (Enter sends, Shift+Enter inserts a new line,
Esc stops a running answer), IME safety (while an input method is composing — a
non-empty preedit string — Enter belongs to the input method and never sends), the
Send/Stop button, the auto-growing height (up to eight lines) and the disabled state
with a visible reason. It only emits intents (``send_requested``, ``stop_requested``);
the controller decides what they do. Enter while an answer is running still emits
``send_requested``: PRODUCT.md §5 says the controller then stops that answer and sends.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QFocusEvent, QInputMethodEvent, QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.ui.theme import set_style_property

log = logging.getLogger(__name__)

MIN_LINES = 2
MAX_LINES = 8
_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
_NEWLINE_MODIFIERS = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.AltModifier


def standard_reason(kind: str) -> str:
    """Translated explanation for a common reason to disable the composer.

    ``kind``: "no_provider", "no_model" or "question_pending"."""
    texts = {
        "no_provider": QCoreApplication.translate(
            "ComposerWidget", "Add a provider in Settings to start chatting"
        ),
        "no_model": QCoreApplication.translate(
            "ComposerWidget", "Choose a model above to start chatting"
        ),
        "question_pending": QCoreApplication.translate(
            "ComposerWidget", "Answer the questions above to continue"
        ),
    }
    return texts.get(kind, kind)


class ComposerTextEdit(QPlainTextEdit):
    """Plain-text editor that turns Enter into ``submitted`` unless an IME is composing."""

    submitted = Signal()
    escape_pressed = Signal()
    focus_changed = Signal(bool)

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

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._update_height()


class ComposerWidget(QWidget):
    """Message input with a Send/Stop button. Signals: ``send_requested(str)``,
    ``stop_requested()``."""

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self._running = False
        self._reason: str | None = None
        self.editor = ComposerTextEdit(self)
        self.send_button = QPushButton(self)
        self.send_button.setObjectName("SendButton")
        self.send_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.reason_label = QLabel(self)
        self.reason_label.setObjectName("ComposerReason")
        self.reason_label.setWordWrap(True)
        self.reason_label.hide()
        self._build_layout()
        self.editor.submitted.connect(self._submit)
        self.editor.escape_pressed.connect(self._on_escape)
        self.editor.textChanged.connect(self._update_button)
        self.editor.focus_changed.connect(self._on_focus_changed)
        self.send_button.clicked.connect(self._on_button_clicked)
        self._retranslate()
        self._update_button()

    def _build_layout(self) -> None:
        self.frame = QFrame(self)
        self.frame.setObjectName("ComposerFrame")
        inner = QHBoxLayout(self.frame)
        inner.setContentsMargins(12, 8, 8, 8)
        inner.setSpacing(8)
        inner.addWidget(self.editor, 1)
        inner.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 6, 16, 12)
        outer.setSpacing(6)
        outer.addWidget(self.reason_label)
        outer.addWidget(self.frame)

    # ---- public API ---------------------------------------------------------
    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str) -> None:
        """Replace the draft (e.g. restore it after a failed first send)."""
        self.editor.setPlainText(text)
        self.editor.moveCursor(QTextCursor.MoveOperation.End)

    def clear(self) -> None:
        self.editor.clear()

    def focus_input(self) -> None:
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def is_running(self) -> bool:
        return self._running

    def set_running(self, running: bool) -> None:
        """While an answer streams the button becomes Stop and Esc emits ``stop_requested``."""
        self._running = running
        set_style_property(self.send_button, "running", running)
        self._retranslate()
        self._update_button()

    def enabled_reason(self) -> str | None:
        return self._reason

    def set_enabled_reason(self, reason: str | None) -> None:
        """Disable input with a visible explanation; ``None`` enables it again."""
        self._reason = reason or None
        disabled = self._reason is not None
        self.reason_label.setText(self._reason or "")
        self.reason_label.setVisible(disabled)
        self.editor.setReadOnly(disabled)
        self.editor.setEnabled(not disabled)
        self._update_button()

    # ---- behaviour ----------------------------------------------------------
    def _submit(self) -> None:
        if self._reason is not None:
            return
        text = self.text().strip()
        if not text:
            return
        log.debug("send requested (%d chars, running=%s)", len(text), self._running)
        self.send_requested.emit(text)
        self.editor.clear()

    def _on_escape(self) -> None:
        if self._running:
            self.stop_requested.emit()

    def _on_button_clicked(self) -> None:
        if self._running:
            self.stop_requested.emit()
        else:
            self._submit()

    def _on_focus_changed(self, focused: bool) -> None:
        set_style_property(self.frame, "focused", focused)

    def _update_button(self) -> None:
        if self._running:
            self.send_button.setEnabled(True)
        else:
            has_text = bool(self.text().strip())
            self.send_button.setEnabled(self._reason is None and has_text)

    def _retranslate(self) -> None:
        self.editor.setPlaceholderText(
            self.tr("Message Mira… (Enter to send, Shift+Enter for a new line)")
        )
        if self._running:
            self.send_button.setText(self.tr("Stop"))
            self.send_button.setToolTip(self.tr("Stop the answer (Esc)"))
        else:
            self.send_button.setText(self.tr("Send"))
            self.send_button.setToolTip(self.tr("Send the message (Enter)"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)
