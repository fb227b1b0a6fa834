"""Painting of one sidebar row: title (elided), relative time on the right, a pin
mark for pinned threads and a small spinning arc for threads streaming in the
background. Also owns ``relative_time()``, the translated "5 min" / "Yesterday" labels.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel

log = logging.getLogger(__name__)

TR_CONTEXT = "ThreadItemDelegate"  # translation context of this module's strings

_Index = QModelIndex | QPersistentModelIndex
_H_PAD = 10
_ROW_HEIGHT_LINES = 2.1


def relative_time(iso: str, now: datetime | None = None) -> str:
    """Short, translated age of an ISO-8601 UTC timestamp ("now", "5 min", "Yesterday"…)."""
    try:
        moment = datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    seconds = (now - moment).total_seconds()
    local, local_now = moment.astimezone(), now.astimezone()
    days = (local_now.date() - local.date()).days
    if seconds < 60:
        return QCoreApplication.translate(TR_CONTEXT, "now")
    if seconds < 3600:
        return QCoreApplication.translate(TR_CONTEXT, "{n} min").format(n=int(seconds // 60))
    if days == 0:
        return QCoreApplication.translate(TR_CONTEXT, "{n} h").format(n=int(seconds // 3600))
    if days == 1:
        return QCoreApplication.translate(TR_CONTEXT, "Yesterday")
    if days < 7:
        return QCoreApplication.translate(TR_CONTEXT, "{n} d").format(n=days)
    if local.year == local_now.year:
        return local.strftime("%m-%d")
    return local.strftime("%Y-%m-%d")


class ThreadItemDelegate(QStyledItemDelegate):
    """Draws sidebar rows; ``spinner_phase`` (0–359) is advanced by the sidebar's timer."""

    def __init__(self, parent: object = None) -> None:
        super().__init__(parent)
        self.spinner_phase = 0

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        height = int(QFontMetrics(option.font).height() * _ROW_HEIGHT_LINES)
        return QSize(200, max(height, 32))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        palette = option.palette
        rect = QRectF(option.rect).adjusted(4, 1, -4, -1)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        if selected or hovered:
            fill = palette.color(QPalette.ColorRole.Highlight)
            if not selected:  # a faint wash of the text colour works on any background
                fill = QColor(palette.color(QPalette.ColorRole.Text))
                fill.setAlpha(18)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 8, 8)
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        text_color = palette.color(text_role)
        right = self._paint_trailing(painter, option, index, rect)
        left = rect.left() + _H_PAD
        if index.data(ThreadListModel.PinnedRole):
            self._paint_pin(painter, QRectF(left, rect.center().y() - 6, 12, 12), text_color)
            left += 18
        title_rect = QRectF(left, rect.top(), max(0.0, right - left - 8), rect.height())
        title = str(index.data(ThreadListModel.TitleRole) or "")
        metrics = QFontMetrics(option.font)
        elided = metrics.elidedText(title, Qt.TextElideMode.ElideRight, int(title_rect.width()))
        painter.setFont(option.font)
        painter.setPen(text_color)
        painter.drawText(
            title_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, elided
        )
        painter.restore()

    def _paint_trailing(
        self, painter: QPainter, option: QStyleOptionViewItem, index: _Index, rect: QRectF
    ) -> float:
        """Paint the spinner or the relative time at the right; return where it starts."""
        palette = option.palette
        if index.data(ThreadListModel.RunningRole):
            size = 12.0
            box = QRectF(rect.right() - _H_PAD - size, rect.center().y() - size / 2, size, size)
            pen = QPen(palette.color(QPalette.ColorRole.Accent), 2.0)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawArc(box, -self.spinner_phase * 16, 270 * 16)
            return box.left()
        stamp = relative_time(str(index.data(ThreadListModel.UpdatedRole) or ""))
        if not stamp:
            return rect.right() - _H_PAD
        font = QFont(option.font)  # a copy: the title is drawn with option.font afterwards
        font.setPointSizeF(max(7.0, font.pointSizeF() - 1.5))
        metrics = QFontMetrics(font)
        width = metrics.horizontalAdvance(stamp)
        box = QRectF(rect.right() - _H_PAD - width, rect.top(), width, rect.height())
        painter.setFont(font)
        muted_role = (
            QPalette.ColorRole.HighlightedText
            if option.state & QStyle.StateFlag.State_Selected
            else QPalette.ColorRole.PlaceholderText
        )
        painter.setPen(palette.color(muted_role))
        painter.drawText(box, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, stamp)
        return box.left()

    @staticmethod
    def _paint_pin(painter: QPainter, box: QRectF, color: QColor) -> None:
        """A small push-pin: round head, short needle, drawn at 45°."""
        painter.save()
        painter.translate(box.center())
        painter.rotate(45)
        path = QPainterPath()
        path.addEllipse(QRectF(-3.2, -6, 6.4, 6.4))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawPath(path)
        needle = QPen(color, 1.4)
        needle.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(needle)
        painter.drawLine(0, 0, 0, 6)
        painter.restore()
