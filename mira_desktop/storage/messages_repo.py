"""SQL for messages: the conversation tree, the active branch, streaming writes and
start-up recovery of answers whose process died."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import NotFoundError
from ..core.ids import utc_now
from ..core.models import Message, Thread, Usage
from . import rows
from .connection import Database
from .database import write
from .threads_repo import insert, thread_insert_values

_SIBLINGS = """
    (SELECT COUNT(*) FROM messages s
      WHERE s.thread_id = m.thread_id AND s.parent_id IS m.parent_id
        AND s.deleted_at IS NULL AND s.seq < m.seq) AS sibling_index,
    (SELECT COUNT(*) FROM messages s
      WHERE s.thread_id = m.thread_id AND s.parent_id IS m.parent_id
        AND s.deleted_at IS NULL) AS sibling_count
"""


def get_message(db: Database, message_id: str) -> Message:
    row = next(
        db.query(f"SELECT m.*, {_SIBLINGS} FROM messages m WHERE m.id = ?", [message_id]), None
    )
    if row is None:
        raise NotFoundError(f"No message with id {message_id}.")
    return rows.message(row)


def branch(db: Database, leaf_id: str) -> list[Message]:
    """Messages from the root down to ``leaf_id`` (inclusive), oldest first.

    A message is written after its parent, so its chain lies among the rows of
    its thread up to it: those are read in one pass of the thread's index and
    the chain is walked here, sibling positions counted on the way (later
    siblings of the chain, from one grouped count). A recursive query looked
    every message up twice by id and counted its siblings with two subqueries
    each: a 5,000-message branch took 77-81 ms, now 51-53; a short chain early
    in a long thread reads only the rows before it. A chain that breaks these
    rules (never made by Mira: a parent in another thread, or written after its
    child) is followed by that query instead."""
    found = db.execute("SELECT thread_id, seq FROM messages WHERE id = ?", [leaf_id]).fetchone()
    if found is None:
        return []
    thread_id, leaf_seq = found
    cursor = db.execute(
        "SELECT * FROM messages WHERE thread_id = ? AND seq <= ? ORDER BY seq",
        [thread_id, leaf_seq],
    )
    columns = [column[0] for column in cursor.description]
    at = {name: i for i, name in enumerate(columns)}
    i_id, i_parent, i_deleted = at["id"], at["parent_id"], at["deleted_at"]
    by_id: dict[str, tuple[Any, ...]] = {}
    # a message's sibling index: the live messages with its parent before it
    index: dict[str, int] = {}
    live: dict[str | None, int] = {}  # parent id → live children (so far)
    for row in cursor:
        message_id, parent = row[i_id], row[i_parent]
        by_id[message_id] = row
        before = live.get(parent, 0)
        index[message_id] = before
        if row[i_deleted] is None:
            live[parent] = before + 1
    chain = _chain(by_id, leaf_id, i_parent)
    if chain is None:
        return _branch_by_query(db, leaf_id)
    later = dict(
        db.execute(
            "SELECT parent_id, COUNT(*) FROM messages"
            " WHERE thread_id = ? AND seq > ? AND deleted_at IS NULL GROUP BY parent_id",
            [thread_id, leaf_seq],
        ).fetchall()
    )
    read = rows.message_reader(columns)
    return [
        read(
            row,
            index[row[i_id]],
            (live.get(row[i_parent], 0) + later.get(row[i_parent], 0)) or 1,
        )
        for row in reversed(chain)
    ]


def _chain(
    by_id: dict[str, tuple[Any, ...]], leaf_id: str, i_parent: int
) -> list[tuple[Any, ...]] | None:
    """The rows from ``leaf_id`` up to its root (a parent loop ends the walk);
    None when a parent is not among ``by_id`` (in another thread, or written
    after its child)."""
    chain: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    next_id: str | None = leaf_id
    while next_id is not None and next_id not in seen:
        row = by_id.get(next_id)
        if row is None:
            return None
        seen.add(next_id)
        chain.append(row)
        next_id = row[i_parent]
    return chain


def _branch_by_query(db: Database, leaf_id: str) -> list[Message]:
    """:func:`branch` by a recursive query, for a chain that leaves the thread
    or has a parent written after its child."""
    sql = f"""
        WITH RECURSIVE chain(id, parent_id, depth) AS (
            SELECT id, parent_id, 0 FROM messages WHERE id = ?
            UNION ALL
            SELECT p.id, p.parent_id, chain.depth + 1
              FROM messages p JOIN chain ON p.id = chain.parent_id
        )
        SELECT m.*, {_SIBLINGS}
          FROM chain JOIN messages m ON m.id = chain.id
         ORDER BY chain.depth DESC
    """
    return [rows.message(r) for r in db.query(sql, [leaf_id])]


def active_branch(db: Database, thread_id: str) -> list[Message]:
    row = db.execute("SELECT active_leaf_id FROM threads WHERE id = ?", [thread_id]).fetchone()
    if row is None:
        raise NotFoundError(f"No thread with id {thread_id}.")
    if not row[0]:
        return []
    return [m for m in branch(db, row[0]) if m.deleted_at is None]


def commit_draft(
    db: Database,
    thread: Thread,
    user_message: Message,
    assistant_message: Message,
    owner: str,
) -> None:
    """Write a new thread, its first user message and the streaming answer at once."""
    with write(db) as conn:
        insert(conn, "threads", thread_insert_values(thread))
        insert(conn, "messages", rows.message_row(user_message))
        insert(conn, "messages", rows.message_row(assistant_message, owner))
        conn.execute(
            "UPDATE threads SET active_leaf_id = ? WHERE id = ?",
            (assistant_message.id, thread.id),
        )


def add_message(
    db: Database,
    message: Message,
    *,
    owner: str | None = None,
    make_active: bool = True,
) -> None:
    """Insert one message (and make it the thread's active leaf)."""
    with write(db) as conn:
        insert(conn, "messages", rows.message_row(message, owner))
        if make_active:
            cursor = conn.execute(
                "UPDATE threads SET active_leaf_id = ?, updated_at = ? WHERE id = ?",
                (message.id, message.created_at, message.thread_id),
            )
            if cursor.rowcount == 0:
                raise NotFoundError(f"No thread with id {message.thread_id}.")


def update_stream(
    db: Database,
    message_id: str,
    *,
    text: str,
    thinking: str,
    thinking_ms: int | None,
    status: str | None = None,
    usage: Usage | None = None,
    error: dict[str, Any] | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """Write the current state of a streaming answer (one coalesced write);
    ``data`` replaces the message's data (an agent's tool cards)."""
    values: dict[str, Any] = {
        "text": text,
        "thinking": thinking,
        "thinking_ms": thinking_ms,
        "updated_at": utc_now(),
    }
    if status is not None:
        values["status"] = status
        if status != "streaming":
            values["owner"] = None
    if usage is not None:
        values.update(
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            usage_estimated=int(usage.counts_estimated),
            reasoning_estimated=int(usage.reasoning_estimated),
        )
    if error is not None:
        values["error_json"] = rows.dumps(error)
    if data is not None:
        values["data_json"] = rows.dumps(data)
    assignments = ", ".join(f"{k} = ?" for k in values)
    with write(db) as conn:
        conn.execute(
            f"UPDATE messages SET {assignments} WHERE id = ?", (*values.values(), message_id)
        )
        conn.execute(
            "UPDATE threads SET updated_at = ? WHERE id = (SELECT thread_id FROM messages WHERE id = ?)",
            (values["updated_at"], message_id),
        )


def recover_streaming(db: Database, owner_alive: Callable[[str | None], bool]) -> int:
    """Turn ``streaming`` rows whose owning process is gone into ``stopped``.

    Rows owned by a live process (another Mira window or CLI run) are left alone."""
    candidates = db.execute("SELECT id, owner FROM messages WHERE status = 'streaming'").fetchall()
    dead = [message_id for message_id, owner in candidates if not owner_alive(owner)]
    if not dead:
        return 0
    now = utc_now()
    with write(db) as conn:
        for message_id in dead:
            conn.execute(
                "UPDATE messages SET status = 'stopped', owner = NULL, updated_at = ?,"
                " error_json = COALESCE(error_json, ?)"
                " WHERE id = ? AND status = 'streaming'",
                (now, rows.dumps(_INTERRUPTED), message_id),
            )
    return len(dead)


_INTERRUPTED = {
    "code": "interrupted",
    "message": "Mira was closed while this answer was being written; the text so far is kept.",
}
