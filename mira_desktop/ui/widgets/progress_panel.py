"""``ProgressPanel``: the agent's steps above the composer (PRODUCT.md §11) —
a header ("Progress · 2 of 5") that folds the list, and one line per step
with a box that is empty (pending), half filled (in progress) or ticked
(completed). It shows the steps of the branch on screen: the last answer on
it that reported some (``window/agent_actions.py`` chooses)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QFrame, QToolButton, QVBoxLayout, QWidget

from mira_desktop.core.agent import ProgressStep, StepStatus

_STATES = {
    StepStatus.PENDING: Qt.CheckState.Unchecked,
    StepStatus.IN_PROGRESS: Qt.CheckState.PartiallyChecked,
    StepStatus.COMPLETED: Qt.CheckState.Checked,
}


class ProgressPanel(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("progressPanel")
        self._steps: list[ProgressStep] = []
        self._open = True
        box = QVBoxLayout(self)
        box.setContentsMargins(16, 6, 16, 6)
        box.setSpacing(2)
        self.header = QToolButton(self)
        self.header.setObjectName("progressHeader")
        self.header.setAutoRaise(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setCursor(Qt.CursorShape.PointingHandCursor)
        self.header.clicked.connect(self._toggle)
        self.setStyleSheet(
            "QToolButton#progressHeader { border: none; background: transparent; padding: 2px 0; }"
        )
        box.addWidget(self.header)
        self._rows: list[QCheckBox] = []
        self._list = QVBoxLayout()
        self._list.setContentsMargins(8, 0, 0, 0)
        self._list.setSpacing(0)
        box.addLayout(self._list)
        self.setVisible(False)

    @property
    def rows(self) -> list[QCheckBox]:
        return [row for row in self._rows if not row.isHidden()]

    def show_steps(self, steps: list[ProgressStep]) -> None:
        """Show these steps (none hides the panel)."""
        self._steps = list(steps)
        while len(self._rows) < len(steps):
            row = QCheckBox(self)
            row.setObjectName("progressStep")
            row.setTristate(True)
            row.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            row.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # shown, not set
            self._list.addWidget(row)
            self._rows.append(row)
        for row, step in zip(self._rows, steps, strict=False):
            row.setText(step.title)
            row.setCheckState(_STATES[step.status])
            font = row.font()
            font.setBold(step.status is StepStatus.IN_PROGRESS)  # where the agent is now
            row.setFont(font)
        for index, row in enumerate(self._rows):
            row.setVisible(self._open and index < len(steps))
        self._retranslate()
        self.setVisible(bool(steps))

    def _retranslate(self) -> None:
        done = sum(step.status is StepStatus.COMPLETED for step in self._steps)
        self.header.setText(self.tr("Progress · {0} of {1}").format(done, len(self._steps)))
        self.header.setArrowType(Qt.ArrowType.DownArrow if self._open else Qt.ArrowType.RightArrow)

    def _toggle(self) -> None:
        self._open = not self._open
        self.show_steps(self._steps)
