"""A damaged database, as a disk or a crash leaves it: a page of the messages
table overwritten with garbage, the file's header destroyed, the file cut
short. What can be read is saved into a new database; the damaged file is
kept in backups; a salvage that cannot finish changes nothing."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from mira_desktop.core.errors import StorageError
from mira_desktop.storage import salvage as salvage_module
from mira_desktop.storage.database import DB_FILENAME, open_database
from mira_desktop.storage.salvage import salvage_database
from mira_desktop.storage.seed_repo import insert_batch
from mira_desktop.storage.worker import DatabaseWorker

PAGE = 4096
THREADS, PER_THREAD = 20, 60


def seeded(data_dir: Path) -> Path:
    """A real database with 20 threads of 60 messages (each message's text
    names it: ``message 7-12 …``), closed and checkpointed."""
    db = open_database(data_dir)
    db.execute("PRAGMA secure_delete = ON")  # no stale copies of a cell in freed space
    workspace = db.execute("SELECT id FROM workspaces").fetchone()[0]
    now = "2026-11-30T10:00:00.000Z"
    threads, messages = [], []
    for t in range(THREADS):
        thread_id = f"thread-{t:02d}"
        parent = None
        for m in range(PER_THREAD):
            message_id = f"msg-{t:02d}-{m:02d}"
            text = f"message {t}-{m} " + "数据库 and words " * 20
            role = "user" if m % 2 == 0 else "assistant"
            messages.append((message_id, thread_id, parent, role, text, "m", "p", 0, now, now))
            parent = message_id
        threads.append((thread_id, f"Thread {t} 标题", workspace, parent, now, now))
    insert_batch(db, threads, messages)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return data_dir / DB_FILENAME


def garble_page_holding(path: Path, marker: str) -> None:
    """Overwrite the cell pointers of the messages table's leaf page that
    holds ``marker``'s row (its header's first 8 bytes kept: SQLite then reads
    made-up cells). The page is one of the table's live leaves (``dbstat``):
    a stale copy of a cell can linger in a page no longer in the tree."""
    conn = sqlite3.connect(path)
    try:
        leaves = [
            n
            for (n,) in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf'"
            )
        ]
    finally:
        conn.close()
    data = path.read_bytes()
    [page] = [n for n in leaves if marker.encode() in data[(n - 1) * PAGE : n * PAGE]]
    with path.open("r+b") as f:
        f.seek((page - 1) * PAGE + 8)
        f.write(b"\xff" * (PAGE - 8))


def rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_damaged_page_loses_only_its_rows(data_dir: Path) -> None:
    path = seeded(data_dir)
    garble_page_holding(path, "message 10-30 ")
    worker = DatabaseWorker(data_dir)  # the header is fine: it opens
    try:  # SQLite's check finds the page, in rows or, for some pages, by failing
        found = worker.run_sync(lambda db: [r[0] for r in db.execute("PRAGMA quick_check")])
    except StorageError as exc:
        assert exc.damaged and exc.message.startswith("The database")
    else:
        assert found != ["ok"]
    finally:
        worker.close()

    report = salvage_database(data_dir)

    assert report.readable and report.damaged_copy.exists()
    assert report.damaged_copy.parent == data_dir / "backups"
    assert rows(path, "PRAGMA integrity_check") == [("ok",)]
    texts = {t for (t,) in rows(path, "SELECT substr(text, 1, 16) FROM messages")}
    total = THREADS * PER_THREAD
    assert report.messages == len(texts)
    assert total - 20 <= len(texts) < total  # a page holds a few of them
    assert not any("message 10-30 " in t for t in texts)
    assert "message 0-0 " in " ".join(texts) and "message 19-59 " in " ".join(texts)
    assert report.threads == THREADS
    # the full-text index is rebuilt from the saved rows
    found = rows(path, "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH '数据库'")
    assert found == [(len(texts),)]
    # the new file is the app's: it opens, migrated, with its workspace
    db = open_database(data_dir)
    assert db.execute("SELECT COUNT(*) FROM workspaces WHERE is_default = 1").fetchone() == (1,)
    db.close()


def test_a_file_whose_header_is_destroyed_gives_an_empty_database(data_dir: Path) -> None:
    path = seeded(data_dir)
    (data_dir / "backups").mkdir(exist_ok=True)
    older = data_dir / "backups" / "mira-20261001T000000Z-before-v5.sqlite3"
    shutil.copy(path, older)
    with path.open("r+b") as f:
        f.write(b"\x13" * 200)
    with pytest.raises(StorageError) as caught:
        open_database(data_dir)
    assert caught.value.damaged and "doctor --fix" in caught.value.hint
    assert caught.value.message.startswith(f'The database "{path}" is damaged')

    report = salvage_database(data_dir)

    assert not report.readable and report.copied == {} and report.backups == [older]
    assert rows(path, "SELECT COUNT(*) FROM messages") == [(0,)]
    assert report.damaged_copy.read_bytes()[:200] == b"\x13" * 200  # kept as it was


def test_a_file_cut_short_keeps_what_it_holds(data_dir: Path) -> None:
    path = seeded(data_dir)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])

    report = salvage_database(data_dir)

    assert report.readable
    assert 0 < report.messages < THREADS * PER_THREAD
    assert rows(path, "PRAGMA integrity_check") == [("ok",)]


def test_a_salvage_that_cannot_finish_changes_nothing(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk half-way: the damaged file is put back where it was."""
    path = seeded(data_dir)
    garble_page_holding(path, "message 3-3 ")
    before = path.read_bytes()

    def full(*args: object) -> tuple[int, int]:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(salvage_module, "_copy_table", full)
    with pytest.raises(sqlite3.OperationalError):
        salvage_database(data_dir)
    assert path.read_bytes() == before
    assert not list((data_dir / "backups").glob("*damaged*"))
    assert not (data_dir / f"{DB_FILENAME}.salvage").exists()
