"""The SQLite file: layout, pragmas, migrations with backups, the default
workspace, foreign-key rules, the full-text index and start-up recovery."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from mira_desktop.core.errors import StorageError
from mira_desktop.core.ids import utc_now
from mira_desktop.storage import messages_repo
from mira_desktop.storage.database import (
    DB_FILENAME,
    migrate,
    open_database,
    schema_version,
    write,
)
from mira_desktop.storage.schema import MIGRATIONS
from mira_desktop.storage.worker import DatabaseWorker

from .raw_rows import insert_message, insert_thread

REPO = Path(__file__).resolve().parents[2]


def test_first_start_creates_layout_schema_and_default_workspace(data_dir: Path) -> None:
    db = open_database(data_dir)
    for sub in ("media", "backups", "logs"):
        assert (data_dir / sub).is_dir()
    assert (data_dir / DB_FILENAME).is_file()
    assert schema_version(db) == MIGRATIONS[-1][0]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    tables = set(db.table_names())
    for table in (
        "workspaces",
        "threads",
        "messages",
        "message_parts",
        "media",
        "roles",
        "knowledge_bases",
        "kb_documents",
        "kb_chunks",
        "agent_runs",
        "providers",
        "models",
        "settings",
        "messages_fts",
        "threads_fts",
    ):
        assert table in tables, table
    rows = list(db.query("SELECT name, is_default FROM workspaces"))
    assert rows == [{"name": "Mira BASE", "is_default": 1}]
    # No backup for a brand-new file: there was nothing to lose.
    assert list((data_dir / "backups").iterdir()) == []


def test_reopening_does_not_duplicate_the_default_workspace(data_dir: Path) -> None:
    open_database(data_dir).conn.close()
    db = open_database(data_dir)
    assert db.execute("SELECT COUNT(*) FROM workspaces").fetchone()[0] == 1


def test_default_workspace_cannot_be_deleted(data_dir: Path) -> None:
    db = open_database(data_dir)
    with pytest.raises(StorageError, match="Mira BASE"), write(db) as conn:
        conn.execute("DELETE FROM workspaces WHERE is_default = 1")
    assert db.execute("SELECT COUNT(*) FROM workspaces").fetchone()[0] == 1


def test_pending_migration_backs_up_first_and_runs_once(data_dir: Path) -> None:
    db = open_database(data_dir)
    ws = db.execute("SELECT id FROM workspaces").fetchone()[0]
    with write(db) as conn:
        insert_thread(conn, ws, title="keep me")
    extra = (*MIGRATIONS, (99, "test_column", "ALTER TABLE threads ADD COLUMN extra TEXT;"))
    assert migrate(db, data_dir / "backups", extra) == [99]
    backups = list((data_dir / "backups").iterdir())
    assert len(backups) == 1 and "before-v99" in backups[0].name
    saved = sqlite3.connect(backups[0])
    assert saved.execute("SELECT title FROM threads").fetchall() == [("keep me",)]
    assert "extra" not in [r[1] for r in saved.execute("PRAGMA table_info(threads)")]
    assert migrate(db, data_dir / "backups", extra) == []
    assert schema_version(db) == 99


def test_a_failing_migration_rolls_back_and_keeps_the_data(data_dir: Path) -> None:
    db = open_database(data_dir)
    broken = (
        *MIGRATIONS,
        (50, "broken", "ALTER TABLE threads ADD COLUMN x TEXT;\nSELECT * FROM nope;"),
    )
    with pytest.raises(StorageError):
        migrate(db, data_dir / "backups", broken)
    assert schema_version(db) == MIGRATIONS[-1][0]
    assert "x" not in [r[1] for r in db.execute("PRAGMA table_info(threads)")]


def test_deleting_a_knowledge_base_or_role_keeps_threads_and_messages(data_dir: Path) -> None:
    db = open_database(data_dir)
    ws = db.execute("SELECT id FROM workspaces").fetchone()[0]
    now = utc_now()
    with write(db) as conn:
        conn.execute(
            "INSERT INTO knowledge_bases(id, name, created_at, updated_at) VALUES ('kb', 'KB', ?, ?)",
            (now, now),
        )
        conn.execute(
            "INSERT INTO roles(id, name, created_at, updated_at) VALUES ('r', 'Role', ?, ?)",
            (now, now),
        )
        tid = insert_thread(conn, ws, kb_id="kb", role_id="r")
        insert_message(conn, tid, "precious history")
    with write(db) as conn:
        conn.execute("DELETE FROM knowledge_bases WHERE id = 'kb'")
        conn.execute("DELETE FROM roles WHERE id = 'r'")
    row = db.execute("SELECT kb_id, role_id FROM threads WHERE id = ?", [tid]).fetchone()
    assert row == (None, None)
    assert db.execute("SELECT text FROM messages").fetchall() == [("precious history",)]


def test_full_text_index_finds_chinese_substrings_and_english_words(data_dir: Path) -> None:
    db = open_database(data_dir)
    ws = db.execute("SELECT id FROM workspaces").fetchone()[0]
    with write(db) as conn:
        tid = insert_thread(conn, ws, title="机器学习 notes")
        a = insert_message(conn, tid, "我们今天讨论了人工智能和机器学习的最新进展")
        b = insert_message(conn, tid, "The quick brown fox jumps over the lazy dog")
        insert_message(conn, tid, "nothing relevant here")

    def hits(query: str) -> list[str]:
        sql = "SELECT m.id FROM messages_fts f JOIN messages m ON m.seq = f.rowid WHERE messages_fts MATCH ? ORDER BY rank"
        return [r[0] for r in db.execute(sql, [f'"{query}"'])]

    assert hits("人工智能") == [a]
    assert hits("机器学习") == [a]
    assert hits("brown fox") == [b]
    assert hits("lazy") == [b]
    titles = db.execute(
        "SELECT rowid FROM threads_fts WHERE threads_fts MATCH ?", ['"机器学习"']
    ).fetchall()
    assert len(titles) == 1
    # The database keeps the index in sync by itself: update and delete.
    with write(db) as conn:
        conn.execute("UPDATE messages SET text = 'a lazy afternoon' WHERE id = ?", [a])
        conn.execute("DELETE FROM messages WHERE id = ?", [b])
    assert hits("人工智能") == []
    assert hits("lazy") == [a]


def test_recovery_only_touches_runs_whose_process_is_gone(data_dir: Path) -> None:
    db = open_database(data_dir)
    ws = db.execute("SELECT id FROM workspaces").fetchone()[0]
    with write(db) as conn:
        tid = insert_thread(conn, ws)
        dead = insert_message(
            conn, tid, "partial", role="assistant", status="streaming", owner="dead"
        )
        alive = insert_message(
            conn, tid, "still going", role="assistant", status="streaming", owner="alive"
        )
    assert messages_repo.recover_streaming(db, lambda owner: owner == "alive") == 1
    statuses = dict(db.execute("SELECT id, status FROM messages").fetchall())
    assert statuses == {dead: "stopped", alive: "streaming"}
    text = db.execute("SELECT text FROM messages WHERE id = ?", [dead]).fetchone()[0]
    assert text == "partial"


def test_worker_runs_sql_on_its_own_thread(data_dir: Path) -> None:
    worker = DatabaseWorker(data_dir)
    try:
        seen = worker.run_sync(
            lambda db: (threading.get_ident(), db.execute("SELECT 1").fetchone()[0])
        )
        assert seen[0] != threading.get_ident() and seen[1] == 1
    finally:
        worker.close()


_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from mira_desktop.core.ids import new_id, utc_now
    from mira_desktop.storage.database import open_database, write
    db = open_database(Path(sys.argv[1]))
    ws = db.execute("SELECT id FROM workspaces").fetchone()[0]
    for i in range(150):
        with write(db) as conn:
            now = utc_now(); tid = new_id()
            conn.execute("INSERT INTO threads(id, title, workspace_id, created_at, updated_at) VALUES (?,?,?,?,?)",
                         (tid, sys.argv[2] + str(i), ws, now, now))
            conn.execute("INSERT INTO messages(id, thread_id, role, text, created_at, updated_at) VALUES (?,?,?,?,?,?)",
                         (new_id(), tid, "user", "hello " + sys.argv[2], now, now))
    """
)


def test_two_processes_writing_one_file_never_corrupt_it(data_dir: Path) -> None:
    open_database(data_dir).conn.close()
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(data_dir), name], cwd=REPO)
        for name in ("window", "cli")
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    db = open_database(data_dir)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM threads").fetchone()[0] == 300
    assert (
        db.execute("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'hello'").fetchone()[
            0
        ]
        == 300
    )
