"""``HistoryActions``: the sidebar's history management (PRODUCT.md §8) carried
out through ``HistoryService`` and ``WorkspaceService`` — which list the sidebar
shows (view and workspace, grouped by the history's clock), collapsed groups
remembered, pin / unpin / reorder, Ctrl+1…9, inline rename, archive, the trash
(delete, restore, delete forever and empty, both after confirmation), moving
threads between workspaces, batch mode (a "select all" covers pages not loaded
yet) and the automatic title after the first answer of a new chat.

Every service call runs in the window's task runner (off the paint path);
results come back to the sidebar's source model, the header and the presenter.
Workspace editing lives in ``workspace_actions.py``, search in
``search_actions.py``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from ...core.history import ThreadGroup
from ...core.models import Thread
from ..sidebar.batch import BatchSelection
from ..sidebar.grouped_model import Grouping
from ..sidebar.thread_filter import ThreadFilter
from .confirm import ask_then
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...core.events import RunStarted
    from ..controllers.chat_controller import ChatController
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

#: user setting: name new chats with a short model call after their first answer
AUTO_TITLE_KEY = "chat.auto_title"
PAGE = 500
#: beyond this many threads a batch reloads the list instead of editing rows
RELOAD_ABOVE = 50


class HistoryActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        chat: ChatController,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._drafts: set[str] = set()
        #: saved chats whose first answer was stopped or failed: not named yet
        self._untitled: set[str] = set()
        self._chat = chat
        self._connect_sidebar()
        chat.run_started.connect(self._on_run_started)
        chat.run_finished.connect(self._on_run_finished)

    def _connect_sidebar(self) -> None:
        s = self._w.sidebar
        s.view_changed.connect(self.apply_filter)
        s.workspace_changed.connect(self.apply_filter)
        s.group_toggled.connect(self._save_group)
        s.pin_requested.connect(self.set_pinned)
        s.pins_reorder_requested.connect(self.reorder_pins)
        s.pinned_shortcut.connect(self.open_pinned)
        s.rename_requested.connect(self.rename)
        s.archive_requested.connect(self.set_archived)
        s.trash_requested.connect(self.trash)
        s.restore_requested.connect(self.restore)
        s.purge_requested.connect(self.purge)
        s.empty_trash_requested.connect(self.empty_trash)
        s.move_requested.connect(self.move)
        s.batch_requested.connect(self.batch)

    def _run(self, coro: Coroutine[Any, Any, Any], key: str | None = None) -> None:
        self._tasks.start(coro, key=key)

    # ---- the list shown ------------------------------------------------------------
    async def start(self) -> None:
        """Before the first page: collapsed groups, workspaces, the grouping."""
        sidebar = self._w.sidebar
        sidebar.set_collapsed_groups(await self._services.history.collapsed_groups())
        sidebar.set_workspaces(await self._services.workspaces.list_workspaces())
        sidebar.set_grouping(self._grouping(sidebar.view()))

    def _grouping(self, view: str) -> Grouping | None:
        if view == "trash":  # listed by deletion time: date groups would repeat
            return None
        history, use_pins = self._services.history, view == "active"

        def group(thread: Thread) -> ThreadGroup:
            return history.group_of(thread, use_pins=use_pins)

        return group

    def apply_filter(self, *_args: object) -> None:
        """Show the sidebar's chosen view of its chosen workspace."""
        sidebar, history = self._w.sidebar, self._services.history
        view, workspace = sidebar.view(), sidebar.workspace_id()

        async def page(after: Thread | None, limit: int) -> list[Thread]:
            return await history.list_threads_after(after, limit, workspace, view)

        async def count() -> int:
            return await history.count_threads(workspace, view)

        sidebar.set_grouping(self._grouping(view))
        sidebar.model().set_source(page, count, ThreadFilter(view, workspace))

    def reload(self) -> None:
        self._w.sidebar.model().refresh()

    def _save_group(self, key: str, collapsed: bool) -> None:
        self._run(self._services.history.set_group_collapsed(key, collapsed))

    # ---- pins ------------------------------------------------------------------------
    def set_pinned(self, thread_id: str, pin: bool) -> None:
        history = self._services.history
        self._run(self._show(history.pin(thread_id) if pin else history.unpin(thread_id)))

    async def _show(self, call: Coroutine[Any, Any, Thread]) -> Thread:
        thread = await call
        self._put(thread)
        return thread

    def _put(self, thread: Thread) -> None:
        """A changed thread: its row (or its leaving the list) and the presenter."""
        self._w.sidebar.model().upsert_thread(thread)
        if thread.id == self._p.key and not self._p.is_draft:
            self._p.current_thread = thread

    def reorder_pins(self, ordered_ids: list[str]) -> None:
        async def reorder() -> None:
            pinned = await self._services.history.reorder_pins(ordered_ids)
            self._w.sidebar.model().set_pins(pinned)

        self._run(reorder(), key="reorder-pins")

    def open_pinned(self, n: int) -> None:
        """Ctrl+n: open the n-th pinned thread of the list shown."""

        async def open_nth() -> None:
            workspace = self._w.sidebar.workspace_id()
            pinned = await self._services.history.pinned_threads(9, workspace)
            if 0 < n <= len(pinned):
                self.open_thread(pinned[n - 1].id)

        self._run(open_nth())

    def open_thread(self, thread_id: str) -> None:
        self._p.open_thread(thread_id)
        self._w.sidebar.select_thread(thread_id)

    # ---- titles and archive ------------------------------------------------------------
    def rename(self, thread_id: str, title: str) -> None:
        async def rename() -> None:
            thread = await self._show(self._services.history.rename(thread_id, title))
            if thread.id == self._p.key:
                self._w.header.set_title(thread.title)

        self._run(rename())

    def set_archived(self, thread_ids: list[str], archive: bool) -> None:
        history = self._services.history
        call = history.archive if archive else history.unarchive
        self._run(self._each(thread_ids, call))

    async def _each(
        self, thread_ids: list[str], call: Callable[[str], Coroutine[Any, Any, Thread]]
    ) -> None:
        many = len(thread_ids) > RELOAD_ABOVE
        for thread_id in thread_ids:
            thread = await call(thread_id)
            if not many:
                self._put(thread)
            elif thread.id == self._p.key and not self._p.is_draft:
                self._p.current_thread = thread
        if many:
            self.reload()

    # ---- trash -------------------------------------------------------------------------
    def trash(self, thread_ids: list[str]) -> None:
        async def trash() -> None:
            moved = await self._services.history.trash_many(thread_ids)
            self._forget(thread_ids)
            self._w.notice_bar.show_notice(
                self.tr("{n} conversation(s) moved to the trash.").format(n=moved),
                action=self.tr("Undo"),
                on_action=lambda: self.restore(thread_ids),
            )

        self._run(trash())

    def restore(self, thread_ids: list[str]) -> None:
        self._run(self._each(thread_ids, self._services.history.restore))

    def purge(self, thread_ids: list[str]) -> None:
        """Delete threads of the trash for good, after confirmation."""
        if not thread_ids:
            return
        text = self.tr("Delete {n} conversation(s) forever? This cannot be undone.").format(
            n=len(thread_ids)
        )
        ask_then(
            self._w, self.tr("Delete forever"), text, lambda: self._run(self._purge(thread_ids))
        )

    async def _purge(self, thread_ids: list[str]) -> None:
        for thread_id in thread_ids:
            await self._services.history.purge(thread_id)
        self._chat.forget_unsaved(thread_ids)
        self._forget(thread_ids)

    def empty_trash(self) -> None:
        async def ask() -> None:
            count = await self._services.history.count_threads(None, "trash")
            if count == 0:
                return
            text = self.tr("Empty the trash? {n} conversation(s) will be deleted forever.").format(
                n=count
            )
            ask_then(self._w, self.tr("Empty trash"), text, lambda: self._run(self._empty()))

        self._run(ask())

    async def _empty(self) -> None:
        purged = await self._services.history.empty_trash()
        log.info("emptied the trash: %d thread(s)", purged)
        await self._forget_kept_answers_of_deleted_threads()
        self.reload()

    async def _forget_kept_answers_of_deleted_threads(self) -> None:
        """Kept answers (a full disk) of threads now deleted forever have
        nowhere to go: they no longer count for the quit question."""
        threads = self._chat.unsaved_threads()
        gone = [t for t in threads if await self._services.threads.find_thread(t) is None]
        if gone:
            self._chat.forget_unsaved(gone)

    def _forget(self, thread_ids: list[str]) -> None:
        """Threads that left this list for good (trash, purge): drop their rows;
        the open one gives way to a new chat."""
        model = self._w.sidebar.model()
        if len(thread_ids) > RELOAD_ABOVE:
            self.reload()
        else:
            for thread_id in thread_ids:
                model.remove_thread(thread_id)
        if not self._p.is_draft and self._p.key in thread_ids:
            self._p.new_chat()

    # ---- workspaces and batch mode -----------------------------------------------------
    def move(self, thread_ids: list[str], workspace_id: str) -> None:
        async def move() -> None:
            await self._services.workspaces.move_threads(thread_ids, workspace_id)
            await self._each(thread_ids, self._services.threads.get_thread)

        self._run(move())

    def batch(self, action: str, selection: BatchSelection, arg: str) -> None:
        """An action of the batch bar on the ticked threads."""
        handlers: dict[str, Callable[[list[str]], None]] = {
            "archive": lambda ids: self.set_archived(ids, True),
            "unarchive": lambda ids: self.set_archived(ids, False),
            "trash": self.trash,
            "restore": self.restore,
            "purge": self.purge,
            "move": lambda ids: self.move(ids, arg),
            "export": self._w.sidebar.batch_export_requested.emit,
        }
        handler = handlers.get(action)
        if handler is None:
            log.warning("unknown batch action %r", action)
            return

        async def resolve() -> None:
            ids = await self._resolve(selection)
            self._w.sidebar.grouped.set_all_checked(False)
            if ids:
                handler(ids)

        self._run(resolve())

    async def _resolve(self, selection: BatchSelection) -> list[str]:
        """The thread ids of a batch selection; "all" pages through the view."""
        if not selection.everything:
            return list(selection.ids)
        sidebar, history = self._w.sidebar, self._services.history
        view, workspace = sidebar.view(), sidebar.workspace_id()
        excluded, ids, after = set(selection.excluded), [], None
        while True:  # by key: a thread trashed meanwhile elsewhere skips none
            page = await history.list_threads_after(after, PAGE, workspace, view)
            ids += [t.id for t in page if t.id not in excluded]
            if len(page) < PAGE:
                return ids
            after = page[-1]

    # ---- automatic titles ------------------------------------------------------------------
    def _on_run_started(self, key: str, event: RunStarted) -> None:
        if not event.persisted and event.kind in ("send", "redirect"):
            self._drafts.add(key)

    def _on_run_finished(self, key: str, event: object) -> None:
        """A new chat's first completed answer names it. A first answer that
        was stopped or failed after the chat was saved leaves it to the next
        answer that completes (a retry, a regeneration, the next question)."""
        thread_id = getattr(event, "thread_id", None)
        first = key in self._drafts
        self._drafts.discard(key)
        if not thread_id or not (first or thread_id in self._untitled):
            return
        from ...core.events import Completed  # loaded by the run that finished

        if isinstance(event, Completed):
            self._untitled.discard(thread_id)
            self._run(self._auto_title(thread_id))
        else:
            self._untitled.add(thread_id)

    async def _auto_title(self, thread_id: str) -> None:
        if not await self._services.settings.get(AUTO_TITLE_KEY, True):
            return
        title = await self._services.titles.generate_title(thread_id)
        await self._p.refresh_sidebar_row(thread_id)
        if self._p.key == thread_id and not self._p.is_draft:
            self._w.header.set_title(title)
