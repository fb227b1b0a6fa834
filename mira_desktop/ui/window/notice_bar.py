"""``NoticeBar``: the one-line banner above the conversation — an error's reason
and what to do next, or a fact with an action to take it back ("Last turn moved
to the trash" · Restore). A new notice replaces the old one together with its
action; an empty text hides the bar."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

log = logging.getLogger(__name__)


class NoticeBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("NoticeBar")
        self.label = QLabel(self)
        self.label.setObjectName("NoticeBanner")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action_button = QPushButton(self)
        self.action_button.setObjectName("NoticeActionButton")
        self.action_button.clicked.connect(self._on_action)
        self.close_button = QToolButton(self)
        self.close_button.setObjectName("NoticeCloseButton")
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(lambda: self.show_notice(""))
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 6, 12, 6)
        row.setSpacing(10)
        row.addWidget(self.label, 1)
        row.addWidget(self.action_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self._callback: Callable[[], None] | None = None
        self._retranslate()
        self.show_notice("")

    def show_notice(
        self,
        text: str,
        *,
        action: str | None = None,
        on_action: Callable[[], None] | None = None,
    ) -> None:
        """Show ``text`` (``""`` hides the bar), with a button ``action`` that
        calls ``on_action`` once and hides the bar."""
        self.label.setText(text)
        self._callback = on_action if action else None
        self.action_button.setText(action or "")
        self.action_button.setVisible(bool(action))
        self.setVisible(bool(text))

    def text(self) -> str:
        return self.label.text() if not self.isHidden() else ""

    def _on_action(self) -> None:
        callback, self._callback = self._callback, None
        self.show_notice("")
        if callback is not None:
            callback()

    def _retranslate(self) -> None:
        self.close_button.setToolTip(self.tr("Dismiss"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)
