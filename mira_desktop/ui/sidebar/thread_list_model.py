"""The sidebar's list of threads as a lazy Qt item model.

Rows arrive a page at a time from an injected coroutine ``fetch_page(offset, limit)``;
``canFetchMore``/``fetchMore`` let the view ask for the next page only when its last
row comes into sight, so 100,000 threads cost one page of work at start-up. Fetching
runs as an asyncio task on the running (qasync) loop: the model never blocks the Qt
thread, and a page that arrives after ``refresh()`` is dropped (generation counter).
Nothing is fetched before the first ``refresh()``: the window sets the saved
view and workspace first, and a page of the default list fetched meanwhile
would only be thrown away.

Live changes (a new thread, an answer moving a thread to the top, a pin, an
archive or deletion, a background stream) are applied in place with
``upsert_thread``/``set_pins``/``remove_thread``/``set_running``: a
:class:`ThreadFilter` says whether a thread still belongs and where the database
would list it. The server-side offset is adjusted so later pages neither skip
nor repeat rows (any repeat is dropped by id as well); a thread that now sorts
after the loaded rows waits for its page. ``set_source`` switches the list to
another view or workspace.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QByteArray,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from mira_desktop.core.models import Thread
from mira_desktop.ui.plain_text import plain_tooltip
from mira_desktop.ui.sidebar.thread_filter import ThreadFilter

log = logging.getLogger(__name__)

PageFetcher = Callable[[int, int], Awaitable[list[Thread]]]
CountFetcher = Callable[[], Awaitable[int]]
_Index = QModelIndex | QPersistentModelIndex

DEFAULT_PAGE_SIZE = 100


class ThreadListModel(QAbstractListModel):
    """Lazy, paged list of threads (pinned first, as the fetcher orders them)."""

    IdRole = Qt.ItemDataRole.UserRole + 1
    TitleRole = Qt.ItemDataRole.UserRole + 2
    UpdatedRole = Qt.ItemDataRole.UserRole + 3
    PinnedRole = Qt.ItemDataRole.UserRole + 4
    RunningRole = Qt.ItemDataRole.UserRole + 5
    ThreadRole = Qt.ItemDataRole.UserRole + 6

    loading_changed = Signal(bool)
    load_failed = Signal(str)
    page_loaded = Signal(int, int)  # offset, number of rows received

    def __init__(
        self,
        fetch_page: PageFetcher,
        count_threads: CountFetcher,
        *,
        page_size: int = DEFAULT_PAGE_SIZE,
        thread_filter: ThreadFilter | None = None,
        parent: Any = None,
    ) -> None:
        super().__init__(parent)
        self._fetch_page = fetch_page
        self._count_threads = count_threads
        self._filter = thread_filter or ThreadFilter()
        self._page_size = page_size
        self._rows: list[Thread] = []
        self._ids: set[str] = set()
        self._running: set[str] = set()
        self._total: int | None = None
        self._server_offset = 0
        self._exhausted = False
        self._failed = False
        self._generation = 0  # 0: not started; the first refresh() loads
        self._changes = 0  # live changes applied (see _load_total)
        self._closed = False  # aclose() ran: no new loads
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
        return self._total is None or self._server_offset < self._total

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

    def thread_filter(self) -> ThreadFilter:
        return self._filter

    def threads(self) -> list[Thread]:
        """The loaded rows in order (read-only: a view of the model's own list)."""
        return self._rows

    def is_running(self, thread_id: str) -> bool:
        return thread_id in self._running

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
        self._server_offset = 0
        self._exhausted = False
        self._failed = False
        self.endResetModel()
        self._start(self._load_first(self._generation))

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
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def wait_idle(self) -> None:
        """Wait until no page is being fetched (for controllers and tests)."""
        while self._pending is not None:
            await asyncio.shield(self._pending)

    def thread_at(self, row: int) -> Thread | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, thread_id: str) -> int:
        for row, thread in enumerate(self._rows):
            if thread.id == thread_id:
                return row
        return -1

    def upsert_thread(self, thread: Thread) -> None:
        """Insert or update ``thread`` where the list's order puts it; a thread the
        filter no longer accepts leaves the list."""
        self._changes += 1
        if not self._filter.accepts(thread):
            self.remove_thread(thread.id)
            return
        row = self.row_of(thread.id)
        if row >= 0 and self._same_place(self._rows[row], thread):
            self._rows[row] = thread
            index = self.index(row)
            self.dataChanged.emit(index, index)
            return
        target = self._position(thread, skip=row)
        if target is None:  # it sorts after the loaded rows: its page brings it
            if row >= 0:
                self._take(row)
                self._server_offset = max(0, self._server_offset - 1)
            elif self._total is not None:
                self._total += 1
            return
        if row >= 0:
            self._move(row, target, thread)
            return
        self._insert(target, thread)
        self._server_offset += 1  # the server now lists it before our offset
        if self._total is not None:
            self._total += 1

    def set_pins(self, pinned: list[Thread]) -> None:
        """Replace the block of pinned threads at the top (after a reorder)."""
        pinned = [t for t in pinned if t.pinned and self._filter.accepts(t)]
        count = 0
        while count < len(self._rows) and self._rows[count].pinned:
            count += 1
        if count:
            self.beginRemoveRows(QModelIndex(), 0, count - 1)
            removed = self._rows[:count]
            del self._rows[:count]
            self._ids.difference_update(t.id for t in removed)
            self.endRemoveRows()
        for thread in pinned:  # a pin that was further down moves up
            if thread.id in self._ids:
                self._take(self.row_of(thread.id))
                count += 1
        if pinned:
            self.beginInsertRows(QModelIndex(), 0, len(pinned) - 1)
            self._rows[0:0] = pinned
            self._ids.update(t.id for t in pinned)
            self.endInsertRows()
        self._server_offset = max(0, self._server_offset + len(pinned) - count)

    def remove_thread(self, thread_id: str) -> None:
        self._changes += 1
        row = self.row_of(thread_id)
        self._running.discard(thread_id)
        if row < 0:
            return
        self._take(row)
        self._server_offset = max(0, self._server_offset - 1)
        if self._total is not None:
            self._total = max(0, self._total - 1)

    def set_running(self, thread_id: str, running: bool) -> None:
        """Mark a thread as streaming in the background (the delegate shows a spinner)."""
        if running:
            self._running.add(thread_id)
        else:
            self._running.discard(thread_id)
        row = self.row_of(thread_id)
        if row >= 0:
            index = self.index(row)
            self.dataChanged.emit(index, index, [self.RunningRole])

    def running_ids(self) -> frozenset[str]:
        return frozenset(self._running)

    # ---- loading ------------------------------------------------------------
    def _start(self, coro: Awaitable[None]) -> None:
        if self._closed:  # the window is closing: nothing more to load
            coro.close()  # type: ignore[attr-defined]
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            log.error("ThreadListModel needs a running asyncio (qasync) loop to fetch threads")
            coro.close()  # type: ignore[attr-defined]
            return
        self._pending = self._spawn(coro)
        self.loading_changed.emit(True)

    def _spawn(self, coro: Awaitable[None]) -> asyncio.Task[None]:
        """Run ``coro`` as a task of the model, its failure reported (a page
        load when ``_start`` makes it the pending one; else beside the pages,
        not waited for by ``wait_idle``)."""
        task = asyncio.get_running_loop().create_task(coro)  # type: ignore[arg-type]
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
        offset = self._server_offset
        threads = await self._fetch_page(offset, self._page_size)
        if generation != self._generation:
            return  # refreshed meanwhile: this page belongs to an old list
        # Not loading any more *before* the rows land: the view asks canFetchMore()
        # right after the insert, while this task has not formally finished yet.
        self._clear_pending()
        self._server_offset = offset + len(threads)
        if len(threads) < self._page_size:
            self._exhausted = True
        fresh = [t for t in threads if t.id not in self._ids]
        if fresh:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(fresh) - 1)
            self._rows.extend(fresh)
            self._ids.update(t.id for t in fresh)
            self.endInsertRows()
        log.debug("threads page at %d: %d rows (%d new)", offset, len(threads), len(fresh))
        self.page_loaded.emit(offset, len(threads))

    def _insert(self, row: int, thread: Thread) -> None:
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.insert(row, thread)
        self._ids.add(thread.id)
        self.endInsertRows()

    def _move(self, row: int, target: int, thread: Thread) -> None:
        """The thread of ``row``, updated, to ``target`` (a row of the list
        without it): one move, not a removal and an insertion, so the grouped
        model above rebuilds once."""
        if target == row:  # its place is where it is
            self._rows[row] = thread
            index = self.index(row)
            self.dataChanged.emit(index, index)
            return
        # Qt counts the destination in the rows before the move
        self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), target + (target > row))
        del self._rows[row]
        self._rows.insert(target, thread)
        self.endMoveRows()

    def _take(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        thread = self._rows.pop(row)
        self._ids.discard(thread.id)
        self.endRemoveRows()

    def _same_place(self, old: Thread, new: Thread) -> bool:
        return (old.updated_at, old.pinned, old.pin_order, old.deleted_at) == (
            new.updated_at,
            new.pinned,
            new.pin_order,
            new.deleted_at,
        )

    def _position(self, thread: Thread, skip: int = -1) -> int | None:
        """Row where ``thread`` belongs in the list without row ``skip`` (its
        own, when it is there); None when it sorts after every loaded row
        while more pages remain on the server."""
        for row, other in enumerate(self._rows):
            if row != skip and self._filter.before(thread, other):
                return row - (0 <= skip < row)
        loaded_all = self._exhausted or (
            self._total is not None and self._server_offset >= self._total
        )
        return len(self._rows) - (skip >= 0) if loaded_all else None
