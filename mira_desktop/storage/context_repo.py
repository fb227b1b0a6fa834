"""SQL of the chat path's context (issue 7): writing a user message together
with its attachment parts (a draft's thread, question and first answer in one
transaction; a question of an existing thread in another), a thread's context
summary columns, the peak prompt size of its requests, and a cheap fingerprint
of everything a request's context depends on (the context meter's cache key).

Attachment parts take over the composer's pending references in the same
transaction as the message (``attachments_repo.insert_parts``), so a send
either writes the message with its files or writes nothing."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ..core.errors import NotFoundError
from ..core.models import Message, Thread
from . import attachments_repo, rows
from .connection import Database
from .database import write
from .threads_repo import insert, thread_insert_values

log = logging.getLogger(__name__)


def commit_draft(
    db: Database,
    thread: Thread,
    user_message: Message,
    assistant_message: Message,
    owner: str,
    parts: Sequence[attachments_repo.PendingPart] = (),
) -> None:
    """Write a new thread, its first user message (with its attachment parts)
    and the streaming answer at once."""
    with write(db) as conn:
        insert(conn, "threads", thread_insert_values(thread))
        insert(conn, "messages", rows.message_row(user_message))
        attachments_repo.insert_parts(conn, user_message.id, parts)
        insert(conn, "messages", rows.message_row(assistant_message, owner))
        conn.execute(
            "UPDATE threads SET active_leaf_id = ? WHERE id = ?",
            (assistant_message.id, thread.id),
        )


def add_user_message(
    db: Database,
    message: Message,
    parts: Sequence[attachments_repo.PendingPart] = (),
) -> None:
    """Insert a user message with its attachment parts and make it the active leaf."""
    with write(db) as conn:
        insert(conn, "messages", rows.message_row(message))
        attachments_repo.insert_parts(conn, message.id, parts)
        cursor = conn.execute(
            "UPDATE threads SET active_leaf_id = ?, updated_at = ? WHERE id = ?",
            (message.id, message.created_at, message.thread_id),
        )
        if cursor.rowcount == 0:
            raise NotFoundError(f"No thread with id {message.thread_id}.")


def get_summary(db: Database, thread_id: str) -> tuple[str | None, str | None, int]:
    """``(summary_text, summary_updated_at, summary_message_count)`` of a thread."""
    row = db.execute(
        "SELECT summary_text, summary_updated_at, summary_message_count FROM threads WHERE id = ?",
        [thread_id],
    ).fetchone()
    if row is None:
        raise NotFoundError(f"No thread with id {thread_id}.")
    return row[0], row[1], int(row[2] or 0)


def set_summary(
    db: Database,
    thread_id: str,
    text: str | None,
    updated_at: str | None,
    message_count: int | None,
) -> None:
    """Write (or with ``None``s clear) the summary. The thread's ``updated_at``
    stays: the summary is context, not conversation (the sidebar order holds)."""
    with write(db) as conn:
        cursor = conn.execute(
            "UPDATE threads SET summary_text = ?, summary_updated_at = ?,"
            " summary_message_count = ? WHERE id = ?",
            (text, updated_at, message_count, thread_id),
        )
        if cursor.rowcount == 0:
            raise NotFoundError(f"No thread with id {thread_id}.")


def peak_prompt_tokens(db: Database, thread_id: str) -> int:
    """The largest prompt of the thread's answers (stored usage, reported or
    estimated), over every branch; 0 before the first answer. An agent's
    answer adds up its rounds' prompts: its largest round counts here."""
    row = db.execute(
        "SELECT MAX(COALESCE(CASE WHEN json_valid(data_json) THEN"
        " CAST(json_extract(data_json, '$.agent.context_tokens') AS INTEGER) END,"
        " prompt_tokens)) FROM messages WHERE thread_id = ? AND role = 'assistant'",
        [thread_id],
    ).fetchone()
    return int(row[0] or 0)


def fingerprint(db: Database, thread_id: str) -> tuple[Any, ...] | None:
    """What a request's context depends on, in one row: active leaf, last
    change, role (and its last edit), summary time, model. ``None`` when the
    thread does not exist (yet: a draft)."""
    row = db.execute(
        "SELECT t.active_leaf_id, t.updated_at, t.role_id, r.updated_at, t.summary_updated_at,"
        " t.provider_id, t.model FROM threads t LEFT JOIN roles r ON r.id = t.role_id"
        " WHERE t.id = ?",
        [thread_id],
    ).fetchone()
    return None if row is None else tuple(row)
