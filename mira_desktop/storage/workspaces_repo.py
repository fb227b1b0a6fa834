"""SQL of workspaces (PRODUCT.md §1, §8, §13): create, edit, look up by name,
move threads between them, and delete one — its threads go to the trash of
Mira BASE in the same transaction, so no message is ever lost and every thread
keeps pointing at an existing workspace. The default workspace is protected
here and by a trigger in the schema."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ..core.errors import ConfigError, NotFoundError, worded
from ..core.ids import new_id, utc_now
from ..core.models import DEFAULT_WORKSPACE_NAME, Workspace
from . import rows
from .connection import Database
from .database import write

_EDITABLE = {"name", "color", "root_dir", "sort_order"}


def get_workspace(db: Database, workspace_id: str) -> Workspace:
    row = next(db.query("SELECT * FROM workspaces WHERE id = ?", [workspace_id]), None)
    if row is None:
        raise NotFoundError(f"No workspace with id {workspace_id}.")
    return rows.workspace(row)


def find_workspace(db: Database, name_or_id: str) -> Workspace | None:
    """By id, else by name (case-insensitive, surrounding spaces ignored)."""
    row = next(
        db.query(
            "SELECT * FROM workspaces WHERE id = ? OR lower(name) = lower(?)"
            " ORDER BY id = ? DESC LIMIT 1",
            [name_or_id, name_or_id.strip(), name_or_id],
        ),
        None,
    )
    return rows.workspace(row) if row else None


def _check_name_free(conn: sqlite3.Connection, name: str, own_id: str | None = None) -> None:
    row = conn.execute(
        "SELECT id FROM workspaces WHERE lower(name) = lower(?) AND id IS NOT ?", (name, own_id)
    ).fetchone()
    if row is not None:
        raise worded(
            ConfigError,
            'A workspace named "{name}" already exists.',
            {"name": name},
            hint="Choose another name.",
        )


def create_workspace(db: Database, name: str, color: str, root_dir: str | None) -> Workspace:
    workspace_id, now = new_id(), utc_now()
    with write(db) as conn:
        _check_name_free(conn, name)
        last = conn.execute("SELECT COALESCE(MAX(sort_order), 0) FROM workspaces").fetchone()
        conn.execute(
            "INSERT INTO workspaces(id, name, color, root_dir, sort_order, is_default,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
            (workspace_id, name, color, root_dir, int(last[0]) + 1, now, now),
        )
    return get_workspace(db, workspace_id)


def update_workspace(db: Database, workspace_id: str, **fields: Any) -> Workspace:
    unknown = set(fields) - _EDITABLE
    if unknown:
        raise ValueError(f"unknown workspace fields: {sorted(unknown)}")
    with write(db) as conn:
        row = conn.execute(
            "SELECT is_default, name FROM workspaces WHERE id = ?", (workspace_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"No workspace with id {workspace_id}.")
        if "name" in fields:
            if row[0] and fields["name"] != row[1]:
                raise ConfigError(
                    f'The default workspace "{DEFAULT_WORKSPACE_NAME}" keeps its name.'
                )
            _check_name_free(conn, fields["name"], workspace_id)
        values = {**fields, "updated_at": utc_now()}
        assignments = ", ".join(f"{k} = ?" for k in values)
        conn.execute(
            f"UPDATE workspaces SET {assignments} WHERE id = ?", (*values.values(), workspace_id)
        )
    return get_workspace(db, workspace_id)


def workspace_thread_count(db: Database, workspace_id: str) -> int:
    """Every thread the workspace holds: active, archived and already trashed."""
    get_workspace(db, workspace_id)
    row = db.execute("SELECT COUNT(*) FROM threads WHERE workspace_id = ?", [workspace_id])
    return int(row.fetchone()[0])


def delete_workspace(db: Database, workspace_id: str, when: str) -> int:
    """Move the workspace's threads into Mira BASE's trash, then delete it; one
    transaction. Returns how many threads moved."""
    with write(db) as conn:
        row = conn.execute(
            "SELECT is_default FROM workspaces WHERE id = ?", (workspace_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"No workspace with id {workspace_id}.")
        if row[0]:
            raise ConfigError(
                f'The default workspace "{DEFAULT_WORKSPACE_NAME}" cannot be deleted.'
            )
        base = conn.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()
        if base is None:
            raise NotFoundError("The default workspace is missing.")
        moved = conn.execute(
            "UPDATE threads SET workspace_id = ?, deleted_at = COALESCE(deleted_at, ?)"
            " WHERE workspace_id = ?",
            (base[0], when, workspace_id),
        ).rowcount
        conn.execute("DELETE FROM workspaces WHERE id = ?", (workspace_id,))
    return int(moved)


def move_threads(db: Database, thread_ids: Sequence[str], workspace_id: str) -> int:
    """Move threads to a workspace, all or none (an unknown id moves nothing)."""
    with write(db) as conn:
        if (
            conn.execute("SELECT 1 FROM workspaces WHERE id = ?", (workspace_id,)).fetchone()
            is None
        ):
            raise NotFoundError(f"No workspace with id {workspace_id}.")
        moved = 0
        for thread_id in dict.fromkeys(thread_ids):
            cursor = conn.execute(
                "UPDATE threads SET workspace_id = ? WHERE id = ?", (workspace_id, thread_id)
            )
            if cursor.rowcount == 0:
                raise NotFoundError(f"No thread with id {thread_id}.")
            moved += 1
    return moved
