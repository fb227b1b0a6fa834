"""Small vector marks the sidebar paints on its rows: the push-pin (outline or
filled), the batch-mode check box, a group header's chevron and a workspace's
colour dot. Pure painting on a given ``QPainter``; no state."""

from __future__ import annotations

import logging

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

log = logging.getLogger(__name__)


def paint_pin(painter: QPainter, box: QRectF, color: QColor, *, filled: bool = True) -> None:
    """A push-pin drawn at 45°: round head, short needle; outline when not pinned."""
    painter.save()
    painter.translate(box.center())
    scale = min(box.width(), box.height()) / 12.0
    painter.scale(scale, scale)
    painter.rotate(45)
    head = QPainterPath()
    head.addEllipse(QRectF(-3.2, -6, 6.4, 6.4))
    if filled:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
    else:
        painter.setPen(QPen(color, 1.3))
        painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(head)
    needle = QPen(color, 1.4)
    needle.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(needle)
    painter.drawLine(QPointF(0, 0.4), QPointF(0, 6))
    painter.restore()


def paint_check(
    painter: QPainter, box: QRectF, *, checked: bool, accent: QColor, border: QColor
) -> None:
    """A rounded check box; ticked boxes are filled with the accent colour."""
    painter.save()
    if checked:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
    else:
        painter.setPen(QPen(border, 1.3))
        painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 3.5, 3.5)
    if checked:
        # a white tick on a dark accent, a near-black one on a light accent (dark theme)
        ink = QColor("white") if accent.lightnessF() < 0.55 else QColor("#10201e")
        tick = QPen(ink, 1.8)
        tick.setCapStyle(Qt.PenCapStyle.RoundCap)
        tick.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
        painter.setPen(tick)
        w, h, x, y = box.width(), box.height(), box.left(), box.top()
        painter.drawPolyline(
            QPolygonF(
                [
                    QPointF(x + w * 0.24, y + h * 0.52),
                    QPointF(x + w * 0.43, y + h * 0.70),
                    QPointF(x + w * 0.76, y + h * 0.32),
                ]
            )
        )
    painter.restore()


def paint_chevron(painter: QPainter, box: QRectF, color: QColor, *, expanded: bool) -> None:
    """▾ when expanded, ▸ when collapsed, as two strokes."""
    painter.save()
    pen = QPen(color, 1.4)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    c = box.center()
    r = min(box.width(), box.height()) / 4.0
    if expanded:
        points = [QPointF(c.x() - r, c.y() - r / 2), c + QPointF(0, r / 2), c + QPointF(r, -r / 2)]
    else:
        points = [QPointF(c.x() - r / 2, c.y() - r), c + QPointF(r / 2, 0), c + QPointF(-r / 2, r)]
    painter.drawPolyline(QPolygonF(points))
    painter.restore()


def paint_dot(painter: QPainter, center: QPointF, radius: float, color: QColor) -> None:
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawEllipse(center, radius, radius)
    painter.restore()


def magnifier_icon(color: QColor, size: int = 16) -> QIcon:
    """A search glass: a ring and a short handle."""
    ratio = 2
    pixmap = QPixmap(size * ratio, size * ratio)
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    pen = QPen(color, 1.6)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    radius = size * 0.3
    center = QPointF(size * 0.42, size * 0.42)
    painter.drawEllipse(center, radius, radius)
    painter.drawLine(
        center + QPointF(radius * 0.72, radius * 0.72), QPointF(size * 0.86, size * 0.86)
    )
    painter.end()
    return QIcon(pixmap)
