"""SQL for the agent's journal (PRODUCT.md §11): one ``agent_runs`` row per
answer that changed files, keyed by the answer. ``trace_json`` holds the
workspace folder the run worked in and every change, in order, per tool call
— the text before and after, so a rollback can put files back and see
whether they changed since. Rolling back marks the calls in the row and on
the answer's tool cards (``data["agent"]["tools"]``) in one transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ..core.agent import FileChange
from ..core.errors import NotFoundError
from ..core.ids import new_id, utc_now
from ..core.models import Message
from . import messages_repo, rows
from .connection import Database
from .database import write


def record_changes(
    db: Database,
    *,
    thread_id: str,
    message_id: str,
    goal: str,
    root: str,
    call_id: str,
    changes: Sequence[FileChange],
) -> None:
    """Add the changes one call made to its answer's row (made on first use)."""
    now = utc_now()
    with write(db) as conn:
        row = _row(conn, message_id)
        if row is None:
            trace: dict[str, Any] = {"root": root, "calls": []}
            conn.execute(
                "INSERT INTO agent_runs (id, thread_id, message_id, goal, state, trace_json,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, 'recorded', ?, ?, ?)",
                (new_id(), thread_id, message_id, goal, rows.dumps(trace), now, now),
            )
            row = _row(conn, message_id)
            assert row is not None
        run_id, trace = row
        trace["calls"].append(
            {"call_id": call_id, "changes": [c.to_dict() for c in changes], "rolled_back": False}
        )
        _save(conn, run_id, trace, now)


def run_trace(db: Database, message_id: str) -> dict[str, Any] | None:
    """``{"root": folder, "calls": [{"call_id", "changes", "rolled_back"}]}``
    of the answer ``message_id``, or None when it changed no file."""
    row = _row(db.conn, message_id)
    return None if row is None else row[1]


def mark_rolled_back(db: Database, message_id: str, call_ids: Sequence[str]) -> Message:
    """Mark ``call_ids`` rolled back in the journal and on the answer's cards."""
    now = utc_now()
    wanted = set(call_ids)
    with write(db) as conn:
        row = _row(conn, message_id)
        if row is None:
            raise NotFoundError("This answer changed no files.")
        run_id, trace = row
        for call in trace["calls"]:
            if call["call_id"] in wanted:
                call["rolled_back"] = True
        _save(conn, run_id, trace, now)
        found = conn.execute("SELECT data_json FROM messages WHERE id = ?", [message_id]).fetchone()
        data: dict[str, Any] = dict(rows.loads(found[0]) or {}) if found else {}
        agent = data.get("agent")
        if isinstance(agent, dict):
            for card in agent.get("tools") or ():
                if isinstance(card, dict) and card.get("call_id") in wanted:
                    card["rolled_back"] = True
            conn.execute(
                "UPDATE messages SET data_json = ?, updated_at = ? WHERE id = ?",
                (rows.dumps(data), now, message_id),
            )
    return messages_repo.get_message(db, message_id)


def _row(conn: sqlite3.Connection, message_id: str) -> tuple[str, dict[str, Any]] | None:
    found = conn.execute(
        "SELECT id, trace_json FROM agent_runs WHERE message_id = ? ORDER BY created_at LIMIT 1",
        [message_id],
    ).fetchone()
    if found is None:
        return None
    trace = rows.loads(found[1]) or {}
    trace.setdefault("calls", [])
    return str(found[0]), trace


def _save(conn: sqlite3.Connection, run_id: str, trace: dict[str, Any], now: str) -> None:
    conn.execute(
        "UPDATE agent_runs SET trace_json = ?, updated_at = ? WHERE id = ?",
        (rows.dumps(trace), now, run_id),
    )
