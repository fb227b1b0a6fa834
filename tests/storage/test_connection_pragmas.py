"""The pragmas of the app's connection (``storage/database.py``, ``connect``):
a page cache large enough for a search's pages, no memory map."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mira_desktop.storage.database import CACHE_SIZE_KIB, connect, open_database
from mira_desktop.storage.worker import DatabaseWorker


def test_connect_sets_a_32_mib_page_cache_and_keeps_wal(tmp_path: Path) -> None:
    db = connect(tmp_path / "x.sqlite3")
    try:
        assert CACHE_SIZE_KIB == 32 * 1024
        assert db.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_SIZE_KIB
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert db.execute("PRAGMA mmap_size").fetchone()[0] == 0
    finally:
        db.close()


def test_the_database_thread_connection_has_the_page_cache(tmp_path: Path) -> None:
    worker = DatabaseWorker(tmp_path)
    try:
        size = worker.run_sync(lambda db: db.execute("PRAGMA cache_size").fetchone()[0])
        assert size == -CACHE_SIZE_KIB
    finally:
        worker.close()


def test_another_plain_connection_keeps_sqlite_defaults(tmp_path: Path) -> None:
    """The pragma is per connection: the file itself is not changed (the CLI,
    other tools and the benchmark's floor read it with their own settings)."""
    open_database(tmp_path).close()
    default = sqlite3.connect(":memory:")
    plain = sqlite3.connect(str(tmp_path / "mira.sqlite3"))
    try:
        size = plain.execute("PRAGMA cache_size").fetchone()[0]
        assert size == default.execute("PRAGMA cache_size").fetchone()[0] != -CACHE_SIZE_KIB
    finally:
        plain.close()
        default.close()
