"""``ElidingToolButton``: a tool button (the header's role and knowledge-base
pickers) that asks for room for its whole label but, when the row is short of
it, shrinks to ``MIN_WIDTH`` and paints its label elided ("KB: Ga…"); a short
label ("No role") is never cut. Its
``text()`` stays whole, and so does the tooltip the pickers set."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QSizePolicy,
    QStyle,
    QStyleOptionToolButton,
    QStylePainter,
    QToolButton,
    QWidget,
)

MIN_WIDTH = 72
#: a label this short is never cut ("No role"; "无知识库" cut to "无知…" reads "ignorant…")
WHOLE_BELOW = 120


class ElidingToolButton(QToolButton):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)

    def minimumSizeHint(self) -> QSize:
        hint = self.sizeHint()
        if hint.width() <= WHOLE_BELOW:
            return hint
        return QSize(MIN_WIDTH, hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        option = QStyleOptionToolButton()
        self.initStyleOption(option)
        room = self.width() - (
            self.sizeHint().width() - self.fontMetrics().horizontalAdvance(option.text)
        )
        if room < self.fontMetrics().horizontalAdvance(option.text):
            option.text = self.fontMetrics().elidedText(
                option.text, Qt.TextElideMode.ElideRight, max(0, room)
            )
        painter = QStylePainter(self)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option)
