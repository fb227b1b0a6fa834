"""``WorkspaceListWidget``: the workspace selector at the top of the sidebar —
"All", then Mira BASE, then the others, each with its colour dot. Choosing one
filters the thread list; dropping dragged threads on an entry moves them there;
the right-click menu edits a workspace (name, colour, root folder) or deletes it
(Mira BASE cannot be deleted: the action is disabled and says why).

Emits intents only; the window's workspace actions call the service."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QIcon,
    QPainter,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QMenu, QWidget

from mira_desktop.core.models import Workspace
from mira_desktop.ui.sidebar.batch import decode_ids
from mira_desktop.ui.widgets.popup_menus import one_at_a_time

log = logging.getLogger(__name__)

MAX_VISIBLE_ROWS = 5
_ID_ROLE = Qt.ItemDataRole.UserRole + 1
_DEFAULT_ROLE = Qt.ItemDataRole.UserRole + 2
_COLOR_ROLE = Qt.ItemDataRole.UserRole + 3


def color_dot_icon(color: str | None, size: int = 12) -> QIcon:
    """A filled dot of ``color``; a ring when None (the "All" entry)."""
    ratio = 2
    pixmap = QPixmap(size * ratio, size * ratio)
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    box = QRectF(2, 2, size - 4, size - 4)
    if color:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(color))
    else:
        painter.setPen(QPen(QColor("#8a8e94"), 1.4))
        painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawEllipse(box)
    painter.end()
    return QIcon(pixmap)


class WorkspaceListWidget(QListWidget):
    """Signals: ``workspace_chosen(id | None)``, ``threads_dropped(ids, workspace id)``,
    ``edit_requested(id)``, ``delete_requested(id)``."""

    workspace_chosen = Signal(object)
    threads_dropped = Signal(list, str)
    edit_requested = Signal(str)
    delete_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WorkspaceList")
        self.setIconSize(QSize(12, 12))
        self.setFrameShape(QListWidget.Shape.NoFrame)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setUniformItemSizes(True)
        self.setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._show_menu)
        self._workspaces: list[Workspace] = []
        self._silent = False
        self._drop_item: QListWidgetItem | None = None
        self.menu: QMenu | None = None
        self.currentItemChanged.connect(self._on_current)
        self.set_workspaces([])

    # ---- contents ------------------------------------------------------------------
    def set_workspaces(self, workspaces: list[Workspace]) -> None:
        """Show ``workspaces`` (Mira BASE first, as the service lists them),
        keeping the current choice when it still exists (else "All")."""
        current = self.current_workspace_id()
        self._workspaces = list(workspaces)
        self._silent = True
        try:
            self.clear()
            self.addItem(self._item(None, self.tr("All chats"), None, False))
            for workspace in workspaces:
                color = workspace.color or "#64748b"
                self.addItem(self._item(workspace.id, workspace.name, color, workspace.is_default))
            known = {w.id for w in workspaces}
            self._select(current if current in known else None)
        finally:
            self._silent = False
        self._fit_height()
        if current is not None and current not in {w.id for w in workspaces}:
            self.workspace_chosen.emit(None)

    def _item(
        self, workspace_id: str | None, name: str, color: str | None, default: bool
    ) -> QListWidgetItem:
        item = QListWidgetItem(color_dot_icon(color), name)
        item.setData(_ID_ROLE, workspace_id)
        item.setData(_DEFAULT_ROLE, default)
        item.setData(_COLOR_ROLE, color)
        item.setToolTip(name)
        item.setSizeHint(QSize(0, self._row_height()))
        return item

    def workspaces(self) -> list[Workspace]:
        return list(self._workspaces)

    def current_workspace_id(self) -> str | None:
        item = self.currentItem()
        value = item.data(_ID_ROLE) if item is not None else None
        return str(value) if value else None

    def select_workspace(self, workspace_id: str | None) -> None:
        """Choose a workspace as the user would (emits ``workspace_chosen``)."""
        self._select(workspace_id)

    def _select(self, workspace_id: str | None) -> None:
        for row in range(self.count()):
            if self.item(row).data(_ID_ROLE) == workspace_id:
                self.setCurrentRow(row)
                return

    def row_of(self, workspace_id: str | None) -> int:
        for row in range(self.count()):
            if self.item(row).data(_ID_ROLE) == workspace_id:
                return row
        return -1

    def _on_current(self, current: QListWidgetItem | None, _previous: object) -> None:
        if not self._silent and current is not None:
            value = current.data(_ID_ROLE)
            self.workspace_chosen.emit(str(value) if value else None)

    def _fit_height(self) -> None:
        rows = max(1, min(self.count(), MAX_VISIBLE_ROWS))
        self.setFixedHeight(rows * self._row_height() + 2 * self.frameWidth())

    def _row_height(self) -> int:
        return max(self.fontMetrics().height() + 10, 26)

    # ---- right-click menu ----------------------------------------------------------------
    def workspace_menu(self, workspace_id: str) -> QMenu:
        """The menu of one workspace (built, not shown: ``_show_menu`` pops it up)."""
        row = self.row_of(workspace_id)
        default = bool(self.item(row).data(_DEFAULT_ROLE)) if row >= 0 else False
        menu = QMenu(self)
        menu.setObjectName("WorkspaceMenu")
        menu.setToolTipsVisible(True)
        edit = menu.addAction(self.tr("Edit workspace…"))
        edit.setObjectName("edit")
        edit.triggered.connect(lambda: self.edit_requested.emit(workspace_id))
        delete = menu.addAction(self.tr("Delete workspace…"))
        delete.setObjectName("delete")
        delete.triggered.connect(lambda: self.delete_requested.emit(workspace_id))
        if default:
            delete.setEnabled(False)
            delete.setToolTip(self.tr("Mira BASE is the default workspace; it cannot be deleted."))
        return menu

    def _show_menu(self, pos: QPoint) -> None:
        item = self.itemAt(pos)
        workspace_id = item.data(_ID_ROLE) if item is not None else None
        if not workspace_id:
            return
        self.menu = one_at_a_time(self.menu, self.workspace_menu(str(workspace_id)))
        self.menu.popup(self.viewport().mapToGlobal(pos))

    # ---- dropping threads on a workspace ---------------------------------------------
    def _drop_target(self, event: QDragMoveEvent | QDropEvent) -> QListWidgetItem | None:
        if not decode_ids(event.mimeData()):
            return None
        item = self.itemAt(event.position().toPoint())
        return item if item is not None and item.data(_ID_ROLE) else None

    def _mark_drop(self, item: QListWidgetItem | None) -> None:
        if self._drop_item is not None and self._drop_item is not item:
            self._drop_item.setBackground(QBrush())
        self._drop_item = item
        if item is not None:
            color = QColor(self.palette().color(self.palette().ColorRole.Highlight))
            item.setBackground(QBrush(color))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if decode_ids(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        target = self._drop_target(event)
        self._mark_drop(target)
        if target is None:
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.MoveAction)
        event.accept()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._mark_drop(None)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        target = self._drop_target(event)
        self._mark_drop(None)
        if target is None:
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.MoveAction)
        event.accept()
        self.threads_dropped.emit(decode_ids(event.mimeData()), str(target.data(_ID_ROLE)))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self.count():
            self.item(0).setText(self.tr("All chats"))
