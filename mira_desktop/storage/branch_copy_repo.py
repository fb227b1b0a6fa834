"""SQL for "Branch into a new chat" (PRODUCT.md §5): the live path from a
thread's root down to one message becomes a new thread of its own, in one
transaction. The original thread is left exactly as it was.

What the copy keeps: every message of the path as it was written (text,
thinking, status, model, usage, error, data — references between the copied
messages follow them — and the original times), their parts (attached files
take one more reference each, so purging either thread leaves the other's
files), and the thread's settings (workspace, role, knowledge base, model,
agent, mode, media switches). What it does not: other branches, trashed
turns, the context summary (it summarised messages the copy does not have),
pinning and archiving. The agent's journal comes along: a tool card of the
copy rolls back the same files as the original's (the files are one folder's;
whichever thread rolls back first, the other's rollback then finds them
changed and is refused, writing nothing). ``source`` is ``branch`` with the
original thread's id as ``source_ref``."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

from ..core.errors import ConfigError, NotFoundError
from ..core.ids import new_id, utc_now
from . import media_repo, rows
from .connection import Database
from .database import write
from .tree_repo import require_live

log = logging.getLogger(__name__)

SOURCE = "branch"
STILL_WRITING = "That answer is still being written."
STILL_WRITING_HINT = "Wait for it to finish, or stop it, then branch."


def copy_branch(db: Database, thread_id: str, message_id: str, title: str) -> str:
    """A new thread holding the path root → ``message_id`` of ``thread_id``,
    titled ``title``, its active leaf the copy of ``message_id``; returns its id."""
    with write(db) as conn:
        thread = _row(conn, "SELECT * FROM threads WHERE id = ?", thread_id)
        if thread is None:
            raise NotFoundError(f"No thread with id {thread_id}.")
        if thread["deleted_at"] is not None:
            raise ConfigError("That conversation is in the trash.", hint="Restore it first.")
        path = require_live(conn, thread_id, message_id)
        marks = ",".join("?" * len(path))
        messages = {
            m["id"]: m for m in _rows(conn, f"SELECT * FROM messages WHERE id IN ({marks})", *path)
        }
        if any(m["status"] == "streaming" for m in messages.values()):
            raise ConfigError(STILL_WRITING, hint=STILL_WRITING_HINT)
        ids = {old: new_id() for old in path}
        now = utc_now()
        copy = {
            **_without_seq(thread),
            "id": new_id(),
            "title": title,
            "title_source": "manual",
            "pinned": 0,
            "pin_order": None,
            "archived": 0,
            "source": SOURCE,
            "source_ref": thread_id,
            "active_leaf_id": ids[message_id],
            "summary_text": None,
            "summary_updated_at": None,
            "summary_message_count": None,
            "created_at": now,
            "updated_at": now,
        }
        _insert(conn, "threads", copy)
        for old in path:  # parents first
            message = messages[old]
            data = rows.loads(message["data_json"])
            _insert(
                conn,
                "messages",
                {
                    **_without_seq(message),
                    "id": ids[old],
                    "thread_id": copy["id"],
                    "parent_id": ids[message["parent_id"]] if message["parent_id"] else None,
                    "data_json": rows.dumps(rows.remap_ids(data, ids)) if data else None,
                    "owner": None,
                },
            )
        parts = _rows(
            conn,
            f"SELECT * FROM message_parts WHERE message_id IN ({marks}) ORDER BY ordinal",
            *path,
        )
        for part in parts:
            _insert(
                conn,
                "message_parts",
                {**part, "id": new_id(), "message_id": ids[part["message_id"]]},
            )
            if part["media_sha256"]:
                media_repo.add_ref(conn, part["media_sha256"], 1, now)
        runs = _rows(conn, f"SELECT * FROM agent_runs WHERE message_id IN ({marks})", *path)
        for run in runs:  # the journal: the copy's cards roll back the same files
            _insert(
                conn,
                "agent_runs",
                {
                    **run,
                    "id": new_id(),
                    "thread_id": copy["id"],
                    "message_id": ids[run["message_id"]],
                    "updated_at": now,
                },
            )
    log.info("branched %d message(s) of thread %s into thread %s", len(path), thread_id, copy["id"])
    return str(copy["id"])


def _row(conn: sqlite3.Connection, sql: str, *params: Any) -> dict[str, Any] | None:
    found = _rows(conn, sql, *params)
    return found[0] if found else None


def _rows(conn: sqlite3.Connection, sql: str, *params: Any) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]


def _without_seq(row: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in row.items() if name != "seq"}


def _insert(conn: sqlite3.Connection, table: str, values: dict[str, Any]) -> None:
    names = list(values)
    conn.execute(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({','.join('?' * len(names))})",
        [values[name] for name in names],
    )
