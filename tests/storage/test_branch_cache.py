"""``BranchCache``: a thread's active branch is read once while nothing is
written, and read again after any write — by this connection (a new message,
an edit, another leaf) or by another one (a second process on the same file).
Observed with SQLite's own statement trace on a real database file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mira_desktop.storage import messages_repo
from mira_desktop.storage.branch_cache import BranchCache
from mira_desktop.storage.connection import Database
from mira_desktop.storage.database import DB_FILENAME, ensure_default_workspace, open_database

from .raw_rows import insert_message, insert_thread


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = open_database(tmp_path)
    yield database
    database.close()


def _thread(db: Database, length: int) -> tuple[str, list[str]]:
    thread_id = insert_thread(db.conn, ensure_default_workspace(db))
    ids: list[str] = []
    for n in range(length):
        role = "user" if n % 2 == 0 else "assistant"
        ids.append(
            insert_message(
                db.conn, thread_id, f"m{n}", parent_id=ids[-1] if ids else None, role=role
            )
        )
    db.conn.execute("UPDATE threads SET active_leaf_id = ? WHERE id = ?", [ids[-1], thread_id])
    db.conn.commit()
    return thread_id, ids


def _message_reads(db: Database) -> list[str]:
    """Every statement that reads the messages table, from now on."""
    reads: list[str] = []
    db.conn.set_trace_callback(
        lambda sql: reads.append(sql) if "FROM messages" in sql and "SELECT" in sql else None
    )
    return reads


def test_a_second_read_with_nothing_written_is_not_read_again(db: Database) -> None:
    thread_id, ids = _thread(db, 6)
    cache = BranchCache()
    reads = _message_reads(db)
    first = cache.active_branch(db, thread_id)
    assert [m.id for m in first] == ids and reads
    reads.clear()
    second = cache.active_branch(db, thread_id)
    assert second == first and second is not first
    assert reads == []
    second.append(first[0])  # a caller's list is its own
    assert len(cache.active_branch(db, thread_id)) == 6


def test_a_write_on_this_connection_reads_again(db: Database) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    cache.active_branch(db, thread_id)
    extra = insert_message(db.conn, thread_id, "new", parent_id=ids[-1])
    db.conn.execute("UPDATE threads SET active_leaf_id = ? WHERE id = ?", [extra, thread_id])
    db.conn.commit()
    assert [m.id for m in cache.active_branch(db, thread_id)] == [*ids, extra]
    db.conn.execute("UPDATE messages SET text = 'edited' WHERE id = ?", [ids[0]])
    db.conn.commit()
    assert cache.active_branch(db, thread_id)[0].text == "edited"
    assert cache.active_branch(db, thread_id) == messages_repo.active_branch(db, thread_id)


def test_a_write_by_another_connection_reads_again(db: Database, tmp_path: Path) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    assert cache.active_branch(db, thread_id)[1].text == "m1"
    other = sqlite3.connect(str(tmp_path / DB_FILENAME))
    try:
        other.execute("UPDATE messages SET text = 'from the CLI' WHERE id = ?", [ids[1]])
        other.commit()
    finally:
        other.close()
    assert cache.active_branch(db, thread_id)[1].text == "from the CLI"


def test_only_a_few_threads_are_kept(db: Database) -> None:
    threads = [_thread(db, 2)[0] for _ in range(5)]
    cache = BranchCache(size=2)
    reads = _message_reads(db)
    for thread_id in threads:
        cache.active_branch(db, thread_id)
    reads.clear()
    cache.active_branch(db, threads[-1])  # kept
    assert reads == []
    cache.active_branch(db, threads[0])  # dropped long ago: read
    assert reads
