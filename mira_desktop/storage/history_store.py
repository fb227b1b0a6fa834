"""``HistoryStore``: the async face of history management, workspaces and search
for the services. It shares the one ``DatabaseWorker`` (and so the one
connection and thread) with :class:`~mira_desktop.storage.store.Store`; every
method runs its SQL there and returns core value types."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.history import HistoryCounts, ThreadView
from ..core.models import Thread, Workspace
from . import history_repo as history
from . import thread_pages
from . import workspaces_repo as workspaces
from .connection import Database
from .worker import DatabaseWorker

if TYPE_CHECKING:  # search's value types and SQL load on the first search
    from ..core.search import SearchCandidate, SearchFilters

log = logging.getLogger(__name__)


class HistoryStore:
    def __init__(self, worker: DatabaseWorker) -> None:
        self.worker = worker
        self._floors: dict[tuple[str, int, int], int] = {}

    # views and counts
    async def list_threads(
        self,
        offset: int = 0,
        limit: int = 100,
        workspace_id: str | None = None,
        view: ThreadView = ThreadView.ACTIVE,
    ) -> list[Thread]:
        return await self.worker.run(history.list_threads, offset, limit, workspace_id, view)

    async def list_threads_after(
        self,
        after: Thread | None,
        limit: int = 100,
        workspace_id: str | None = None,
        view: ThreadView = ThreadView.ACTIVE,
    ) -> list[Thread]:
        return await self.worker.run(
            thread_pages.list_threads_after, after, limit, workspace_id, view
        )

    async def count_threads(
        self, workspace_id: str | None = None, view: ThreadView = ThreadView.ACTIVE
    ) -> int:
        return await self.worker.run(history.count_threads, workspace_id, view)

    async def outside_change_mark(self) -> int:
        """``PRAGMA data_version``: moves when another connection — the CLI, a
        second window — commits to the database, never for this one's writes."""
        return await self.worker.run(
            lambda db: int(db.execute("PRAGMA data_version").fetchone()[0])
        )

    async def counts(self, workspace_id: str | None = None) -> HistoryCounts:
        return await self.worker.run(history.counts, workspace_id)

    # pins, archive, titles
    async def pin(self, thread_id: str) -> Thread:
        return await self.worker.run(history.pin, thread_id)

    async def unpin(self, thread_id: str) -> Thread:
        return await self.worker.run(history.unpin, thread_id)

    async def reorder_pins(self, ordered_ids: Sequence[str]) -> list[Thread]:
        return await self.worker.run(history.reorder_pins, list(ordered_ids))

    async def pinned_threads(self, limit: int = 9, workspace_id: str | None = None) -> list[Thread]:
        return await self.worker.run(history.pinned_threads, limit, workspace_id)

    async def set_archived(self, thread_id: str, archived: bool) -> Thread:
        return await self.worker.run(history.set_archived, thread_id, archived)

    async def rename(self, thread_id: str, title: str) -> Thread:
        return await self.worker.run(history.rename, thread_id, title)

    async def set_auto_title(self, thread_id: str, title: str) -> bool:
        return await self.worker.run(history.set_auto_title, thread_id, title)

    async def title_source(self, thread_id: str) -> str:
        return await self.worker.run(history.title_source, thread_id)

    # trash
    async def trash(self, thread_ids: Sequence[str], when: str) -> int:
        return await self.worker.run(history.trash, list(thread_ids), when)

    async def restore(self, thread_id: str) -> Thread:
        return await self.worker.run(history.restore, thread_id)

    async def purge(self, thread_id: str, *, force: bool = False) -> list[str]:
        return await self.worker.run(history.purge, thread_id, force=force)

    async def purge_trashed(self, before: str | None = None) -> tuple[int, list[str]]:
        return await self.worker.run(history.purge_trashed, before)

    async def purge_undone(self, before: str) -> tuple[int, list[str]]:
        return await self.worker.run(history.purge_undone, before)

    # workspaces
    async def get_workspace(self, workspace_id: str) -> Workspace:
        return await self.worker.run(workspaces.get_workspace, workspace_id)

    async def find_workspace(self, name_or_id: str) -> Workspace | None:
        return await self.worker.run(workspaces.find_workspace, name_or_id)

    async def create_workspace(self, name: str, color: str, root_dir: str | None) -> Workspace:
        return await self.worker.run(workspaces.create_workspace, name, color, root_dir)

    async def update_workspace(self, workspace_id: str, **fields: Any) -> Workspace:
        return await self.worker.run(workspaces.update_workspace, workspace_id, **fields)

    async def workspace_thread_count(self, workspace_id: str) -> int:
        return await self.worker.run(workspaces.workspace_thread_count, workspace_id)

    async def delete_workspace(self, workspace_id: str, when: str) -> int:
        return await self.worker.run(workspaces.delete_workspace, workspace_id, when)

    async def move_threads(self, thread_ids: Sequence[str], workspace_id: str) -> int:
        return await self.worker.run(workspaces.move_threads, list(thread_ids), workspace_id)

    # search
    async def search(
        self,
        terms: Sequence[str],
        filters: SearchFilters,
        *,
        window: int,
        scan_rows: int,
        shown: int | None = None,
        per_thread: int | None = None,
    ) -> tuple[list[SearchCandidate], list[SearchCandidate]]:
        """(title candidates, message candidates), in one trip to the database;
        ``shown``: the most hits the search shows; ``per_thread``: the most
        message candidates of one thread (``search_sql.candidates``)."""
        return await self.worker.run(
            self._search, list(terms), filters, window, scan_rows, shown, per_thread
        )

    def _search(
        self,
        db: Database,
        terms: list[str],
        filters: SearchFilters,
        window: int,
        scan_rows: int,
        shown: int | None,
        per_thread: int | None,
    ) -> tuple[list[SearchCandidate], list[SearchCandidate]]:
        from . import search_sql as search

        floor = self._since_floor(db, filters.since) if filters.since else 0
        return search.candidates(
            db,
            terms,
            filters,
            window=window,
            scan_rows=scan_rows,
            floor=floor,
            shown=shown,
            per_thread=per_thread,
        )

    def _since_floor(self, db: Database, since: str) -> int:
        """``search_sql.since_floor``, remembered until the database changes (a
        dialog searching as the user types computes it once). Runs on the
        database thread, like every use of ``_floors``."""
        version = db.execute("PRAGMA data_version").fetchone()[0]
        key = (since, db.conn.total_changes, version)
        floor = self._floors.get(key)
        if floor is None:
            from . import search_sql as search

            floor = search.since_floor(db, since)
            self._floors = {key: floor}
        return floor
