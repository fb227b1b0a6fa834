"""``SuggestionPopup``: the small list that floats above the composer for the
``@`` file search and the ``/`` command menu.

It is a child of the window (not a separate top-level window), so it never
takes the keyboard away from the editor: the editor keeps typing, and the
popup's :meth:`handle_key` (called by an event filter on the editor) takes
↑/↓, Enter/Tab and Esc while it is open. A row is a title, an optional muted
detail and a payload; a popup can also show one muted line instead of rows
("No files match"). ``chosen(payload)`` fires on Enter, Tab or a click,
``dismissed`` on Esc."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from .composer_edit import PopupKeyFilter

log = logging.getLogger(__name__)

__all__ = ["MAX_VISIBLE_ROWS", "PopupKeyFilter", "Suggestion", "SuggestionPopup"]

_PAYLOAD = Qt.ItemDataRole.UserRole + 1
_DETAIL = Qt.ItemDataRole.UserRole + 2
MAX_VISIBLE_ROWS = 8
_POPUP_QSS = """
#{name} {{
    background: palette(base); border: 1px solid palette(mid); border-radius: 10px;
}}
#{name} QListWidget {{ border: none; background: transparent; }}
#{name} QListWidget::item {{ padding: 5px 8px; border-radius: 6px; }}
"""


class _RowDelegate(QStyledItemDelegate):
    """A row: the title, then its detail in the muted colour (elided first)."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        detail = str(index.data(_DETAIL) or "")
        title = opt.text
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect = opt.rect.adjusted(10, 0, -10, 0)
        metrics = opt.fontMetrics
        painter.save()
        painter.setPen(opt.palette.color(QPalette.ColorRole.Text))
        title_w = min(metrics.horizontalAdvance(title), rect.width())
        flags = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        painter.drawText(
            rect, flags, metrics.elidedText(title, Qt.TextElideMode.ElideMiddle, rect.width())
        )
        room = rect.width() - title_w - 16
        if detail and room > 24:
            painter.setPen(opt.palette.color(QPalette.ColorRole.PlaceholderText))
            detail_rect = rect.adjusted(title_w + 16, 0, 0, 0)
            text = metrics.elidedText(detail, Qt.TextElideMode.ElideLeft, room)
            painter.drawText(detail_rect, flags, text)
        painter.restore()


@dataclass(frozen=True, slots=True)
class Suggestion:
    title: str
    detail: str = ""
    payload: str = ""


class SuggestionPopup(QFrame):
    """A floating list anchored above a widget. Signal: ``chosen(str)``."""

    chosen = Signal(str)
    closed = Signal()
    dismissed = Signal()  # the user closed it (Esc)

    def __init__(self, anchor: QWidget, object_name: str) -> None:
        super().__init__(anchor.window())
        self._anchor = anchor
        self.setObjectName(object_name)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setStyleSheet(_POPUP_QSS.format(name=object_name))
        self.title = QLabel(self)
        self.title.setObjectName("SuggestionTitle")
        self.title.setProperty("muted", True)
        self.list = QListWidget(self)
        self.list.setObjectName("SuggestionList")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setUniformItemSizes(True)
        self.list.setItemDelegate(_RowDelegate(self.list))
        self.list.itemClicked.connect(self._on_clicked)
        self.message = QLabel(self)
        self.message.setObjectName("SuggestionMessage")
        self.message.setProperty("muted", True)
        self.message.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.list)
        layout.addWidget(self.message)
        self._layout = layout  # typed: ``self.layout()`` is ``QLayout | None``
        self.hide()

    # ---- content -------------------------------------------------------------------
    def show_items(self, title: str, items: list[Suggestion]) -> None:
        """Show ``items`` (the first selected); no items closes the popup."""
        if not items:
            self.close_popup()
            return
        self.list.clear()
        for item in items:
            row = QListWidgetItem(item.title, self.list)
            row.setData(_PAYLOAD, item.payload)
            row.setData(_DETAIL, item.detail)
            row.setToolTip(item.detail or item.title)
        self.list.setCurrentRow(0)
        self.title.setText(title)
        self.title.setVisible(bool(title))
        self.list.show()
        self.message.hide()
        self._open()

    def show_message(self, title: str, text: str) -> None:
        """Show one muted line instead of rows (a hint, "no matches")."""
        self.list.clear()
        self.list.hide()
        self.title.setText(title)
        self.title.setVisible(bool(title))
        self.message.setText(text)
        self.message.show()
        self._open()

    def items(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def payloads(self) -> list[str]:
        return [str(self.list.item(i).data(_PAYLOAD)) for i in range(self.list.count())]

    def current_payload(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None or self.list.isHidden() else str(item.data(_PAYLOAD))

    def is_open(self) -> bool:
        return self.isVisible()

    def close_popup(self) -> None:
        if not self.isHidden():
            self.hide()
            self.closed.emit()

    # ---- keyboard --------------------------------------------------------------------
    def handle_key(self, event: QKeyEvent) -> bool:
        """Keys the popup takes while open; True when ``event`` was used."""
        if not self.is_open():
            return False
        key = event.key()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            self._move(-1 if key == Qt.Key.Key_Up else 1)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                return False
            payload = self.current_payload()
            if payload is None:
                self.close_popup()
                return key == Qt.Key.Key_Tab
            self._choose(payload)
            return True
        if key == Qt.Key.Key_Escape:
            self.close_popup()
            self.dismissed.emit()
            return True
        return False

    def _move(self, step: int) -> None:
        count = self.list.count()
        if count and not self.list.isHidden():
            self.list.setCurrentRow((self.list.currentRow() + step) % count)

    def _on_clicked(self, item: QListWidgetItem) -> None:
        self._choose(str(item.data(_PAYLOAD)))

    def _choose(self, payload: str) -> None:
        self.close_popup()
        self.chosen.emit(payload)

    # ---- geometry --------------------------------------------------------------------
    def _open(self) -> None:
        window = self._anchor.window()
        if self.parentWidget() is not window:
            self.setParent(window)
        self._place()
        self.show()
        self.raise_()

    def _place(self) -> None:
        if not self.list.isHidden():
            rows = min(max(self.list.count(), 1), MAX_VISIBLE_ROWS)
            row_h = max(self.list.sizeHintForRow(0), self.fontMetrics().height() + 8)
            self.list.setFixedHeight(rows * row_h + 2 * self.list.frameWidth() + 2)
        width = min(max(self._anchor.width() - 24, 260), 560)
        parent = self.parentWidget()
        if parent is None:  # only ever made and opened as a child of the window
            return
        layout = self._layout
        height = layout.totalHeightForWidth(width) if layout.hasHeightForWidth() else -1
        height = max(height, layout.totalSizeHint().height())
        origin = self._anchor.mapTo(parent, QPoint(12, 0))
        self.setGeometry(origin.x(), max(4, origin.y() - height - 4), width, height)
