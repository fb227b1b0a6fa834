"""``MadeMediaRow``: what an answer's spoken audio (``speech_bar.py``) and its
picture (``image_card.py``) show alike under the answer (PRODUCT.md §10) — a
line saying what was made (or that it is being made, or why it failed) with
flat Open / Save… / Try again buttons, shown by the state."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from mira_desktop.core.answer_media import MadeSummary

from ..plain_text import plain_tooltip
from .answer_meta import apply_tone


class MadeMediaRow(QWidget):
    open_clicked = Signal()
    save_clicked = Signal()
    retry_clicked = Signal()

    def __init__(self, prefix: str, parent: QWidget | None = None) -> None:
        """``prefix``: of the object names ("speech": speechLabel, speechOpen…)."""
        super().__init__(parent)
        self.setObjectName(f"{prefix}Row")
        self.label = QLabel(self)
        self.label.setObjectName(f"{prefix}Label")
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # a provider's error page, as words
        self.label.setWordWrap(True)
        self.open_button = self._button(f"{prefix}Open", self.open_clicked)
        self.save_button = self._button(f"{prefix}Save", self.save_clicked)
        self.retry_button = self._button(f"{prefix}Retry", self.retry_clicked)
        #: the label and the buttons; subclasses put it in their layout
        self.line = QHBoxLayout()
        self.line.setSpacing(6)
        self.line.addWidget(self.label, 1)
        for button in (self.open_button, self.save_button, self.retry_button):
            self.line.addWidget(button, 0)

    def _button(self, name: str, signal: SignalInstance) -> QToolButton:
        """Flat, like the meta line's Copy (a row of pushed buttons per answer
        weighed more than the answer)."""
        button = QToolButton(self)
        button.setObjectName(name)
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        button.clicked.connect(signal)
        return button

    def _show_state(self, summary: MadeSummary, text: str, tooltip: str) -> None:
        ready, failed = summary.status == "ready", summary.status == "failed"
        self.open_button.setVisible(ready)
        self.save_button.setVisible(ready)
        # a failed attempt to make it again keeps what was made: both shown
        self.retry_button.setVisible(failed or summary.retry_failed)
        apply_tone(self.label, "error" if failed or summary.retry_failed else "muted")
        self.label.setText(text)
        self.label.setToolTip(plain_tooltip(tooltip))

    def _retranslate(self) -> None:
        self.save_button.setText(self.tr("Save…"))
        self.retry_button.setText(self.tr("Try again"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)
