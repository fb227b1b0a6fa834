"""SQL of the data check (``mira-desktop doctor``, Help → Check data): finding
damage in the database and repairing it in one transaction.

``scan`` only reads and returns :class:`Finding` rows; deciding what is a
problem beyond the SQL (is a streaming row's owner alive? which files under
``media/`` have no row?) is the service's job (``services/doctor.py``).
``apply_repairs`` writes every repair in one ``BEGIN IMMEDIATE`` transaction
and returns the media hashes whose rows it deleted, so their files can be
removed after the commit (a file is never deleted for a row that might still
be rolled back).

Rows younger than ``created_before`` (empty threads, unreferenced media) are
left alone: another window may be between two steps of its own work.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ..core.ids import utc_now
from . import rows
from .connection import Database
from .database import write
from .messages_repo import _INTERRUPTED

log = logging.getLogger(__name__)

#: (table, column) pairs that reference ``media.sha256``; a media row's
#: ``ref_count`` must equal the number of rows pointing at it here (tables
#: that do not exist in this file's schema are skipped). Pending references are
#: the composer's chips (``media_repo.add_pending``).
MEDIA_REFERENCES: tuple[tuple[str, str], ...] = (
    ("message_parts", "media_sha256"),
    ("media_pending", "sha256"),
)

RECOVERED_TITLE = "Recovered conversation"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing the scan found. ``subject`` is the id (thread, message or media
    hash) it is about; ``data`` carries machine-readable details."""

    code: str
    subject: str
    thread_id: str | None
    detail: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Repairs:
    """What ``apply_repairs`` does, by kind (ids or hashes)."""

    recreate_threads: list[str] = field(default_factory=list)
    rehome_threads: list[str] = field(default_factory=list)
    detach_messages: list[str] = field(default_factory=list)
    delete_empty_threads: list[str] = field(default_factory=list)
    repair_leaves: list[str] = field(default_factory=list)
    stop_streaming: list[str] = field(default_factory=list)
    recount_media: list[str] = field(default_factory=list)
    #: hash → the file's size: rows recreated for files attachments still use
    recreate_media: dict[str, int] = field(default_factory=dict)


def scan(db: Database, created_before: str) -> list[Finding]:
    conn = db.conn
    return [
        *_threads(conn, created_before),
        *_orphan_messages(conn),
        *_parents(conn),
        *_cycles(conn),
        *_active_leaves(conn),
        *_streaming(conn),
        *_media(conn, created_before),
    ]


def _threads(conn: sqlite3.Connection, created_before: str) -> list[Finding]:
    found = [
        Finding("empty_thread", tid, tid, f"Thread “{title}” has no messages.")
        for tid, title in conn.execute(
            "SELECT t.id, t.title FROM threads t WHERE t.created_at < ?"
            " AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id)",
            [created_before],
        )
    ]
    found += [
        Finding(
            "thread_workspace_missing",
            tid,
            tid,
            f"Thread “{title}” belongs to a workspace that does not exist ({workspace}).",
            {"workspace_id": workspace},
        )
        for tid, title, workspace in conn.execute(
            "SELECT t.id, t.title, t.workspace_id FROM threads t"
            " LEFT JOIN workspaces w ON w.id = t.workspace_id WHERE w.id IS NULL"
        )
    ]
    return found


def _orphan_messages(conn: sqlite3.Connection) -> list[Finding]:
    return [
        Finding(
            "message_thread_missing",
            tid,
            tid,
            f"{count} message(s) belong to a thread that does not exist.",
            {"count": count},
        )
        for tid, count in conn.execute(
            "SELECT m.thread_id, COUNT(*) FROM messages m"
            " LEFT JOIN threads t ON t.id = m.thread_id WHERE t.id IS NULL GROUP BY m.thread_id"
        )
    ]


def _parents(conn: sqlite3.Connection) -> list[Finding]:
    found: list[Finding] = []
    for mid, tid, parent, parent_thread in conn.execute(
        "SELECT m.id, m.thread_id, m.parent_id, p.thread_id FROM messages m"
        " LEFT JOIN messages p ON p.id = m.parent_id"
        " WHERE m.parent_id IS NOT NULL AND (p.id IS NULL OR p.thread_id != m.thread_id)"
    ):
        if parent_thread is None:
            found.append(
                Finding("message_parent_missing", mid, tid, f"Its parent {parent} is missing.")
            )
        else:
            detail = f"Its parent {parent} is in another thread ({parent_thread})."
            found.append(Finding("message_parent_other_thread", mid, tid, detail))
    return found


def _cycles(conn: sqlite3.Connection) -> list[Finding]:
    """Messages whose parent chain loops; one per loop (the oldest member)."""
    unreachable = conn.execute(
        "WITH RECURSIVE reach(id) AS ("
        " SELECT id FROM messages WHERE parent_id IS NULL"
        " UNION SELECT m.id FROM messages m JOIN reach r ON m.parent_id = r.id)"
        " SELECT id, parent_id, thread_id, seq FROM messages"
        " WHERE id NOT IN (SELECT id FROM reach)"
    ).fetchall()
    parent = {r[0]: r[1] for r in unreachable}
    seq = {r[0]: r[3] for r in unreachable}
    thread = {r[0]: r[2] for r in unreachable}
    done: set[str] = set()
    found: list[Finding] = []
    for start in parent:
        path: dict[str, int] = {}  # node -> position on this walk
        node: str | None = start
        while node is not None and node in parent and node not in done and node not in path:
            path[node] = len(path)
            node = parent[node]
        if node is not None and node in path:
            cycle = list(path)[path[node] :]
            breaker = min(cycle, key=lambda m: seq[m])
            detail = f"Its parent chain loops through {len(cycle)} message(s)."
            found.append(Finding("message_parent_cycle", breaker, thread[breaker], detail))
        done.update(path)
    return found


def _active_leaves(conn: sqlite3.Connection) -> list[Finding]:
    reasons: dict[str, str] = {}
    for tid, leaf, found_thread in conn.execute(
        "SELECT t.id, t.active_leaf_id, m.thread_id FROM threads t"
        " LEFT JOIN messages m ON m.id = t.active_leaf_id"
        " WHERE t.active_leaf_id IS NOT NULL"
        " AND (m.id IS NULL OR m.thread_id != t.id OR m.deleted_at IS NOT NULL)"
    ):
        if found_thread is None:
            reasons[tid] = f"Its active message {leaf} is missing."
        elif found_thread != tid:
            reasons[tid] = f"Its active message {leaf} is in another thread."
        else:
            reasons[tid] = f"Its active message {leaf} is in the trash."
    for (tid,) in conn.execute(
        "WITH RECURSIVE up(thread_id, id) AS ("
        " SELECT id, active_leaf_id FROM threads WHERE active_leaf_id IS NOT NULL"
        " UNION SELECT up.thread_id, m.parent_id FROM up"
        " JOIN messages m ON m.id = up.id AND m.thread_id = up.thread_id"
        " WHERE m.parent_id IS NOT NULL)"
        " SELECT DISTINCT up.thread_id FROM up"
        " JOIN messages m ON m.id = up.id AND m.thread_id = up.thread_id"
        " WHERE m.deleted_at IS NOT NULL"
    ):
        reasons.setdefault(tid, "Its active branch runs through a message in the trash.")
    for (tid,) in conn.execute(
        "SELECT t.id FROM threads t WHERE t.active_leaf_id IS NULL"
        " AND EXISTS (SELECT 1 FROM messages m WHERE m.thread_id = t.id)"
        " AND NOT EXISTS (SELECT 1 FROM messages m"
        "  WHERE m.thread_id = t.id AND m.deleted_at IS NOT NULL)"
    ):
        reasons[tid] = "It has messages but no active branch."
    return [Finding("active_leaf_invalid", tid, tid, why) for tid, why in reasons.items()]


def _streaming(conn: sqlite3.Connection) -> list[Finding]:
    return [
        Finding(
            "streaming_leftover",
            mid,
            tid,
            "An answer is still marked as being written.",
            {"owner": owner},
        )
        for mid, tid, owner in conn.execute(
            "SELECT id, thread_id, owner FROM messages WHERE status = 'streaming'"
        )
    ]


def _reference_count_sql(conn: sqlite3.Connection) -> str:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return " + ".join(
        f"(SELECT COUNT(*) FROM {table} r WHERE r.{column} = md.sha256)"
        for table, column in MEDIA_REFERENCES
        if table in tables
    )


def _media(conn: sqlite3.Connection, created_before: str) -> list[Finding]:
    columns = {r[1] for r in conn.execute("PRAGMA table_info(media)")}
    touched = "COALESCE(touched_at, created_at)" if "touched_at" in columns else "created_at"
    found: list[Finding] = []
    for sha, stored, actual, created in conn.execute(
        f"SELECT sha256, ref_count, refs, touched FROM"
        f" (SELECT md.*, {_reference_count_sql(conn)} AS refs, {touched} AS touched"
        f"  FROM media md)"
        f" WHERE ref_count != refs OR refs = 0"
    ):
        data = {"ref_count": stored, "references": actual}
        if actual == 0:
            if created < created_before:
                detail = "Stored media that nothing refers to."
                found.append(Finding("media_unreferenced", sha, None, detail, data))
        else:
            detail = f"Its reference count is {stored}, but {actual} message part(s) use it."
            found.append(Finding("media_count_mismatch", sha, None, detail, data))
    return found


def quick_check(db: Database) -> list[str]:
    """SQLite's own check of the file's pages and indexes (``["ok"]`` when
    sound): a damaged page shows here even where no scan above reads it."""
    return [str(row[0]) for row in db.execute("PRAGMA quick_check(20)")]


def referenced_media(db: Database) -> dict[str, str]:
    """Media hashes that messages refer to, with one file name each (for
    people: which attachment a missing file was)."""
    return {
        str(sha): str(name or "")
        for sha, name in db.execute(
            "SELECT media_sha256, MIN(name) FROM message_parts"
            " WHERE media_sha256 IS NOT NULL GROUP BY media_sha256"
        )
    }


def known_media(db: Database, hashes: list[str]) -> set[str]:
    """Which of ``hashes`` have a media row."""
    return _present(db.conn, "media", "sha256", hashes)


def used_media(db: Database, hashes: list[str]) -> set[str]:
    """Which of ``hashes`` an attachment or a composer's chip refers to (with
    a media row or without one)."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    used: set[str] = set()
    for table, column in MEDIA_REFERENCES:
        if table in tables:
            used |= _present(db.conn, table, column, hashes)
    return used


def _present(conn: sqlite3.Connection, table: str, column: str, hashes: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(hashes), 500):
        chunk = hashes[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(
            r[0]
            for r in conn.execute(
                f"SELECT DISTINCT {column} FROM {table} WHERE {column} IN ({marks})", chunk
            )
        )
    return found


def apply_repairs(db: Database, repairs: Repairs) -> list[str]:
    """Apply every repair in one transaction; return the media hashes whose rows
    were deleted (their files go after the commit)."""
    with write(db) as conn:
        workspace = conn.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()[0]
        for tid in repairs.recreate_threads:
            _recreate_thread(conn, tid, workspace)
        conn.executemany(
            "UPDATE threads SET workspace_id = ? WHERE id = ?"
            " AND workspace_id NOT IN (SELECT id FROM workspaces)",
            [(workspace, tid) for tid in repairs.rehome_threads],
        )
        conn.executemany(
            "UPDATE messages SET parent_id = NULL WHERE id = ?",
            [(mid,) for mid in repairs.detach_messages],
        )
        conn.executemany(
            "DELETE FROM threads WHERE id = ?"
            " AND NOT EXISTS (SELECT 1 FROM messages WHERE thread_id = ?)",
            [(tid, tid) for tid in repairs.delete_empty_threads],
        )
        for tid in dict.fromkeys([*repairs.recreate_threads, *repairs.repair_leaves]):
            _repair_leaf(conn, tid)
        now = utc_now()
        conn.executemany(
            "UPDATE messages SET status = 'stopped', owner = NULL, updated_at = ?,"
            " error_json = COALESCE(error_json, ?) WHERE id = ? AND status = 'streaming'",
            [(now, rows.dumps(_INTERRUPTED), mid) for mid in repairs.stop_streaming],
        )
        for sha, size in repairs.recreate_media.items():
            _recreate_media(conn, sha, size, now)
        deleted = [sha for sha in repairs.recount_media if _recount(conn, sha)]
    return deleted


def _recreate_media(conn: sqlite3.Connection, sha: str, size: int, now: str) -> None:
    """A media row again for a file that attachments use (its row lost to a
    damaged page): its type from those attachments, its count from them."""
    mime = conn.execute(
        "SELECT MIN(mime) FROM message_parts WHERE media_sha256 = ? AND mime != ''", [sha]
    ).fetchone()[0]
    conn.execute(
        "INSERT OR IGNORE INTO media(sha256, mime, size, ref_count, created_at)"
        " VALUES (?, ?, ?, 0, ?)",
        [sha, mime or "application/octet-stream", size, now],
    )
    refs = conn.execute(
        f"SELECT {_reference_count_sql(conn)} FROM media md WHERE md.sha256 = ?", [sha]
    ).fetchone()[0]
    conn.execute("UPDATE media SET ref_count = ? WHERE sha256 = ?", [refs, sha])


def _recreate_thread(conn: sqlite3.Connection, thread_id: str, workspace: str) -> None:
    first, last = conn.execute(
        "SELECT MIN(created_at), MAX(updated_at) FROM messages WHERE thread_id = ?", [thread_id]
    ).fetchone()
    if first is None or conn.execute("SELECT 1 FROM threads WHERE id = ?", [thread_id]).fetchone():
        return
    conn.execute(
        "INSERT INTO threads (id, title, workspace_id, source, created_at, updated_at)"
        " VALUES (?, ?, ?, 'doctor', ?, ?)",
        [thread_id, RECOVERED_TITLE, workspace, first, last],
    )


def _repair_leaf(conn: sqlite3.Connection, thread_id: str) -> None:
    """Point the thread at its newest message reachable through live messages."""
    row = conn.execute(
        "WITH RECURSIVE live(id, seq) AS ("
        " SELECT id, seq FROM messages"
        "  WHERE thread_id = ?1 AND parent_id IS NULL AND deleted_at IS NULL"
        " UNION SELECT m.id, m.seq FROM messages m JOIN live ON m.parent_id = live.id"
        "  WHERE m.thread_id = ?1 AND m.deleted_at IS NULL)"
        " SELECT id FROM live ORDER BY seq DESC LIMIT 1",
        [thread_id],
    ).fetchone()
    conn.execute(
        "UPDATE threads SET active_leaf_id = ? WHERE id = ?", [row[0] if row else None, thread_id]
    )


def _recount(conn: sqlite3.Connection, sha: str) -> bool:
    """Set a media row's count to its real references; delete it when there are
    none. True when the row was deleted."""
    actual = conn.execute(
        f"SELECT {_reference_count_sql(conn)} FROM media md WHERE md.sha256 = ?", [sha]
    ).fetchone()
    if actual is None:
        return False
    if actual[0] == 0:
        conn.execute("DELETE FROM media WHERE sha256 = ?", [sha])
        return True
    conn.execute("UPDATE media SET ref_count = ? WHERE sha256 = ?", [actual[0], sha])
    return False
