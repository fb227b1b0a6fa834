"""Migration 2 (history) on a file made by migration 1: existing threads keep
their data and get ``title_source = 'auto'``; the new indexes serve the
sidebar's per-workspace pages and search's time floor."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.core.errors import StorageError
from mira_desktop.storage.database import connect, ensure_default_workspace, migrate, write
from mira_desktop.storage.schema import MIGRATIONS

from .raw_rows import insert_message, insert_thread


def test_history_migration_keeps_threads_and_marks_titles_auto(data_dir: Path) -> None:
    db = connect(data_dir / "mira.sqlite3")
    assert migrate(db, data_dir / "backups", MIGRATIONS[:1]) == [1]
    workspace_id = ensure_default_workspace(db)
    with write(db) as conn:
        thread_id = insert_thread(conn, workspace_id, title="old title")
        insert_message(conn, thread_id, "机器学习 hello")
    assert 2 in migrate(db, data_dir / "backups")
    assert db.execute("SELECT title, title_source FROM threads").fetchall() == [
        ("old title", "auto")
    ]
    indexes = {row[1] for row in db.execute("SELECT type, name FROM sqlite_master")}
    assert {"threads_workspace_list", "messages_created"} <= indexes
    plan = db.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM threads WHERE workspace_id = ? AND deleted_at IS NULL"
        " AND archived = 0 AND pinned = 0 ORDER BY updated_at DESC",
        [workspace_id],
    ).fetchall()
    assert "threads_workspace_list" in str(plan) and "TEMP B-TREE" not in str(plan)
    with pytest.raises(StorageError), write(db) as conn:
        conn.execute("UPDATE threads SET title_source = 'model'")
