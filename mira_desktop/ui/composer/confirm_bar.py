"""``SendConfirmBar``: the small bar above the composer that asks before a
send goes out with something the user should know about — today, images for
a model not marked as able to see them (PRODUCT.md §7: a warning, never a
silent drop). "Send anyway" emits ``accepted``, "Cancel" ``rejected``; the
window decides what follows."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

log = logging.getLogger(__name__)


class SendConfirmBar(QFrame):
    accepted = Signal()
    rejected = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SendConfirmBar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.label = QLabel(self)
        self.label.setObjectName("SendConfirmText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.send_button = QPushButton(self)
        self.send_button.setObjectName("SendAnywayButton")
        self.send_button.setProperty("primary", True)
        self.cancel_button = QPushButton(self)
        self.cancel_button.setObjectName("SendCancelButton")
        self.send_button.clicked.connect(self._accept)
        self.cancel_button.clicked.connect(self._reject)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 8, 8)
        row.setSpacing(8)
        row.addWidget(self.label, 1)
        row.addWidget(self.cancel_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self._retranslate()
        self.hide()

    def ask(self, text: str) -> None:
        self.label.setText(text)
        self.show()
        self.send_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def is_asking(self) -> bool:
        return not self.isHidden()

    def _accept(self) -> None:
        self.hide()
        self.accepted.emit()

    def _reject(self) -> None:
        self.hide()
        self.rejected.emit()

    def _retranslate(self) -> None:
        self.send_button.setText(self.tr("Send anyway"))
        self.cancel_button.setText(self.tr("Cancel"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
