"""SQL for attachments: ``message_parts`` rows of kind ``image`` / ``file`` that
point at media by sha256. Attaching turns the composer's pending references
into the parts' references, and releasing drops them, each in the same
transaction as the rows (see ``media_repo``). The ``conn`` functions are for
other repositories to compose (a draft commit, a purge)."""

from __future__ import annotations

import logging
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..core.attachments import Attachment
from ..core.ids import new_id, utc_now
from . import media_repo, rows
from .connection import Database
from .database import write

log = logging.getLogger(__name__)

#: (pending id or None, attachment) — None takes a fresh reference instead.
PendingPart = tuple[str | None, Attachment]


def insert_parts(
    conn: sqlite3.Connection, message_id: str, parts: Sequence[PendingPart], now: str | None = None
) -> list[Attachment]:
    """Add attachment parts after the message's existing parts; each part takes
    over its pending reference (or a new one)."""
    now = now or utc_now()
    row = conn.execute(
        "SELECT COALESCE(MAX(ordinal), -1) FROM message_parts WHERE message_id = ?", [message_id]
    ).fetchone()
    ordinal = int(row[0]) + 1
    saved = []
    for pending_id, attachment in parts:
        if pending_id is None:
            media_repo.add_ref(conn, attachment.sha256, 1, now)
        else:
            media_repo.claim_pending(conn, pending_id, attachment.sha256, now)
        part_id = new_id()
        info = {**attachment.info, "size": attachment.size}
        conn.execute(
            "INSERT INTO message_parts(id, message_id, ordinal, kind, media_sha256, name, mime,"
            " data_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                part_id,
                message_id,
                ordinal,
                attachment.kind,
                attachment.sha256,
                attachment.name,
                attachment.mime,
                rows.dumps(info),
            ),
        )
        saved.append(
            replace(attachment, info=info, id=part_id, message_id=message_id, ordinal=ordinal)
        )
        ordinal += 1
    return saved


def attach(db: Database, message_id: str, parts: Sequence[PendingPart]) -> list[Attachment]:
    """:func:`insert_parts` in its own transaction."""
    with write(db) as conn:
        return insert_parts(conn, message_id, parts)


def release_message_media(
    conn: sqlite3.Connection, message_ids: Iterable[str], now: str | None = None
) -> list[str]:
    """Delete the attachment parts of these messages and release their media
    references; returns the hashes released (call before, or instead of,
    deleting the messages — parts cascade away with them otherwise).
    Idempotent: a second call finds no parts."""
    ids = list(dict.fromkeys(message_ids))
    if not ids:
        return []
    now = now or utc_now()
    counts: Counter[str] = Counter()
    for chunk in _chunks(ids):
        marks = ",".join("?" for _ in chunk)
        found = conn.execute(
            "DELETE FROM message_parts WHERE media_sha256 IS NOT NULL"
            f" AND message_id IN ({marks}) RETURNING media_sha256",
            chunk,
        ).fetchall()
        counts.update(str(r[0]) for r in found)
    for sha256, count in counts.items():
        media_repo.release(conn, sha256, count, now)
    return list(counts)


def release_messages(db: Database, message_ids: Iterable[str]) -> list[str]:
    with write(db) as conn:
        return release_message_media(conn, message_ids)


def list_attachments(db: Database, message_ids: Sequence[str]) -> dict[str, list[Attachment]]:
    """The attachments of each message, in order (messages without any are absent)."""
    found: dict[str, list[Attachment]] = {}
    for chunk in _chunks(list(message_ids)):
        marks = ",".join("?" for _ in chunk)
        sql = (
            "SELECT p.*, m.size AS media_size FROM message_parts p"
            " LEFT JOIN media m ON m.sha256 = p.media_sha256"
            f" WHERE p.media_sha256 IS NOT NULL AND p.message_id IN ({marks})"
            " ORDER BY p.message_id, p.ordinal"
        )
        for row in db.query(sql, chunk):
            found.setdefault(row["message_id"], []).append(_attachment(row))
    return found


def kept_transcript(db: Database, sha256: str) -> str | None:
    """What an audio file of this content was written down as when it was
    attached before (any message), or None."""
    row = db.execute(
        "SELECT json_extract(data_json, '$.transcript') FROM message_parts"
        " WHERE media_sha256 = ? AND json_extract(data_json, '$.transcript') IS NOT NULL"
        " LIMIT 1",
        (sha256,),
    ).fetchone()
    return row[0] if row is not None and isinstance(row[0], str) and row[0] else None


def _attachment(row: dict[str, Any]) -> Attachment:
    info = dict(rows.loads(row["data_json"]) or {})
    size = info.get("size")
    return Attachment(
        sha256=row["media_sha256"],
        name=row["name"] or "",
        mime=row["mime"] or "",
        kind="image" if row["kind"] == "image" else "file",
        size=int(size if size is not None else row["media_size"] or 0),
        info=info,
        id=row["id"],
        message_id=row["message_id"],
        ordinal=row["ordinal"],
    )


def _chunks(items: list[str], size: int = 500) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
