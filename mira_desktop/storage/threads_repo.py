"""SQL for workspaces and threads. Plain functions taking the database first; they
run on the database thread (see ``worker.py``)."""

from __future__ import annotations

from typing import Any

from ..core.errors import NotFoundError
from ..core.ids import utc_now
from ..core.models import Thread, Workspace
from . import rows
from .connection import Database
from .database import write

_THREAD_COLUMNS = (
    "id, title, workspace_id, role_id, kb_id, provider_id, model, agent_enabled, mode,"
    " tts_enabled, image_enabled, pinned, pin_order, archived, deleted_at, source,"
    " active_leaf_id, created_at, updated_at"
)
_THREAD_FIELDS = {
    "title",
    "title_source",
    "workspace_id",
    "role_id",
    "kb_id",
    "provider_id",
    "model",
    "agent_enabled",
    "mode",
    "tts_enabled",
    "image_enabled",
    "pinned",
    "pin_order",
    "archived",
    "deleted_at",
    "source",
    "source_ref",
    "active_leaf_id",
    "summary_text",
    "summary_updated_at",
    "summary_message_count",
    "updated_at",
}


def default_workspace(db: Database) -> Workspace:
    row = next(db.query("SELECT * FROM workspaces WHERE is_default = 1"), None)
    if row is None:
        raise NotFoundError("The default workspace is missing.")
    return rows.workspace(row)


def list_workspaces(db: Database) -> list[Workspace]:
    return [
        rows.workspace(r)
        for r in db.query("SELECT * FROM workspaces ORDER BY is_default DESC, sort_order, name")
    ]


def thread_insert_values(thread: Thread) -> dict[str, Any]:
    return {
        "id": thread.id,
        "title": thread.title,
        "workspace_id": thread.workspace_id,
        "role_id": thread.role_id,
        "kb_id": thread.kb_id,
        "provider_id": thread.provider_id,
        "model": thread.model,
        "agent_enabled": int(thread.agent_enabled),
        "mode": thread.mode,
        "tts_enabled": int(thread.tts_enabled),
        "image_enabled": int(thread.image_enabled),
        "pinned": int(thread.pinned),
        "pin_order": thread.pin_order,
        "archived": int(thread.archived),
        "deleted_at": thread.deleted_at,
        "source": thread.source,
        "active_leaf_id": thread.active_leaf_id,
        "created_at": thread.created_at,
        "updated_at": thread.updated_at,
    }


def insert(conn: Any, table: str, values: dict[str, Any]) -> None:
    """INSERT a row from a dict on an open connection (inside a transaction)."""
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", tuple(values.values()))


def create_thread(db: Database, thread: Thread) -> Thread:
    with write(db) as conn:
        insert(conn, "threads", thread_insert_values(thread))
    return get_thread(db, thread.id)


def get_thread(db: Database, thread_id: str) -> Thread:
    row = next(db.query(f"SELECT {_THREAD_COLUMNS} FROM threads WHERE id = ?", [thread_id]), None)
    if row is None:
        raise NotFoundError(f"No thread with id {thread_id}.")
    return rows.thread(row)


def find_thread(db: Database, thread_id: str) -> Thread | None:
    try:
        return get_thread(db, thread_id)
    except NotFoundError:
        return None


def count_threads(db: Database) -> int:
    row = db.execute(
        "SELECT COUNT(*) FROM threads WHERE deleted_at IS NULL AND archived = 0"
    ).fetchone()
    return int(row[0])


def list_threads(db: Database, offset: int = 0, limit: int = 100) -> list[Thread]:
    """Visible threads: pinned first (by pin order), then most recently updated."""
    sql = (
        f"SELECT {_THREAD_COLUMNS} FROM threads WHERE deleted_at IS NULL AND archived = 0"
        " ORDER BY pinned DESC, COALESCE(pin_order, 0), updated_at DESC, seq DESC"
        " LIMIT ? OFFSET ?"
    )
    return [rows.thread(r) for r in db.query(sql, [limit, offset])]


def update_thread(db: Database, thread_id: str, **fields: Any) -> Thread:
    unknown = set(fields) - _THREAD_FIELDS
    if unknown:
        raise ValueError(f"unknown thread fields: {sorted(unknown)}")
    fields.setdefault("updated_at", utc_now())
    values = {k: (int(v) if isinstance(v, bool) else v) for k, v in fields.items()}
    assignments = ", ".join(f"{k} = ?" for k in values)
    with write(db) as conn:
        cursor = conn.execute(
            f"UPDATE threads SET {assignments} WHERE id = ?", (*values.values(), thread_id)
        )
        if cursor.rowcount == 0:
            raise NotFoundError(f"No thread with id {thread_id}.")
    return get_thread(db, thread_id)
