"""SQL for spoken answers (PRODUCT.md §10): an answer's audio is a message part
of kind ``file`` marked ``{"speech": true}`` that references the media store,
and its summary is ``data["speech"]`` on the message (``core/speech.py``).
Saving new audio replaces the old part (its media reference released) in the
same transaction as the summary."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..core.errors import NotFoundError
from ..core.ids import new_id, utc_now
from ..core.models import Message
from ..core.speech import SPEECH_KEY, SPEECH_MIME, SpeechInfo
from . import media_repo, messages_repo, rows
from .connection import Database
from .database import write


def save_speech(db: Database, message_id: str, info: SpeechInfo) -> Message:
    """Record ``info`` on the message; a ``ready`` one takes a reference to
    its audio (stored already, see ``MediaStore.put``) as the message's speech
    part. Returns the message as it now is."""
    with write(db) as conn:
        row = conn.execute(
            "SELECT data_json FROM messages WHERE id = ? AND deleted_at IS NULL", [message_id]
        ).fetchone()
        if row is None:
            raise NotFoundError(f"No message with id {message_id}.")
        now = utc_now()
        _drop_speech_parts(conn, message_id, now)
        if info.status == "ready":
            _insert_speech_part(conn, message_id, info, now)
        data: dict[str, Any] = dict(rows.loads(row[0]) or {})
        data[SPEECH_KEY] = info.to_dict()
        conn.execute(
            "UPDATE messages SET data_json = ? WHERE id = ?", (rows.dumps(data), message_id)
        )
    return messages_repo.get_message(db, message_id)


def _drop_speech_parts(conn: sqlite3.Connection, message_id: str, now: str) -> None:
    gone = conn.execute(
        "DELETE FROM message_parts WHERE message_id = ? AND media_sha256 IS NOT NULL"
        " AND json_extract(data_json, '$.speech') = 1 RETURNING media_sha256",
        [message_id],
    ).fetchall()
    for (sha256,) in gone:
        media_repo.release(conn, sha256, 1, now)


def _insert_speech_part(
    conn: sqlite3.Connection, message_id: str, info: SpeechInfo, now: str
) -> None:
    media_repo.add_ref(conn, info.sha256, 1, now)
    ordinal = conn.execute(
        "SELECT COALESCE(MAX(ordinal), -1) + 1 FROM message_parts WHERE message_id = ?",
        [message_id],
    ).fetchone()[0]
    part = {"speech": True, "size": info.size, "duration_ms": info.duration_ms}
    conn.execute(
        "INSERT INTO message_parts(id, message_id, ordinal, kind, media_sha256, name, mime,"
        " data_json) VALUES (?, ?, ?, 'file', ?, ?, ?, ?)",
        (new_id(), message_id, ordinal, info.sha256, info.name, SPEECH_MIME, rows.dumps(part)),
    )
