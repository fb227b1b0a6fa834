"""SQL of the ``media`` table: rows per stored content (sha256, MIME type, size,
reference count), pending references held by the composer, and the garbage
collector that deletes unreferenced rows together with their files.

Functions taking ``conn`` run inside a transaction the caller opened with
``database.write``, so other repositories change reference counts in the same
transaction as the rows that hold the references (a message part, a purge).
Functions taking ``db`` open their own transaction. A reference count never
goes below zero, and the collector double-checks that no message part or
pending reference still points at a row before deleting it."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from pathlib import Path

from ..core.errors import NotFoundError
from ..core.ids import format_time, new_id, utc_now
from .connection import Database
from .database import write
from .media_files import MediaFiles, StagedFile

log = logging.getLogger(__name__)


def iso(epoch: float) -> str:
    """An epoch time (what the injected clock gives) as a stored timestamp."""
    return format_time(datetime.fromtimestamp(epoch, UTC))


def ensure_row(conn: sqlite3.Connection, sha256: str, mime: str, size: int, now: str) -> None:
    """Insert the row of new content, or keep (and touch) the existing one."""
    conn.execute(
        "INSERT INTO media(sha256, mime, size, ref_count, created_at, touched_at)"
        " VALUES (?, ?, ?, 0, ?, ?)"
        " ON CONFLICT(sha256) DO UPDATE SET touched_at = excluded.touched_at",
        (sha256, mime, size, now, now),
    )


def add_ref(conn: sqlite3.Connection, sha256: str, count: int = 1, now: str | None = None) -> int:
    """Add ``count`` references; returns the new count. The row must exist."""
    row = conn.execute(
        "UPDATE media SET ref_count = ref_count + ?, touched_at = ? WHERE sha256 = ?"
        " RETURNING ref_count",
        (count, now or utc_now(), sha256),
    ).fetchone()
    if row is None:
        raise NotFoundError(
            f"The stored file {sha256[:12]}… is gone from the media store.",
            hint="Attach the file again.",
        )
    return int(row[0])


def release(conn: sqlite3.Connection, sha256: str, count: int = 1, now: str | None = None) -> int:
    """Drop ``count`` references (never below zero); returns the new count."""
    row = conn.execute(
        "UPDATE media SET ref_count = MAX(ref_count - ?, 0), touched_at = ? WHERE sha256 = ?"
        " RETURNING ref_count",
        (count, now or utc_now(), sha256),
    ).fetchone()
    if row is None:
        log.warning("release of unknown media %s ignored", sha256)
        return 0
    return int(row[0])


def ref_count(db: Database, sha256: str) -> int | None:
    row = db.execute("SELECT ref_count FROM media WHERE sha256 = ?", [sha256]).fetchone()
    return None if row is None else int(row[0])


def add_pending(conn: sqlite3.Connection, sha256: str, now: str, owner: str | None = None) -> str:
    """A reference held by the composer (a chip) before any message exists;
    ``owner``: the process holding it."""
    pending_id = new_id()
    conn.execute(
        "INSERT INTO media_pending(id, sha256, created_at, owner) VALUES (?, ?, ?, ?)",
        (pending_id, sha256, now, owner),
    )
    add_ref(conn, sha256, 1, now)
    return pending_id


def claim_pending(conn: sqlite3.Connection, pending_id: str, sha256: str, now: str) -> None:
    """Turn a pending reference into the caller's real one (the count stays).
    If the pending reference expired meanwhile, take a new reference instead."""
    cursor = conn.execute(
        "DELETE FROM media_pending WHERE id = ? AND sha256 = ?", (pending_id, sha256)
    )
    if cursor.rowcount == 0:
        add_ref(conn, sha256, 1, now)
    else:
        conn.execute("UPDATE media SET touched_at = ? WHERE sha256 = ?", (now, sha256))


def drop_pending(conn: sqlite3.Connection, pending_id: str, now: str) -> str | None:
    """Release a pending reference (a removed chip); returns its sha256."""
    row = conn.execute(
        "DELETE FROM media_pending WHERE id = ? RETURNING sha256", [pending_id]
    ).fetchone()
    if row is None:
        return None
    release(conn, row[0], 1, now)
    return str(row[0])


def expire_pending(
    conn: sqlite3.Connection,
    before: str,
    now: str,
    owner_alive: Callable[[str | None], bool] | None = None,
) -> list[str]:
    """Release pending references left by a crash: those whose process is
    gone (``owner_alive``), at once, and those without a known owner created
    before ``before``. A running window's chips stay held however old."""
    expired = []
    for pending_id, created_at, owner in conn.execute(
        "SELECT id, created_at, owner FROM media_pending"
    ).fetchall():
        if owner is not None and owner_alive is not None:
            gone = not owner_alive(owner)
        else:
            gone = created_at < before
        if gone:
            expired.append(pending_id)
    released = []
    for pending_id in expired:
        row = conn.execute(
            "DELETE FROM media_pending WHERE id = ? RETURNING sha256", [pending_id]
        ).fetchone()
        release(conn, row[0], 1, now)
        released.append(str(row[0]))
    return released


def store_staged(
    db: Database,
    files: MediaFiles,
    staged: StagedFile,
    mime: str,
    *,
    refs: int = 0,
    pending: bool = False,
    now: str | None = None,
    owner: str | None = None,
) -> str | None:
    """Record staged content and make its file visible, in one transaction (a
    collector in another process waits for it). Returns the pending id, if any."""
    now = now or utc_now()
    pending_id = None
    try:
        with write(db) as conn:
            ensure_row(conn, staged.sha256, mime, staged.size, now)
            if refs:
                add_ref(conn, staged.sha256, refs, now)
            if pending:
                pending_id = add_pending(conn, staged.sha256, now, owner)
            files.commit(staged)
    finally:
        files.discard(staged)  # no-op once committed
    return pending_id


_UNREFERENCED = """
    SELECT sha256 FROM media m
     WHERE ref_count = 0
       AND NOT EXISTS (SELECT 1 FROM message_parts p WHERE p.media_sha256 = m.sha256)
       AND NOT EXISTS (SELECT 1 FROM media_pending q WHERE q.sha256 = m.sha256)
"""


def collect_garbage(
    db: Database,
    files: MediaFiles,
    *,
    now: float,
    grace: float,
    only: Collection[str] | None = None,
) -> list[Path]:
    """Delete unreferenced rows and their files, and files without a row;
    return the files removed.

    Without ``only``, rows and files touched within ``grace`` seconds of ``now``
    are kept (content being stored right now). With ``only``, just those hashes
    are considered, at once (a chip removed, a message purged)."""
    removed: list[Path] = []
    with write(db) as conn:
        if only is None:
            sql, params = (
                _UNREFERENCED + " AND COALESCE(touched_at, created_at) < ?",
                [iso(now - grace)],
            )
        else:
            marks = ",".join("?" for _ in only)
            sql, params = _UNREFERENCED + f" AND sha256 IN ({marks})", list(only)
        for (sha256,) in conn.execute(sql, params).fetchall():
            conn.execute("DELETE FROM media WHERE sha256 = ?", [sha256])
            path = files.path(sha256)
            if files.remove(path):
                removed.append(path)
        if only is None:
            removed += _collect_strays(conn, files, now - grace)
    if removed:
        log.info("removed %d unreferenced media file(s)", len(removed))
    return removed


def _collect_strays(conn: sqlite3.Connection, files: MediaFiles, cutoff: float) -> list[Path]:
    """Files without a media row — but never one an attachment or a chip
    still refers to (its row lost to damage: ``doctor --fix`` records it
    again; deleting it would lose the attachment for good)."""
    known = {row[0] for row in conn.execute("SELECT sha256 FROM media")}
    known.update(
        row[0]
        for row in conn.execute(
            "SELECT media_sha256 FROM message_parts WHERE media_sha256 IS NOT NULL"
            " UNION SELECT sha256 FROM media_pending"
        )
    )
    removed = []
    for entry in files.scan():
        if entry.mtime >= cutoff or (entry.sha256 is not None and entry.sha256 in known):
            continue
        if files.remove(entry.path):
            removed.append(entry.path)
    return removed
