"""The database thread: one worker thread owns the SQLite connection, and every
repository call runs there. Async callers ``await worker.run(fn, ...)``; the Qt
thread (where qasync runs our coroutines) therefore never waits on SQLite.

``fn`` receives the ``Database`` as its first argument. Calls run in
submission order, one at a time, so repositories need no locking of their own.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ..core.errors import StorageError
from .connection import Database
from .database import DB_FILENAME, damaged_error, is_damage, open_database

if TYPE_CHECKING:
    from .salvage import SalvageReport

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


class DatabaseWorker:
    """Owns the connection of one data folder on a dedicated thread."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._db: Database | None = None
        self._thread_id: int | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mira-db")
        # Open (and migrate) on the worker thread itself, and surface errors here.
        try:
            self._executor.submit(self._open).result()
        except BaseException:
            self._executor.shutdown(wait=True)
            raise

    def _open(self) -> None:
        self._thread_id = threading.get_ident()
        self._db = open_database(self.data_dir)

    def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        assert self._db is not None
        try:
            return fn(self._db, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            # damage found by a read (a page of a table, not the header): said
            # as such, with what to do, instead of SQLite's bare words
            if is_damage(exc):
                raise damaged_error(self.data_dir / DB_FILENAME, exc) from exc
            raise
        except StorageError as exc:  # a write's (``database.write``)
            if not exc.damaged and exc.__cause__ is not None and is_damage(exc.__cause__):
                raise damaged_error(self.data_dir / DB_FILENAME, exc.__cause__) from exc
            raise

    async def salvage(self) -> SalvageReport:
        """Swap a damaged database for a salvaged one (``storage/salvage.py``):
        on the database thread, between two calls, so the services go on."""
        from .salvage import salvage_database

        def swap() -> SalvageReport:
            if self._db is not None:
                self._db.close()
                self._db = None
            try:
                return salvage_database(self.data_dir)
            finally:
                self._db = open_database(self.data_dir)

        return await asyncio.wrap_future(self._executor.submit(swap))

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``fn(db, *args, **kwargs)`` on the database thread and await it."""
        future: Future[T] = self._executor.submit(self._call, fn, *args, **kwargs)
        return await asyncio.wrap_future(future)

    def run_sync(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Blocking variant for start-up code and scripts (never from the Qt thread
        while the window is up)."""
        if threading.get_ident() == self._thread_id:
            return self._call(fn, *args, **kwargs)
        return self._executor.submit(self._call, fn, *args, **kwargs).result()

    def close(self) -> None:
        def _close() -> None:
            if self._db is not None:
                try:
                    # Bounded: without a limit SQLite 3.40 may re-analyse a whole
                    # million-row table on every quit (an empty partial index
                    # looks stale to it).
                    self._db.conn.execute("PRAGMA analysis_limit = 400")
                    self._db.conn.execute("PRAGMA optimize")
                except sqlite3.Error as exc:
                    # Upkeep only (the planner's statistics): a full disk or a
                    # read-only folder must not turn quitting into an error.
                    log.warning("skipped the database's upkeep on closing: %s", exc)
                finally:
                    self._db.conn.close()
                self._db = None

        try:
            self._executor.submit(_close).result()
        finally:
            self._executor.shutdown(wait=True)
