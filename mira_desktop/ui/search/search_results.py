"""The result list of the search dialog: ``SearchResultsModel`` holds the hits
of the latest query (``SearchHit``, best first) and ``SearchResultDelegate``
draws each as two lines — the thread's title with the hit's age and workspace
on the right, then the snippet with the matched words highlighted. A title hit
highlights the title itself and says so on the second line.

Text is laid out with ``QTextLayout`` and the highlights are format ranges:
rich text (a ``QTextDocument`` a line, parsing HTML and a style sheet) made a
row's paint ~0.6 ms, and the list repaints every row on screen each time new
results arrive, i.e. with every key typed."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QPointF,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QFontMetricsF,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from ...core.models import Workspace
from ...core.search import SearchHit
from ..sidebar.row_painting import paint_dot
from ..sidebar.thread_delegate import relative_time
from .snippet_text import clip_spans, plain_markdown

log = logging.getLogger(__name__)

_Index = QModelIndex | QPersistentModelIndex
HIT_ROLE = Qt.ItemDataRole.UserRole + 1
_PAD = 12


class SearchResultsModel(QAbstractListModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._hits: list[SearchHit] = []
        self.query = ""

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(self._hits)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._hits):
            return None
        hit = self._hits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return hit.thread_title
        if role == HIT_ROLE:
            return hit
        return None

    def set_hits(self, hits: list[SearchHit], query: str) -> None:
        self.beginResetModel()
        self._hits = list(hits)
        self.query = query
        self.endResetModel()

    def hit_at(self, row: int) -> SearchHit | None:
        return self._hits[row] if 0 <= row < len(self._hits) else None


Spans = tuple[tuple[int, int], ...]


def mark_format(palette: QPalette, *, bold: bool) -> QTextCharFormat:
    """How a matched word looks: dark text on yellow (light themes), light
    text on amber (dark themes), semi-bold (bold in a bold title)."""
    dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
    mark = QTextCharFormat()
    mark.setBackground(QColor("#7a5d00" if dark else "#ffe58a"))
    mark.setForeground(QColor("#fff6d5" if dark else "#1f2328"))
    mark.setFontWeight(QFont.Weight.Bold if bold else QFont.Weight.DemiBold)
    return mark


def utf16_spans(text: str, spans: Spans) -> Spans:
    """``spans`` (offsets in ``text``'s code points, as search gives them) in
    UTF-16 units, as Qt counts: they differ after a character beyond the
    BMP (an emoji)."""
    if not text or max(text) <= "\uffff":
        return spans

    def unit(at: int) -> int:  # a lone surrogate (from bad UTF-8) is one unit too
        return len(text[:at].encode("utf-16-le", "surrogatepass")) // 2

    return tuple((unit(start), unit(end)) for start, end in spans)


def _code_points(text: str, units: int) -> int:
    """The offset in ``text``'s code points of ``units`` UTF-16 units."""
    if not text or max(text) <= "\uffff":
        return units
    seen = 0
    for index, char in enumerate(text):
        if seen >= units:
            return index
        seen += 2 if char > "\uffff" else 1
    return len(text)


def fitted_text(
    text: str, spans: Spans, font: QFont, width: float, lines: int
) -> tuple[str, Spans]:
    """``text`` as far as ``lines`` lines of ``width`` hold it, ending in "…"
    when it does not all fit (it was clipped mid-character), with its spans
    cut to what is left."""
    metrics = QFontMetricsF(font)
    elide = Qt.TextElideMode.ElideRight
    if lines == 1:
        if metrics.horizontalAdvance(text) <= width:
            return text, spans
        cut = metrics.elidedText(text, elide, width)
        return cut, clip_spans(spans, max(0, len(cut) - 1))
    probe = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    probe.setTextOption(option)
    probe.beginLayout()
    starts: list[int] = []
    while True:
        line = probe.createLine()
        if not line.isValid() or len(starts) > lines:
            break
        line.setLineWidth(width)
        starts.append(line.textStart())
    probe.endLayout()
    if len(starts) <= lines:
        return text, spans
    last = _code_points(text, starts[lines - 1])
    rest = metrics.elidedText(text[last:], elide, width)
    return text[:last] + rest, clip_spans(spans, last + max(0, len(rest) - 1))


def text_layout(
    text: str, spans: Spans, font: QFont, mark: QTextCharFormat, width: float, lines: int
) -> QTextLayout:
    """``text`` laid out in at most ``lines`` lines of ``width`` (one line
    that is not wrapped when ``lines`` is 1), ``spans`` formatted as ``mark``."""
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(
        QTextOption.WrapMode.NoWrap
        if lines == 1
        else QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere
    )
    layout.setTextOption(option)
    ranges = []
    for start, end in utf16_spans(text, spans):
        marked = QTextLayout.FormatRange()
        marked.start, marked.length, marked.format = start, end - start, mark
        ranges.append(marked)
    layout.setFormats(ranges)
    layout.beginLayout()
    y = 0.0
    for _ in range(lines):
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        line.setPosition(QPointF(0, y))
        y += line.height()
    layout.endLayout()
    return layout


class SearchResultDelegate(QStyledItemDelegate):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspaces: dict[str, Workspace] = {}
        self.title_hit_text = "Title"

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        line = QFontMetrics(option.font).height()
        return QSize(400, int(line * 3 + 24))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        hit = index.data(HIT_ROLE)
        if not isinstance(hit, SearchHit):
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        palette = option.palette
        rect = QRectF(option.rect).adjusted(4, 2, -4, -2)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected or option.state & QStyle.StateFlag.State_MouseOver:
            fill = QColor(palette.color(QPalette.ColorRole.Highlight))
            if not selected:
                fill = QColor(palette.color(QPalette.ColorRole.Text))
                fill.setAlpha(16)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 8, 8)
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        line = QFontMetrics(option.font).height()
        top = QRectF(rect.left() + _PAD, rect.top() + 6, rect.width() - 2 * _PAD, line + 2)
        right = self._paint_meta(painter, option, hit, top, selected)
        title_box = top.adjusted(0, 0, right - top.right() - 8, 0)
        title: tuple[str, Spans] = (
            (hit.snippet, hit.highlights)  # a title hit: the snippet is the title
            if hit.message_id is None
            else (hit.thread_title, ())
        )
        self._paint_text(painter, option, title, title_box, palette.color(text_role), bold=True)
        second = QRectF(top.left(), top.bottom() + 2, top.width(), 2 * line + 2)
        muted = palette.color(text_role if selected else QPalette.ColorRole.PlaceholderText)
        snippet = (
            (self.title_hit_text, ()) if hit.message_id is None else (hit.snippet, hit.highlights)
        )
        self._paint_text(painter, option, snippet, second, muted, bold=False)
        painter.restore()

    def _paint_meta(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        hit: SearchHit,
        box: QRectF,
        selected: bool,
    ) -> float:
        """Age and workspace at the right of the first line; returns its left edge."""
        font = QFont(option.font)
        font.setPointSizeF(max(7.0, font.pointSizeF() - 1.0))
        metrics = QFontMetrics(font)
        workspace = self.workspaces.get(hit.workspace_id)
        text = relative_time(hit.created_at)
        if workspace is not None:  # a long name is elided: the title keeps its room
            room = box.width() * 0.4 - metrics.horizontalAdvance(f" · {text}")
            name = metrics.elidedText(
                workspace.name, Qt.TextElideMode.ElideRight, max(24, int(room))
            )
            text = f"{name} · {text}"
        width = metrics.horizontalAdvance(text)
        meta = QRectF(box.right() - width, box.top(), width, box.height())
        role = (
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText
        )
        painter.setFont(font)
        painter.setPen(option.palette.color(role))
        painter.drawText(meta, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, text)
        left = meta.left()
        if workspace is not None and workspace.color and not workspace.is_default:
            center = QPointF(meta.left() - 8, box.center().y())
            paint_dot(painter, center, 3.5, QColor(workspace.color))
            left -= 14
        return left

    def _paint_text(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        text_spans: tuple[str, Spans],
        box: QRectF,
        color: QColor,
        *,
        bold: bool,
    ) -> None:
        """Text with its highlights in ``box``: one line when bold (the title),
        else wrapped to two."""
        text, spans = text_spans
        font = QFont(option.font)
        font.setBold(bold)
        # one line: a line break or tab in a title is a space (same length,
        # so the spans still fit)
        if not bold:  # a message's snippet: the text people read, not its Markdown
            text, spans = plain_markdown(text, spans)
        flat = text.replace("\n", " ").replace("\r", " ").replace("\t", " ")
        lines = 1 if bold else 2
        flat, spans = fitted_text(flat, spans, font, box.width(), lines)
        mark = mark_format(option.palette, bold=bold)
        layout = text_layout(flat, spans, font, mark, box.width(), lines)
        painter.save()
        painter.setClipRect(box)
        painter.setPen(color)
        layout.draw(painter, box.topLeft())
        painter.restore()
