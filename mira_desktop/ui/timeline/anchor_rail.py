"""``AnchorRail``: the slim navigation rail at the timeline's right edge (002's
消息锚点导航): one mark per user message and per compaction card, the mark of
the turn being read highlighted, a click jumps to the message, hovering shows
its first words.

It works from message ids and the timeline's row geometry, never from live
widgets, so it suits the virtualised timeline: the marks are rebuilt when the
rows change (``TimelineView.rows_changed``; a message appended adds its mark
alone, ``row_added``), and the current mark follows the
reader through a light poll of ``TimelineView.message_view_y`` (a binary
search over the marks) while the rail is visible. With fewer than two marks
the rail stays empty but keeps its width, so the timeline never reflows."""

from __future__ import annotations

import bisect
import logging
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QHideEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPixmap,
    QShowEvent,
)
from PySide6.QtWidgets import QHBoxLayout, QToolTip, QWidget

from mira_desktop.core.message_kinds import COMPACTION_KIND
from mira_desktop.core.models import MessageRole

from .timeline_view import TimelineView

log = logging.getLogger(__name__)

RAIL_WIDTH = 18
MAX_STEP = 18
#: questions' bars closer than this are thinned out: thousands of them made one
#: solid bar beside the scroll bar (it read as a second one)
MIN_GAP = 4
PAD = 14
POLL_MS = 200
PREVIEW_CHARS = 80


@dataclass(frozen=True, slots=True)
class Mark:
    message_id: str
    kind: str  # "user" | "compaction"


class AnchorRail(QWidget):
    """Marks for one :class:`TimelineView`. Signal: ``jumped(message_id)``."""

    jumped = Signal(str)

    def __init__(self, timeline: TimelineView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AnchorRail")
        self.setFixedWidth(RAIL_WIDTH)
        self.setMouseTracking(True)
        self._timeline = timeline
        self._marks: list[Mark] = []
        self._current = -1
        self._hover = -1
        self._version = 0  # the marks' edition: the kept layer's key
        self._layer: QPixmap | None = None
        self._layer_key: tuple[object, ...] = ()
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.update_current)
        timeline.rows_changed.connect(self.rebuild)
        timeline.row_added.connect(self._on_row_added)
        self.rebuild()

    # ---- marks ---------------------------------------------------------------------
    def rebuild(self) -> None:
        """Read the marks from the timeline again."""
        marks = map(self._mark_of, self._timeline.message_ids())
        self._marks = [mark for mark in marks if mark is not None]
        self._changed()

    def _on_row_added(self, message_id: str) -> None:
        """A message came at the end: its mark, if it has one, comes last (not
        every mark read again: 2,500 of them took ~4 ms)."""
        mark = self._mark_of(message_id)
        if mark is not None:
            self._marks.append(mark)
            self._changed()

    def _mark_of(self, message_id: str) -> Mark | None:
        message = self._timeline.message(message_id)
        if message is None:
            return None
        if message.role == MessageRole.USER:
            return Mark(message_id, "user")
        if (message.data or {}).get("kind") == COMPACTION_KIND:
            return Mark(message_id, "compaction")
        return None

    def _changed(self) -> None:
        self._version += 1
        self._hover = -1
        self._current = -1
        self.update_current()
        self.update()

    def marks(self) -> list[Mark]:
        return list(self._marks)

    def mark_ids(self) -> list[str]:
        return [m.message_id for m in self._marks]

    def current_id(self) -> str | None:
        return (
            self._marks[self._current].message_id if 0 <= self._current < len(self._marks) else None
        )

    def is_active(self) -> bool:
        """The rail shows marks (a conversation of two turns or more)."""
        return len(self._marks) >= 2

    def update_current(self) -> None:
        """Highlight the mark of the turn at the upper part of the viewport."""
        index = self._index_in_view()
        if index != self._current:
            self._current = index
            self.update()

    def _index_in_view(self) -> int:
        if not self._marks:
            return -1
        line = max(24, self._timeline.height() // 3)
        ys = _LazyYs(self._timeline, self._marks)
        return max(0, bisect.bisect_right(ys, line) - 1)

    # ---- geometry --------------------------------------------------------------------
    def _step(self) -> float:
        count = len(self._marks)
        if count < 2:
            return 0.0
        return min(float(MAX_STEP), (self.height() - 2 * PAD) / (count - 1))

    def mark_position(self, index: int) -> QPoint:
        """The centre of mark ``index`` in the rail's coordinates."""
        step = self._step()
        return QPoint(self.width() // 2, round(self._top(step) + index * step))

    def _top(self, step: float) -> float:
        span = step * (len(self._marks) - 1)
        return max(PAD, (self.height() - span) / 2)

    def _index_at(self, y: float) -> int:
        if not self.is_active():
            return -1
        step = self._step()
        top = self.mark_position(0).y()
        index = round((y - top) / step) if step else 0
        if not 0 <= index < len(self._marks):
            return -1
        return index if abs(self.mark_position(index).y() - y) <= max(step / 2, 4) else -1

    def sizeHint(self) -> QSize:
        return QSize(RAIL_WIDTH, 200)

    # ---- events ----------------------------------------------------------------------
    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        index = self._index_at(event.position().y())
        if index != self._hover:
            self._hover = index
            self.update()
        if index < 0:
            QToolTip.hideText()
            self.unsetCursor()
            return
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        QToolTip.showText(event.globalPosition().toPoint(), self.preview(index), self)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        index = self._index_at(event.position().y())
        if event.button() != Qt.MouseButton.LeftButton or index < 0:
            super().mousePressEvent(event)
            return
        message_id = self._marks[index].message_id
        self._timeline.scroll_to_message(message_id, highlight=True)
        self._current = index
        self.update()
        self.jumped.emit(message_id)

    def leaveEvent(self, event: QEvent) -> None:
        self._hover = -1
        self.update()
        super().leaveEvent(event)

    def preview(self, index: int) -> str:
        """The hover text of mark ``index``: the first words of the message."""
        mark = self._marks[index]
        if mark.kind == "compaction":
            return self.tr("Context compressed")
        words = " ".join(self._timeline.message_text(mark.message_id).split())
        if len(words) > PREVIEW_CHARS:
            words = words[: PREVIEW_CHARS - 1] + "…"
        return words or self.tr("(attachments only)")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._timer.stop()

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.is_active():
            return
        palette = self.palette()
        muted = QColor(palette.color(QPalette.ColorRole.PlaceholderText))
        muted.setAlpha(150)
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._marks_layer(muted))
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(palette.color(QPalette.ColorRole.Accent)))
        step = self._step()
        top, x = self._top(step), self.width() // 2
        for index in sorted({self._current, self._hover}):
            if 0 <= index < len(self._marks):
                _draw_mark(painter, self._marks[index].kind, x, round(top + index * step), True)
        painter.end()

    def _marks_layer(self, muted: QColor) -> QPixmap:
        """Every mark, muted, drawn once into a pixmap kept until the marks,
        the rail's size or the colour change: a repaint for the current or the
        hovered mark draws the pixmap and that mark (a long thread's ~600
        marks took ~7 ms to draw)."""
        ratio = self.devicePixelRatioF()
        key = (self._version, self.width(), self.height(), ratio, muted.rgba())
        if self._layer is not None and self._layer_key == key:
            return self._layer
        layer = QPixmap(QSize(round(self.width() * ratio), round(self.height() * ratio)))
        layer.setDevicePixelRatio(ratio)
        layer.fill(Qt.GlobalColor.transparent)
        painter = QPainter(layer)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(muted)
        step = self._step()
        top, x = self._top(step), self.width() // 2
        last_bar, final = -MIN_GAP, len(self._marks) - 1
        for index, mark in enumerate(self._marks):
            y = round(top + index * step)
            if mark.kind == "compaction":  # rare and telling: always drawn
                _draw_mark(painter, mark.kind, x, y, False)
            elif y - last_bar >= MIN_GAP or index == final:  # the newest question too
                # a long thread has more questions than the rail has room
                # for: every few pixels one stands for those near it (drawn
                # over each other they piled up into one solid bar)
                last_bar = y
                _draw_mark(painter, mark.kind, x, y, False)
        painter.end()
        self._layer, self._layer_key = layer, key
        return layer


def _draw_mark(painter: QPainter, kind: str, x: int, y: int, strong: bool) -> None:
    """A question's bar or a compaction card's diamond, centred on (x, y);
    larger when ``strong`` (the current or hovered mark)."""
    if kind == "compaction":
        size = 4.5 if strong else 3.5
        painter.save()
        painter.translate(QPoint(x, y))
        painter.rotate(45)
        painter.drawRect(QRectF(-size, -size, 2 * size, 2 * size))
        painter.restore()
    else:
        width = 12.0 if strong else 7.0
        height = 3.0 if strong else 2.0
        painter.drawRoundedRect(QRectF(x - width / 2, y - height / 2, width, height), 1.0, 1.0)


class _LazyYs:
    """The marks' row positions as a sequence ``bisect`` can search, read from
    the timeline only for the probes the search makes."""

    def __init__(self, timeline: TimelineView, marks: list[Mark]) -> None:
        self._timeline = timeline
        self._marks = marks

    def __len__(self) -> int:
        return len(self._marks)

    def __getitem__(self, index: int) -> int:
        y = self._timeline.message_view_y(self._marks[index].message_id)
        return y if y is not None else 0


def with_anchor_rail(timeline: TimelineView, parent: QWidget) -> tuple[QWidget, AnchorRail]:
    """A pane holding ``timeline`` with its rail at the right edge."""
    pane = QWidget(parent)
    pane.setObjectName("TimelinePane")
    rail = AnchorRail(timeline, pane)
    rail.setBackgroundRole(QPalette.ColorRole.Base)
    rail.setAutoFillBackground(True)
    row = QHBoxLayout(pane)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(0)
    row.addWidget(timeline, 1)
    row.addWidget(rail)
    return pane, rail
