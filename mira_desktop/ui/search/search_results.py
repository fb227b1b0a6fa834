"""The result list of the search dialog: ``SearchResultsModel`` holds the hits
of the latest query (``SearchHit``, best first) and ``SearchResultDelegate``
draws each as two lines — the thread's title with the hit's age and workspace
on the right, then the snippet with the matched words highlighted (the
service's ``render_html`` turned into Qt rich text). A title hit highlights the
title itself and says so on the second line."""

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
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from ...core.models import Workspace
from ...core.search import SearchHit
from ...services.snippets import render_html
from ..sidebar.row_painting import paint_dot
from ..sidebar.thread_delegate import relative_time

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


def _mark_style(palette: QPalette) -> str:
    dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
    background = "#7a5d00" if dark else "#ffe58a"
    color = "#fff6d5" if dark else "#1f2328"
    return f"b {{ background-color: {background}; color: {color}; font-weight: 600; }}"


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
        title_html = self._title_html(hit)
        self._paint_html(
            painter, option, title_html, title_box, palette.color(text_role), bold=True
        )
        second = QRectF(top.left(), top.bottom() + 2, top.width(), 2 * line + 2)
        muted = palette.color(text_role if selected else QPalette.ColorRole.PlaceholderText)
        snippet = (
            self.title_hit_text
            if hit.message_id is None
            else render_html(hit.snippet, hit.highlights, tag="b")
        )
        self._paint_html(painter, option, snippet, second, muted, bold=False)
        painter.restore()

    def _title_html(self, hit: SearchHit) -> str:
        if hit.message_id is None:  # a title hit: the snippet is the title
            return render_html(hit.snippet, hit.highlights, tag="b")
        return render_html(hit.thread_title, (), tag="b")

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
        if workspace is not None:
            text = f"{workspace.name} · {text}"
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

    def _paint_html(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        html: str,
        box: QRectF,
        color: QColor,
        *,
        bold: bool,
    ) -> None:
        """Rich text in ``box``: one line when bold (the title), else wrapped."""
        document = QTextDocument()
        font = QFont(option.font)
        font.setBold(bold)
        document.setDefaultFont(font)
        document.setDocumentMargin(0)
        document.setDefaultStyleSheet(_mark_style(option.palette))
        if bold:
            document.setHtml(f'<span style="white-space: pre;">{html}</span>')
            document.setTextWidth(-1)
        else:
            document.setHtml(html)
            document.setTextWidth(box.width())
        painter.save()
        painter.translate(box.topLeft())
        clip = QRectF(0, 0, box.width(), box.height())
        painter.setClipRect(clip)
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette.setColor(QPalette.ColorRole.Text, color)
        context.clip = clip
        document.documentLayout().draw(painter, context)
        painter.restore()
