"""SQL for media made after an answer (PRODUCT.md §10): its spoken audio and
its image. Each is a message part that references the media store, marked
``{"made_for": key}`` (``"speech"``, ``"image"``), and a summary under
``data[key]`` on the message (``core/speech.py``, ``core/illustration.py``).
Saving a new one replaces the old part of the same key (its media reference
released) in the same transaction as the summary; a failed attempt to make it
again leaves the old one, and says it failed beside it."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..core.answer_media import MadePart
from ..core.errors import NotFoundError
from ..core.ids import new_id, utc_now
from ..core.models import Message
from . import media_repo, messages_repo, rows
from .connection import Database
from .database import write


def save_answer_media(
    db: Database, message_id: str, key: str, summary: dict[str, Any], part: MadePart | None
) -> Message:
    """Record ``summary`` as ``data[key]`` of the message and make ``part`` (if
    any) its ``key`` part, taking a media reference. Returns the message."""
    with write(db) as conn:
        row = conn.execute(
            "SELECT data_json FROM messages WHERE id = ? AND deleted_at IS NULL", [message_id]
        ).fetchone()
        if row is None:
            raise NotFoundError(f"No message with id {message_id}.")
        now = utc_now()
        data: dict[str, Any] = dict(rows.loads(row[0]) or {})
        if part is not None:
            # the part the old summary shows goes only when a new one replaces
            # it (an imported answer's came in as a plain part, without the mark)
            _drop_parts(conn, message_id, key, now, _summary_sha(data.get(key)))
            _insert_part(conn, message_id, key, part, now)
        else:
            summary = _kept(data.get(key), summary)
        data[key] = summary
        conn.execute(
            "UPDATE messages SET data_json = ? WHERE id = ?", (rows.dumps(data), message_id)
        )
    return messages_repo.get_message(db, message_id)


def _kept(old: Any, summary: dict[str, Any]) -> dict[str, Any]:
    """A failed attempt to make again what an answer has keeps what it has —
    its picture or audio and their summary — with the attempt's error beside
    them (``MadeSummary.retry_failed``); only an answer with nothing made
    gets the failure as its summary."""
    if summary.get("status") == "failed" and isinstance(old, dict):
        if old.get("status") == "ready" and _summary_sha(old):
            return {**old, "error": summary.get("error") or {}}
    return summary


def _summary_sha(summary: Any) -> str | None:
    sha = summary.get("sha256") if isinstance(summary, dict) else None
    return sha if isinstance(sha, str) and sha else None


def _drop_parts(
    conn: sqlite3.Connection, message_id: str, key: str, now: str, shown: str | None = None
) -> None:
    """Remove the message's ``key`` parts: those marked so, and the part the
    old summary shows (``shown``) — an imported answer's picture or audio
    came in as a plain part, without the mark."""
    gone = conn.execute(
        "DELETE FROM message_parts WHERE message_id = ? AND media_sha256 IS NOT NULL"
        " AND (json_extract(data_json, '$.made_for') = ? OR media_sha256 = ?)"
        " RETURNING media_sha256",
        [message_id, key, shown],
    ).fetchall()
    for (sha256,) in gone:
        media_repo.release(conn, sha256, 1, now)


def _insert_part(
    conn: sqlite3.Connection, message_id: str, key: str, part: MadePart, now: str
) -> None:
    media_repo.add_ref(conn, part.sha256, 1, now)
    ordinal = conn.execute(
        "SELECT COALESCE(MAX(ordinal), -1) + 1 FROM message_parts WHERE message_id = ?",
        [message_id],
    ).fetchone()[0]
    data = {"made_for": key, "size": part.size}
    conn.execute(
        "INSERT INTO message_parts(id, message_id, ordinal, kind, media_sha256, name, mime,"
        " data_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            new_id(),
            message_id,
            ordinal,
            part.kind,
            part.sha256,
            part.name,
            part.mime,
            rows.dumps(data),
        ),
    )
