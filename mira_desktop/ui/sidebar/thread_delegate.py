"""Painting of the sidebar's rows. A group header: a chevron and the group's
name, muted, at the bottom of the row (the space above separates groups). A
thread: title (elided), and on the right a spinner while it streams in the
background, else the pin button — filled on pinned threads, outlined on the
row under the mouse — else the relative time. In batch mode a check box comes
first; in the "All" list a dot shows the thread's workspace colour. Inline
rename uses a ``QLineEdit`` editor (Enter saves, Esc cancels).

``hit()`` tells the view which mark a click landed on, so clicks on a pin, a
check box or a header act without opening the thread. Also owns
``relative_time()``, the translated "5 min" / "Yesterday" labels, and older
dates in the formats of the default ``QLocale`` (the interface language's:
``i18n.formats_locale``), as the message footers write them."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from functools import lru_cache
from typing import NamedTuple

from PySide6.QtCore import (
    QAbstractItemModel,
    QCoreApplication,
    QDate,
    QLocale,
    QModelIndex,
    QPersistentModelIndex,
    QPointF,
    QRectF,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QLineEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from mira_desktop.services.history import USER_TITLE_LIMIT
from mira_desktop.ui.sidebar.grouped_model import GroupedThreadModel
from mira_desktop.ui.sidebar.row_painting import paint_check, paint_chevron, paint_dot, paint_pin
from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel
from mira_desktop.ui.sidebar.thread_row import ThreadRow

log = logging.getLogger(__name__)

TR_CONTEXT = "ThreadItemDelegate"  # translation context of this module's strings

_Index = QModelIndex | QPersistentModelIndex
_H_PAD = 10
_ROW_HEIGHT_LINES = 2.1
_PIN = 16.0
_CHECK = 15.0
RENAME_LIMIT = USER_TITLE_LIMIT  # typed whole; drawn elided
# flags combined once: each ``|`` or ``&`` of Qt's enums is Python code
_LEFT = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
_RIGHT = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight
_SELECTED = QStyle.StateFlag.State_Selected
_HOVERED = QStyle.StateFlag.State_MouseOver


def row_height(font: QFont) -> int:
    """The height of every row, a header's as a thread's, in ``font``."""
    return max(int(QFontMetrics(font).height() * _ROW_HEIGHT_LINES), 32)


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
    if days <= 7:  # as far as the "Previous 7 days" group goes
        return QCoreApplication.translate(TR_CONTEXT, "{n} d").format(n=days)
    locale = QLocale()
    date = QDate(local.year, local.month, local.day)
    short = locale.dateFormat(QLocale.FormatType.ShortFormat)
    if local.year == local_now.year:
        return locale.toString(date, month_day_format(short))
    return locale.toString(date, short)


_YEAR_FIRST = re.compile(r"^y+[^dMy]*")
_YEAR_AFTER = re.compile(r"[^dMy]*y+")


@lru_cache(maxsize=8)
def month_day_format(short_format: str) -> str:
    """A locale's short date format without the year and its separator:
    ``M/d/yy`` → ``M/d``, ``yyyy/M/d`` → ``M/d``, ``dd.MM.yy`` → ``dd.MM``,
    ``yy. M. d.`` → ``M. d.`` — the day and month in the locale's order."""
    if short_format.startswith("y"):
        stripped = _YEAR_FIRST.sub("", short_format, count=1)
    else:
        stripped = _YEAR_AFTER.sub("", short_format, count=1)
    if "d" not in stripped or "M" not in stripped or "y" in stripped:
        return "MM-dd"
    return stripped.strip()


class _Fonts(NamedTuple):
    title_metrics: QFontMetrics
    time: QFont  # a point and a half smaller
    time_metrics: QFontMetrics
    header: QFont  # a point smaller, semi-bold
    header_metrics: QFontMetrics

    @classmethod
    def of(cls, base: QFont) -> _Fonts:
        time = QFont(base)
        time.setPointSizeF(max(7.0, base.pointSizeF() - 1.5))
        header = QFont(base)
        header.setPointSizeF(max(7.0, base.pointSizeF() - 1.0))
        header.setWeight(QFont.Weight.DemiBold)
        return cls(QFontMetrics(base), time, QFontMetrics(time), header, QFontMetrics(header))


def _is_header(index: _Index) -> bool:
    return index.data(GroupedThreadModel.KindRole) == "header"


class ThreadItemDelegate(QStyledItemDelegate):
    """Draws sidebar rows; ``spinner_phase`` (0–359) is advanced by the sidebar's
    timer; ``show_pin_button`` is off in the trash."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spinner_phase = 0
        self.show_pin_button = True
        self._font_cache: tuple[QFont, _Fonts] | None = None

    def _fonts(self, base: QFont) -> _Fonts:
        """The fonts and metrics of a row in the view's font ``base``, made
        once per font (not for every row painted)."""
        if self._font_cache is None or self._font_cache[0] != base:
            self._font_cache = (QFont(base), _Fonts.of(base))
        return self._font_cache[1]

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        return QSize(200, row_height(option.font))

    # ---- geometry shared by painting and clicks ------------------------------------
    @staticmethod
    def _row_rect(option_rect: QRectF) -> QRectF:
        return QRectF(option_rect).adjusted(4, 1, -4, -1)

    def pin_rect(self, option_rect: QRectF) -> QRectF:
        rect = self._row_rect(option_rect)
        return QRectF(rect.right() - _H_PAD - _PIN + 2, rect.center().y() - _PIN / 2, _PIN, _PIN)

    def hit(self, option_rect: QRectF, index: _Index, pos: QPointF) -> str | None:
        """ "header", "check" (any click in batch mode), "pin" or None."""
        if _is_header(index):
            return "header"
        if index.data(GroupedThreadModel.CheckedRole) is not None:
            return "check"
        if self.show_pin_button and not index.data(ThreadListModel.RunningRole):
            if self.pin_rect(option_rect).adjusted(-4, -4, 4, 4).contains(pos):
                return "pin"
        return None

    # ---- painting ----------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        row = index.data(GroupedThreadModel.RowRole)  # None: a header
        if row is None:
            self._paint_header(painter, option, index)
        else:
            self._paint_thread(painter, option, row)
        painter.restore()

    def _paint_header(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        palette = option.palette
        rect = self._row_rect(QRectF(option.rect))
        fonts = self._fonts(option.font)
        font, metrics = fonts.header, fonts.header_metrics
        line = QRectF(rect.left(), rect.bottom() - metrics.height() - 4, rect.width(), 0)
        line.setHeight(metrics.height() + 2)
        muted = palette.color(QPalette.ColorRole.PlaceholderText)
        if option.state & _HOVERED:
            muted = palette.color(QPalette.ColorRole.Text)
        collapsed = bool(index.data(GroupedThreadModel.CollapsedRole))
        chevron = QRectF(line.left() + _H_PAD - 4, line.center().y() - 6, 12, 12)
        paint_chevron(painter, chevron, muted, expanded=not collapsed)
        text_rect = line.adjusted(_H_PAD + 12, 0, -_H_PAD, 0)
        label = metrics.elidedText(
            str(index.data(Qt.ItemDataRole.DisplayRole) or ""),
            Qt.TextElideMode.ElideRight,
            int(text_rect.width()),
        )
        painter.setFont(font)
        painter.setPen(muted)
        painter.drawText(text_rect, _LEFT, label)

    def _paint_thread(
        self, painter: QPainter, option: QStyleOptionViewItem, row: ThreadRow
    ) -> None:
        palette = option.palette
        rect = self._row_rect(QRectF(option.rect))
        state = option.state
        selected = bool(state & _SELECTED)
        hovered = bool(state & _HOVERED)
        checked = row.checked
        if (selected and checked is None) or hovered or checked:
            fill = palette.color(QPalette.ColorRole.Highlight)
            if not (selected and checked is None) and not checked:
                fill = QColor(palette.color(QPalette.ColorRole.Text))
                fill.setAlpha(18)  # a faint wash of the text colour works on any background
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 8, 8)
        on_fill = (selected and checked is None) or bool(checked)
        text_role = QPalette.ColorRole.HighlightedText if on_fill else QPalette.ColorRole.Text
        text_color = palette.color(text_role)
        left = rect.left() + _H_PAD
        if checked is not None:
            box = QRectF(left - 2, rect.center().y() - _CHECK / 2, _CHECK, _CHECK)
            accent = palette.color(QPalette.ColorRole.Accent)
            paint_check(painter, box, checked=bool(checked), accent=accent, border=text_color)
            left += _CHECK + 6
        if row.color:
            paint_dot(painter, QPointF(left + 3, rect.center().y()), 3.5, QColor(row.color))
            left += 13
        right = self._paint_trailing(painter, option, row, rect, hovered and checked is None)
        title_rect = QRectF(left, rect.top(), max(0.0, right - left - 8), rect.height())
        metrics = self._fonts(option.font).title_metrics
        elided = metrics.elidedText(row.title, Qt.TextElideMode.ElideRight, int(title_rect.width()))
        painter.setFont(option.font)
        painter.setPen(text_color)
        painter.drawText(title_rect, _LEFT, elided)

    def _paint_trailing(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        row: ThreadRow,
        rect: QRectF,
        hovered: bool,
    ) -> float:
        """Paint the spinner, the pin button or the relative time at the right;
        return where it starts."""
        palette = option.palette
        if row.running:
            size = 12.0
            box = QRectF(rect.right() - _H_PAD - size, rect.center().y() - size / 2, size, size)
            pen = QPen(palette.color(QPalette.ColorRole.Accent), 2.0)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawArc(box, -self.spinner_phase * 16, 270 * 16)
            return box.left()
        pinned = row.pinned
        batch = row.checked is not None
        if self.show_pin_button and not batch and (hovered or pinned):
            box = self.pin_rect(QRectF(option.rect))
            on_fill = bool(option.state & _SELECTED)
            role = QPalette.ColorRole.HighlightedText if on_fill else QPalette.ColorRole.Text
            color = palette.color(role)
            if not pinned:
                color.setAlpha(170)
            paint_pin(painter, box.adjusted(1, 1, -1, -1), color, filled=pinned)
            return box.left()
        return self._paint_time(painter, option, row, rect)

    def _paint_time(
        self, painter: QPainter, option: QStyleOptionViewItem, row: ThreadRow, rect: QRectF
    ) -> float:
        stamp = relative_time(row.updated or "")
        if not stamp:
            return rect.right() - _H_PAD
        fonts = self._fonts(option.font)
        font, metrics = fonts.time, fonts.time_metrics
        width = metrics.horizontalAdvance(stamp)
        box = QRectF(rect.right() - _H_PAD - width, rect.top(), width, rect.height())
        painter.setFont(font)
        selected = bool(option.state & _SELECTED)
        checked = row.checked
        on_fill = (selected and checked is None) or bool(checked)
        muted_role = (
            QPalette.ColorRole.HighlightedText if on_fill else QPalette.ColorRole.PlaceholderText
        )
        painter.setPen(option.palette.color(muted_role))
        painter.drawText(box, _RIGHT, stamp)
        return box.left()

    # ---- inline rename -----------------------------------------------------------------
    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        editor = QLineEdit(parent)
        editor.setObjectName("RenameEditor")
        editor.setMaxLength(RENAME_LIMIT)
        editor.setFrame(True)
        return editor

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        if isinstance(editor, QLineEdit):
            editor.setText(str(index.data(Qt.ItemDataRole.EditRole) or ""))
            editor.selectAll()

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:
        if isinstance(editor, QLineEdit):
            model.setData(index, editor.text(), Qt.ItemDataRole.EditRole)

    def updateEditorGeometry(
        self, editor: QWidget, option: QStyleOptionViewItem, index: _Index
    ) -> None:
        editor.setGeometry(option.rect.adjusted(6, 3, -6, -3))
