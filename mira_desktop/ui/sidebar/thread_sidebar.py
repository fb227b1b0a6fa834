"""The left sidebar (PRODUCT.md §8): "New chat", the search button (Ctrl+K),
the workspace selector, the view switcher (Chats / Archived / Trash) with batch
mode, and the lazy list of threads grouped by date.

Emits intents only — ``thread_selected(id)``, ``new_thread_requested()``,
``pin_requested``, ``rename_requested``, ``trash_requested``, ``batch_requested``…
— which the window's history actions carry out through the services; results
come back through the source :class:`ThreadListModel` (``model()``), which the
window also updates live. ``select_thread(id)`` highlights a row without
emitting, and the highlight follows its thread when rows move. Ctrl+1…9 ask
for the n-th pinned thread. While any thread streams in the background a timer
advances the delegate's spinner; it stops when nothing runs."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QDate,
    QEvent,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.models import Workspace
from mira_desktop.ui.sidebar.grouped_model import GroupedThreadModel, Grouping
from mira_desktop.ui.sidebar.row_painting import magnifier_icon
from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel
from mira_desktop.ui.sidebar.thread_list_view import ThreadListView
from mira_desktop.ui.sidebar.view_bar import ViewBar
from mira_desktop.ui.sidebar.workspace_list import WorkspaceListWidget
from mira_desktop.ui.widgets.popup_menus import one_at_a_time

if TYPE_CHECKING:
    from mira_desktop.ui.sidebar.thread_menu import ThreadMenu

log = logging.getLogger(__name__)

SPINNER_INTERVAL_MS = 80
DAY_CHECK_MS = 5 * 60 * 1000


class ThreadSidebar(QWidget):
    thread_selected = Signal(str)
    new_thread_requested = Signal()
    search_requested = Signal()
    view_changed = Signal(str)
    workspace_changed = Signal(object)  # workspace id, or None for all
    pin_requested = Signal(str, bool)  # thread id, pin (False: unpin)
    pins_reorder_requested = Signal(list)
    rename_requested = Signal(str, str)
    archive_requested = Signal(list, bool)  # thread ids, archive (False: unarchive)
    trash_requested = Signal(list)
    restore_requested = Signal(list)
    purge_requested = Signal(list)
    empty_trash_requested = Signal()
    move_requested = Signal(list, str)  # thread ids, workspace id
    batch_requested = Signal(str, object, str)  # action, BatchSelection, argument
    group_toggled = Signal(str, bool)
    pinned_shortcut = Signal(int)  # Ctrl+n: the n-th pinned thread (1-based)
    workspace_create_requested = Signal()
    workspace_edit_requested = Signal(str)
    workspace_delete_requested = Signal(str)
    #: Hook for batch export (export as ZIP): the export UI connects here and adds
    #: its action to the batch bar; nothing emits it until then.
    batch_export_requested = Signal(list)
    #: Hook for other parts of the window to add actions to a thread's right-click
    #: menu (the export UI): emitted with the thread id and the menu before it shows.
    thread_menu_opening = Signal(str, object)  # thread id, QMenu

    def __init__(
        self,
        model: ThreadListModel,
        parent: QWidget | None = None,
        *,
        grouping: Grouping | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("Sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._model = model
        self.grouped = GroupedThreadModel(model, grouping, self)
        self._selected_id: str | None = None
        self.thread_menu: ThreadMenu | None = None
        self._build_widgets()
        self._build_layout()
        self._build_shortcuts()
        self._spinner = QTimer(self)
        self._spinner.setInterval(SPINNER_INTERVAL_MS)
        self._spinner.timeout.connect(self._advance_spinner)
        self._day = QDate.currentDate()
        self._day_timer = QTimer(self)
        self._day_timer.setInterval(DAY_CHECK_MS)
        self._day_timer.timeout.connect(self._check_day)
        self._day_timer.start()
        self._connect()
        self._retranslate()
        self._update_empty()

    def _build_widgets(self) -> None:
        self.new_chat_button = QPushButton(self)
        self.new_chat_button.setObjectName("NewChatButton")
        self.new_chat_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.search_button = QPushButton(self)
        self.search_button.setObjectName("SearchButton")
        self.search_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self._paint_icons()
        self.workspace_label = QLabel(self)
        self.workspace_label.setObjectName("SidebarSectionLabel")
        self.workspace_label.setProperty("muted", True)
        self.add_workspace_button = QToolButton(self)
        self.add_workspace_button.setObjectName("NewWorkspaceButton")
        self.add_workspace_button.setText("+")
        self.add_workspace_button.setAutoRaise(True)
        self.workspace_list = WorkspaceListWidget(self)
        self.view_bar = ViewBar(self)
        self.list_view = ThreadListView(self.grouped, self)
        self.delegate = self.list_view.delegate
        self.empty_label = QLabel(self)
        self.empty_label.setProperty("muted", True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)

    def _build_layout(self) -> None:
        section = QHBoxLayout()
        section.setContentsMargins(6, 4, 0, 0)
        section.addWidget(self.workspace_label)
        section.addStretch(1)
        section.addWidget(self.add_workspace_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 10, 8, 8)
        layout.setSpacing(6)
        layout.addWidget(self.new_chat_button)
        layout.addWidget(self.search_button)
        layout.addLayout(section)
        layout.addWidget(self.workspace_list)
        layout.addWidget(self.view_bar)
        layout.addWidget(self.list_view, 1)
        layout.addWidget(self.empty_label, 1)

    def _build_shortcuts(self) -> None:
        self.search_action = QAction(self)
        self.search_action.setObjectName("SearchAction")
        self.search_action.setShortcut(QKeySequence("Ctrl+K"))
        self.search_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.search_action.triggered.connect(self.search_requested)
        self.addAction(self.search_action)
        self.pinned_actions: list[QAction] = []
        for n in range(1, 10):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{n}"))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _checked=False, n=n: self.pinned_shortcut.emit(n))
            self.addAction(action)
            self.pinned_actions.append(action)

    def _connect(self) -> None:
        self.new_chat_button.clicked.connect(self.new_thread_requested)
        self.search_button.clicked.connect(self.search_requested)
        self.add_workspace_button.clicked.connect(self.workspace_create_requested)
        ws = self.workspace_list
        ws.workspace_chosen.connect(self._on_workspace_chosen)
        ws.threads_dropped.connect(self.move_requested)
        ws.edit_requested.connect(self.workspace_edit_requested)
        ws.delete_requested.connect(self.workspace_delete_requested)
        bar = self.view_bar
        bar.view_chosen.connect(self._on_view_chosen)
        bar.batch_toggled.connect(self.set_batch_mode)
        bar.select_all_toggled.connect(self.grouped.set_all_checked)
        bar.batch_action.connect(self._on_batch_action)
        bar.empty_trash_clicked.connect(self.empty_trash_requested)
        view = self.list_view
        view.selectionModel().currentChanged.connect(self._on_current_changed)
        view.customContextMenuRequested.connect(self._show_thread_menu)
        view.pin_clicked.connect(self.pin_requested)
        view.delete_pressed.connect(self._on_delete_pressed)
        g = self.grouped
        g.group_toggled.connect(self.group_toggled)
        g.rename_requested.connect(self.rename_requested)
        g.pins_reorder_requested.connect(self.pins_reorder_requested)
        g.checked_changed.connect(self._on_checked_changed)
        g.structure_changed.connect(self._restore_selection)
        g.structure_changed.connect(self._update_empty)
        g.rowsInserted.connect(self._update_empty)
        self._model.dataChanged.connect(self._update_spinner)
        self._model.loading_changed.connect(self._update_empty)
        self._model.sync_started.connect(view.hold_top_row)
        self._model.synced.connect(view.restore_top_row)

    # ---- public API ---------------------------------------------------------
    def model(self) -> ThreadListModel:
        """The source list (live updates go here); the view shows ``grouped``."""
        return self._model

    def view(self) -> str:
        return self.view_bar.view()

    def workspace_id(self) -> str | None:
        return self.workspace_list.current_workspace_id()

    def workspaces(self) -> list[Workspace]:
        return self.workspace_list.workspaces()

    def set_workspaces(self, workspaces: list[Workspace]) -> None:
        self.workspace_list.set_workspaces(workspaces)
        self.view_bar.set_workspaces(workspaces)
        self._update_colors()

    def set_grouping(self, grouping: Grouping | None) -> None:
        self.grouped.set_grouping(grouping)

    def set_collapsed_groups(self, keys: set[str]) -> None:
        self.grouped.set_collapsed(keys)

    def select_thread(self, thread_id: str | None) -> None:
        """Highlight ``thread_id`` (or nothing) without emitting ``thread_selected``.

        The window calls ``select_thread(None)`` for a new chat, so that clicking the
        previously open thread opens it again."""
        self._selected_id = thread_id
        self.list_view.show_selected(thread_id, scroll=True)

    def selected_thread_id(self) -> str | None:
        index = self.list_view.currentIndex()
        value = index.data(ThreadListModel.IdRole) if index.isValid() else None
        return str(value) if value else None

    def start_rename(self, thread_id: str) -> bool:
        """Open the inline editor on a thread's title (Enter saves, Esc cancels)."""
        row = self.grouped.row_of(thread_id)
        if row < 0:
            return False
        index = self.grouped.index(row)
        self.list_view.scrollTo(index)
        self.list_view.edit(index)
        return True

    def set_batch_mode(self, on: bool) -> None:
        self.view_bar.set_batch(on)
        self.grouped.set_batch_mode(on)
        mode = QAbstractItemView.SelectionMode
        self.list_view.setSelectionMode(mode.NoSelection if on else mode.SingleSelection)
        if not on:
            self.list_view.show_selected(self._selected_id, scroll=False)

    def thread_menu_for(self, thread_id: str) -> ThreadMenu | None:
        """Build the right-click menu of a listed thread (shown by right-click)."""
        row = self.grouped.row_of(thread_id)
        thread = self.grouped.thread_at(row)
        if thread is None:
            return None
        from mira_desktop.ui.sidebar.thread_menu import ThreadMenu  # on the first right-click

        menu = ThreadMenu(thread, self.view(), self.workspaces(), self)
        menu.chosen.connect(lambda name, arg: self._on_menu_action(name, arg, thread.id))
        self.thread_menu = one_at_a_time(self.thread_menu, menu)  # not one per right-click
        self.thread_menu_opening.emit(thread.id, menu)
        return menu

    # ---- selection ------------------------------------------------------------
    def _restore_selection(self) -> None:
        """Rows moved (a thread went to the top, a page arrived): keep the open
        thread highlighted without scrolling."""
        if self.grouped.batch_mode():
            return
        selected = self.list_view.selectionModel().hasSelection()
        if self.selected_thread_id() != self._selected_id or not selected:
            self.list_view.show_selected(self._selected_id, scroll=False)

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self.list_view.silent or self.grouped.is_changing() or self.grouped.batch_mode():
            return
        if not current.isValid() or current.data(GroupedThreadModel.KindRole) != "thread":
            return
        self._selected_id = str(current.data(ThreadListModel.IdRole))
        self.thread_selected.emit(self._selected_id)

    # ---- menus and actions ---------------------------------------------------------
    def _show_thread_menu(self, pos: QPoint) -> None:
        index = self.list_view.indexAt(pos)
        thread_id = index.data(ThreadListModel.IdRole) if index.isValid() else None
        if not thread_id or self.grouped.batch_mode():
            return
        menu = self.thread_menu_for(str(thread_id))
        if menu is not None:
            menu.popup(self.list_view.viewport().mapToGlobal(pos))

    def _on_menu_action(self, name: str, arg: str, thread_id: str) -> None:
        ids = [thread_id]
        if name == "rename":
            self.start_rename(thread_id)
        elif name in ("pin", "unpin"):
            self.pin_requested.emit(thread_id, name == "pin")
        elif name == "move":
            self.move_requested.emit(ids, arg)
        elif name in ("archive", "unarchive"):
            self.archive_requested.emit(ids, name == "archive")
        elif name == "trash":
            self.trash_requested.emit(ids)
        elif name == "restore":
            self.restore_requested.emit(ids)
        elif name == "purge":
            self.purge_requested.emit(ids)

    def _on_delete_pressed(self) -> None:
        trash = self.view() == "trash"
        if self.grouped.batch_mode():
            if self.grouped.checked_count():
                action = "purge" if trash else "trash"
                self.batch_requested.emit(action, self.grouped.batch_selection(), "")
            return
        thread_id = self.selected_thread_id()
        if thread_id:
            (self.purge_requested if trash else self.trash_requested).emit([thread_id])

    def _on_batch_action(self, name: str, arg: str) -> None:
        if self.grouped.checked_count():
            self.batch_requested.emit(name, self.grouped.batch_selection(), arg)

    def _on_checked_changed(self) -> None:
        self.view_bar.set_checked_count(self.grouped.checked_count(), self.grouped.all_checked())

    def _on_view_chosen(self, view: str) -> None:
        self.delegate.show_pin_button = view == "active"
        self.grouped.set_all_checked(False)
        self._update_empty()
        self.view_changed.emit(view)

    def _on_workspace_chosen(self, workspace_id: str | None) -> None:
        self._update_colors()
        self.grouped.set_all_checked(False)
        self.workspace_changed.emit(workspace_id)

    def _update_colors(self) -> None:
        """Colour dots tell workspaces apart in the "All" list only."""
        show = self.workspace_id() is None
        colors = {w.id: w.color for w in self.workspaces() if not w.is_default and w.color}
        self.grouped.set_workspace_colors(colors if show else {})

    # ---- housekeeping ----------------------------------------------------------------
    def _update_spinner(self, *_args: object) -> None:
        running = bool(self._model.running_ids())
        if running and not self._spinner.isActive():
            self._spinner.start()
        elif not running and self._spinner.isActive():
            self._spinner.stop()

    def _advance_spinner(self) -> None:
        self.delegate.spinner_phase = (self.delegate.spinner_phase + 30) % 360
        self.list_view.viewport().update()

    def _check_day(self) -> None:
        today = QDate.currentDate()
        if today != self._day:  # "Today" became "Yesterday"
            forward = today > self._day and today.year() == self._day.year()
            self._day = today
            if forward:  # only the threads of the last 30 days change group
                self.grouped.day_passed()
            else:  # the clock went back, or a new year: month labels change
                self.grouped.regroup()

    def _update_empty(self, *_args: object) -> None:
        empty = self.grouped.rowCount() == 0 and not self._model.is_loading()
        self.empty_label.setVisible(empty)
        self.list_view.setVisible(not empty)
        # nothing to empty (unless a workspace filter hides the rest of the trash)
        self.view_bar.empty_trash_button.setEnabled(not empty or self.workspace_id() is not None)
        self._retranslate_empty()

    def _retranslate_empty(self) -> None:
        view = self.view()
        if view == "trash":
            text = self.tr("The trash is empty.")
        elif view == "archived":
            text = self.tr("No archived conversations.")
        elif self.workspace_id() is not None:
            text = self.tr("No conversations in this workspace yet.")
        else:
            text = self.tr("No conversations yet.\nYour chats will appear here.")
        self.empty_label.setText(text)

    def _retranslate(self) -> None:
        self.new_chat_button.setText(self.tr("+  New chat"))
        self.new_chat_button.setToolTip(self.tr("Start a new conversation (Ctrl+N)"))
        self.search_button.setText(self.tr("Search chats…"))
        self.search_button.setToolTip(self.tr("Search all conversations (Ctrl+K)"))
        self.workspace_label.setText(self.tr("Workspaces"))
        self.add_workspace_button.setToolTip(self.tr("New workspace…"))
        self.search_action.setText(self.tr("Search conversations"))
        self.list_view.setAccessibleName(self.tr("Conversations"))  # what screen readers say
        self._retranslate_empty()

    def _paint_icons(self) -> None:
        color = self.palette().color(QPalette.ColorRole.PlaceholderText)
        self.search_button.setIcon(magnifier_icon(color))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        elif event.type() == QEvent.Type.PaletteChange:
            self._paint_icons()
