"""The welcome view of a new, still empty chat: a greeting and a few example prompts.

Choosing an example emits ``prompt_chosen(text)``; the window puts the text into the
composer (it is not sent, so it can be edited first).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

log = logging.getLogger(__name__)


class WelcomeView(QWidget):
    """Signal: ``prompt_chosen(str)``."""

    prompt_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WelcomeView")
        self.title_label = QLabel(self)
        self.title_label.setObjectName("WelcomeTitle")
        self.title_label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.subtitle_label = QLabel(self)
        self.subtitle_label.setObjectName("WelcomeSubtitle")
        self.subtitle_label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.subtitle_label.setWordWrap(True)
        self.chips: list[QPushButton] = []
        self._build_layout()
        self._retranslate()

    def _build_layout(self) -> None:
        grid = QGridLayout()
        grid.setSpacing(10)
        for row in range(len(self._examples())):
            chip = QPushButton(self)
            chip.setObjectName("PromptChip")
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.setMinimumWidth(160)
            chip.clicked.connect(lambda _checked=False, i=row: self._choose(i))
            self.chips.append(chip)
            grid.addWidget(chip, row // 2, row % 2)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(24, 24, 24, 24)
        outer.setSpacing(12)
        outer.addStretch(2)
        outer.addWidget(self.title_label)
        outer.addWidget(self.subtitle_label)
        outer.addSpacing(12)
        outer.addLayout(grid)
        outer.addStretch(3)

    def _examples(self) -> list[tuple[str, str]]:
        """(chip label, prompt put into the composer), translated."""
        return [
            (
                self.tr("Explain a concept simply"),
                self.tr("Explain how a large language model works, as if I were new to it."),
            ),
            (
                self.tr("Summarise a document"),
                self.tr("Summarise the attached document in five bullet points."),
            ),
            (
                self.tr("Draft an email"),
                self.tr("Draft a short, friendly email asking to move our meeting to next week."),
            ),
            (
                self.tr("Help with code"),
                self.tr("Review this Python function and suggest improvements:\n\n"),
            ),
        ]

    def examples(self) -> list[tuple[str, str]]:
        return self._examples()

    def _choose(self, row: int) -> None:
        prompt = self._examples()[row][1]
        log.debug("example prompt %d chosen", row)
        self.prompt_chosen.emit(prompt)

    def _retranslate(self) -> None:
        self.title_label.setText(self.tr("What can I help with?"))
        self.subtitle_label.setText(self.tr("Ask anything, or start from one of these examples."))
        for chip, (label, _prompt) in zip(self.chips, self._examples(), strict=True):
            chip.setText(label)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
