"""A proposed plan (PRODUCT.md §11, plan mode): an answer of the agent in
plan mode is framed as "Proposed plan", with "Implement plan" and "Keep
planning" under it once it has ended. Built only for such answers
(``core/agent.is_plan``)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


class PlanTitle(QLabel):
    """ "Proposed plan", above the answer's words."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("planTitle")
        font = self.font()
        font.setBold(True)
        self.setFont(font)
        self.setText(self.tr("Proposed plan"))


class PlanActions(QWidget):
    """ "Implement plan" and "Keep planning", under the plan."""

    implement_clicked = Signal()
    keep_planning_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("planActions")
        line = QHBoxLayout(self)
        line.setContentsMargins(0, 2, 0, 2)
        line.setSpacing(8)
        self.implement = QPushButton(self.tr("Implement plan"), self)
        self.implement.setObjectName("implementPlan")
        self.implement.setDefault(True)
        self.keep = QPushButton(self.tr("Keep planning"), self)
        self.keep.setObjectName("keepPlanning")
        for button in (self.implement, self.keep):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            line.addWidget(button)
        line.addStretch(1)
        self.implement.clicked.connect(self.implement_clicked)
        self.keep.clicked.connect(self.keep_planning_clicked)
