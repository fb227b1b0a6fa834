"""The sidebar's list of threads as a lazy Qt item model.

Rows arrive a page at a time from an injected coroutine ``fetch_page(after, limit)``
(the page after the last thread of the page before, as it was listed: paging by
key, so a row another process removed never shifts the next page);
``canFetchMore``/``fetchMore`` let the view ask for the next page only when its last
row comes into sight, so 100,000 threads cost one page of work at start-up. Fetching
runs as an asyncio task on the running (qasync) loop: the model never blocks the Qt
thread, and a page that arrives after ``refresh()`` is dropped (generation counter).
Nothing is fetched before the first ``refresh()``: the window sets the saved
view and workspace first, and a page of the default list fetched meanwhile
would only be thrown away.

Live changes of this window's own writes are applied in place by the base,
:class:`~.live_rows.LiveThreadRows`; a thread they move up is not repeated by a
later page (pages start after the key; any repeat is dropped by id as well).
Changes made elsewhere (the CLI on the same data folder) come in through
``sync()``: the loaded span read again and applied as the rows that went, came,
moved or changed, so the selection and the rows in sight stay.
``set_source`` switches the list to another view or workspace.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from mira_desktop.core.models import Thread
from mira_desktop.ui.plain_text import plain_tooltip
from mira_desktop.ui.sidebar.live_rows import LiveThreadRows
from mira_desktop.ui.sidebar.thread_filter import ThreadFilter

log = logging.getLogger(__name__)

PageFetcher = Callable[[Thread | None, int], Awaitable[list[Thread]]]
CountFetcher = Callable[[], Awaitable[int]]
_Index = QModelIndex | QPersistentModelIndex

DEFAULT_PAGE_SIZE = 100


class ThreadListModel(LiveThreadRows):
    """Lazy, paged list of threads (pinned first, as the fetcher orders them)."""

    loading_changed = Signal(bool)
    load_failed = Signal(str)
    page_loaded = Signal(int, int)  # rows loaded before it, number of rows received
    sync_started = Signal()  # outside changes are about to be applied (see sync())
    synced = Signal()  # ... and were

    def __init__(
        self,
        fetch_page: PageFetcher,
        count_threads: CountFetcher,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
        thread_filter: ThreadFilter | None = None,
        parent: Any = None,
    ) -> None:
        super().__init__(thread_filter or ThreadFilter(), parent)
        self._fetch_page = fetch_page
        self._count_threads = count_threads
        self._page_size = page_size
        self._after: Thread | None = None  # the last row of the last page, as listed
        self._failed = False
        self._generation = 0  # 0: not started; the first refresh() loads
        self._closed = False  # aclose() ran: no new loads
        self._sync_wanted = False  # sync() asked while a page loaded
        self._pending: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- Qt model interface -------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        thread = self._rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, self.TitleRole):
            return thread.title or self.tr("New chat")
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(thread.title)
        values = {
            self.IdRole: thread.id,
            self.UpdatedRole: thread.updated_at,
            self.PinnedRole: thread.pinned,
            self.RunningRole: thread.id in self._running,
            self.ThreadRole: thread,
        }
        return values.get(role)

    def roleNames(self) -> dict[int, QByteArray]:
        names = dict(super().roleNames())
        for role, name in (
            (self.IdRole, b"id"),
            (self.TitleRole, b"title"),
            (self.UpdatedRole, b"updated"),
            (self.PinnedRole, b"pinned"),
            (self.RunningRole, b"running"),
        ):
            names[role] = QByteArray(name)
        return names

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        if parent.isValid() or self._pending is not None or self._failed or self._exhausted:
            return False
        if self._generation == 0:  # before the first refresh(): its source may change
            return False
        return self._total is None or len(self._rows) < self._total

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if not self.canFetchMore(parent):
            return
        self._start(self._load_page(self._generation))

    # ---- public API ---------------------------------------------------------
    def set_source(
        self, fetch_page: PageFetcher, count_threads: CountFetcher, thread_filter: ThreadFilter
    ) -> None:
        """List another view or workspace: new fetchers, then a fresh first page."""
        self._fetch_page = fetch_page
        self._count_threads = count_threads
        self._filter = thread_filter
        self.refresh()

    def refresh(self) -> None:
        """Forget every row and load again from the first page."""
        self._generation += 1
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        self.beginResetModel()
        self._rows.clear()
        self._ids.clear()
        self._total = None
        self._after = None
        self._exhausted = False
        self._failed = False
        self._sync_wanted = False
        self.endResetModel()
        self._start(self._load_first(self._generation))

    def sync(self) -> None:
        """Show what changed elsewhere (another process wrote to the database):
        the loaded span is read again and the difference applied — rows gone,
        new, moved or changed — between ``sync_started`` and ``synced``; then
        the count is asked again. Asked while a page loads, it follows it."""
        if self._generation == 0 or self._closed:
            return  # nothing shown yet: the first refresh() reads it all
        if self._pending is not None:
            self._sync_wanted = True
            return
        self._sync_wanted = False
        self._start(self._sync(self._generation))

    def total(self) -> int | None:
        """Number of threads on the server, when known."""
        return self._total

    def is_loading(self) -> bool:
        return self._pending is not None

    async def aclose(self) -> None:
        """Cancel what the model still loads and wait for it to end (the window
        closes before the database): a count asked just before is not left for
        a closed loop to drop unrun. Loads asked after it (a refresh an ending
        import asks for) are not started."""
        self._closed = True
        while self._tasks:  # a task ending as it is cancelled may start a count
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._tasks.difference_update(tasks)

    async def wait_idle(self) -> None:
        """Wait until no page is being fetched (for controllers and tests)."""
        while self._pending is not None:
            await asyncio.shield(self._pending)

    # ---- loading ------------------------------------------------------------
    def _start(self, coro: Coroutine[Any, Any, None]) -> None:
        if self._closed:  # the window is closing: nothing more to load
            coro.close()
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            log.error("ThreadListModel needs a running asyncio (qasync) loop to fetch threads")
            coro.close()
            return
        self._pending = self._spawn(coro)
        self.loading_changed.emit(True)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` as a task of the model, its failure reported (a page
        load when ``_start`` makes it the pending one; else beside the pages,
        not waited for by ``wait_idle``)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            # a step of a load run by a Qt event outside the loop (pytest-qt
            # processes events after a test's loop has stopped): the count
            # is dropped, not left unawaited for a later test to trip on
            coro.close()
            raise
        task = loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._on_task_done)
        return task

    def _clear_pending(self) -> None:
        if self._pending is not None:
            self._pending = None
            self.loading_changed.emit(False)

    def _on_task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task is self._pending:
            self._clear_pending()
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("loading threads failed: %s", error, exc_info=error)
            self._failed = True
            self.load_failed.emit(str(error))
        elif self._sync_wanted and self._pending is None:
            self.sync()

    async def _load_first(self, generation: int) -> None:
        """The first page, then the count in a task of its own: the rows are
        what the window shows first (``wait_idle`` returns once they are in),
        while counting 20,000 threads takes the database ~2.5 ms and only
        tells whether there is more to fetch."""
        await self._load_page(generation)
        if generation == self._generation and self._total is None and not self._closed:
            self._spawn(self._load_total(generation))

    async def _load_total(self, generation: int) -> None:
        """The count, unless a live change landed while it was asked (the
        database may have counted before or after it): then count again."""
        while generation == self._generation and self._total is None:
            changes = self._changes
            total = await self._count_threads()
            if generation == self._generation and changes == self._changes:
                self._total = total

    async def _load_page(self, generation: int) -> None:
        loaded = len(self._rows)
        threads = await self._fetch_page(self._after, self._page_size)
        if generation != self._generation:
            return  # refreshed meanwhile: this page belongs to an old list
        # Not loading any more *before* the rows land: the view asks canFetchMore()
        # right after the insert, while this task has not formally finished yet.
        self._clear_pending()
        if threads:
            self._after = threads[-1]
        if len(threads) < self._page_size:
            self._exhausted = True
        fresh = [t for t in threads if t.id not in self._ids]
        if fresh:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
            self._rows.extend(fresh)
            self._ids.update(t.id for t in fresh)
            self.endInsertRows()
        log.debug("threads page after %d rows: %d rows (%d new)", loaded, len(threads), len(fresh))
        self.page_loaded.emit(loaded, len(threads))

    async def _sync(self, generation: int) -> None:
        """``sync()``: the rows up to as many as are loaded, read again until no
        live change of this window landed during the read (the read may have
        been taken before or after its write), at most a few times."""
        for _attempt in range(3):
            changes, limit = self._changes, max(len(self._rows), self._page_size)
            threads = await self._fetch_page(None, limit)
            if generation != self._generation:
                return
            if changes == self._changes:
                break
        self._clear_pending()
        self.sync_started.emit()
        self._apply_rows(threads)
        self._after = threads[-1] if threads else None
        self._exhausted = len(threads) < limit
        self._failed = False
        self.synced.emit()
        self._total = None
        if not self._closed:
            self._spawn(self._load_total(generation))
