"""SQL of the synthetic data generator (``mira-desktop dev seed``, the
benchmarks): threads and messages written as raw rows, many thousands per
transaction, through the one database worker.

Rows are plain tuples in the column order of :data:`THREAD_COLUMNS` and
:data:`MESSAGE_COLUMNS` (cheaper than dataclasses at a million rows). The
schema's own triggers keep the FTS5 indexes in step, so a seeded file is
exactly what the app would have written; nothing here touches the planner's
statistics (``search_sql.py`` relies on there being none)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from .connection import Database
from .database import write
from .worker import DatabaseWorker

log = logging.getLogger(__name__)

#: (id, title, workspace_id, active_leaf_id, created_at, updated_at)
THREAD_COLUMNS = ("id", "title", "workspace_id", "active_leaf_id", "created_at", "updated_at")
#: (id, thread_id, parent_id, role, text, model, provider, completion_tokens,
#: created_at, updated_at)
MESSAGE_COLUMNS = (
    "id",
    "thread_id",
    "parent_id",
    "role",
    "text",
    "model",
    "provider",
    "completion_tokens",
    "created_at",
    "updated_at",
)

Row = Sequence[Any]


def _insert_sql(table: str, columns: Sequence[str]) -> str:
    marks = ", ".join("?" for _ in columns)
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"


_THREADS_SQL = _insert_sql("threads", THREAD_COLUMNS)
_MESSAGES_SQL = _insert_sql("messages", MESSAGE_COLUMNS)


def insert_batch(db: Database, threads: Sequence[Row], messages: Sequence[Row]) -> int:
    """Insert threads and their messages in one write transaction; returns the
    number of messages written."""
    with write(db) as conn:
        conn.executemany(_THREADS_SQL, threads)
        conn.executemany(_MESSAGES_SQL, messages)
    return len(messages)


def default_workspace_id(db: Database) -> str:
    return str(db.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()[0])


def counts(db: Database) -> tuple[int, int]:
    """(threads, messages) in the file, trash included."""
    threads = db.execute("SELECT COUNT(*) FROM threads").fetchone()[0]
    messages = db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    return int(threads), int(messages)


def checkpoint(db: Database) -> None:
    """Fold the WAL into the main file after a big load (smaller, faster opens)."""
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class SeedStore:
    """The async face of this module on the database worker."""

    def __init__(self, worker: DatabaseWorker) -> None:
        self.worker = worker

    async def insert_batch(self, threads: Sequence[Row], messages: Sequence[Row]) -> int:
        return await self.worker.run(insert_batch, threads, messages)

    async def default_workspace_id(self) -> str:
        return await self.worker.run(default_workspace_id)

    async def counts(self) -> tuple[int, int]:
        return await self.worker.run(counts)

    async def checkpoint(self) -> None:
        await self.worker.run(checkpoint)
