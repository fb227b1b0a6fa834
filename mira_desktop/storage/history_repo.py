"""SQL of history management (PRODUCT.md §8): the sidebar's paged views, pins and
their order, archive, trash, purge (releasing media references in the same
transaction) and the title's source (``manual`` after a rename, else ``auto``).

Plain functions taking the database first; they run on the database thread. None
of them touches ``updated_at``: it means "last activity", and pinning, renaming
or archiving a thread is not activity (the thread keeps its place by date)."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..core.errors import ConfigError, NotFoundError
from ..core.history import HistoryCounts, ThreadView
from ..core.ids import utc_now
from ..core.models import Thread
from . import media_repo, rows
from .connection import Database
from .database import write
from .threads_repo import _THREAD_COLUMNS, get_thread

log = logging.getLogger(__name__)

_VIEW_WHERE = {
    ThreadView.ACTIVE: "deleted_at IS NULL AND archived = 0",
    ThreadView.ARCHIVED: "deleted_at IS NULL AND archived = 1",
    ThreadView.TRASH: "deleted_at IS NOT NULL",
}
_PIN_ORDER = "pin_order IS NULL, pin_order, updated_at DESC, seq DESC"


def _where(view: ThreadView, workspace_id: str | None) -> tuple[str, list[Any]]:
    where = _VIEW_WHERE[ThreadView(view)]
    if workspace_id is None:
        return where, []
    return f"workspace_id = ? AND {where}", [workspace_id]


def _threads(db: Database, sql: str, params: Sequence[Any]) -> list[Thread]:
    return [rows.thread(r) for r in db.query(sql, list(params))]


def list_threads(
    db: Database,
    offset: int = 0,
    limit: int = 100,
    workspace_id: str | None = None,
    view: ThreadView = ThreadView.ACTIVE,
) -> list[Thread]:
    """One page of a view. Active: pinned first (by pin order), then the most
    recently updated; archived: most recently updated; trash: most recently
    deleted. Each order follows an index, so deep pages stay cheap."""
    view = ThreadView(view)
    offset, limit = max(0, offset), max(0, limit)
    if view is ThreadView.ACTIVE:
        return _list_active(db, offset, limit, workspace_id)
    where, params = _where(view, workspace_id)
    order = (
        "deleted_at DESC, seq DESC"
        if view is ThreadView.TRASH
        else "pinned DESC, updated_at DESC, seq DESC"
    )
    sql = f"SELECT {_THREAD_COLUMNS} FROM threads WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?"
    return _threads(db, sql, [*params, limit, offset])


def _list_active(db: Database, offset: int, limit: int, workspace_id: str | None) -> list[Thread]:
    # Pins are few: read them all, then page through the rest in index order
    # (ordering by pin_order over the whole table would sort every thread).
    where, params = _where(ThreadView.ACTIVE, workspace_id)
    pinned = _threads(
        db,
        f"SELECT {_THREAD_COLUMNS} FROM threads WHERE {where} AND pinned = 1 ORDER BY {_PIN_ORDER}",
        params,
    )
    page = pinned[offset : offset + limit]
    remaining = limit - len(page)
    if remaining <= 0:
        return page
    skip = max(0, offset - len(pinned))
    sql = (
        f"SELECT {_THREAD_COLUMNS} FROM threads WHERE {where} AND pinned = 0"
        " ORDER BY updated_at DESC, seq DESC LIMIT ? OFFSET ?"
    )
    return page + _threads(db, sql, [*params, remaining, skip])


def count_threads(
    db: Database,
    workspace_id: str | None = None,
    view: ThreadView = ThreadView.ACTIVE,
) -> int:
    where, params = _where(ThreadView(view), workspace_id)
    return int(db.execute(f"SELECT COUNT(*) FROM threads WHERE {where}", params).fetchone()[0])


def counts(db: Database, workspace_id: str | None = None) -> HistoryCounts:
    where, params = _where(ThreadView.ACTIVE, workspace_id)
    pinned = db.execute(f"SELECT COUNT(*) FROM threads WHERE {where} AND pinned = 1", params)
    return HistoryCounts(
        active=count_threads(db, workspace_id, ThreadView.ACTIVE),
        pinned=int(pinned.fetchone()[0]),
        archived=count_threads(db, workspace_id, ThreadView.ARCHIVED),
        trash=count_threads(db, workspace_id, ThreadView.TRASH),
    )


def _state(conn: sqlite3.Connection, thread_id: str) -> tuple[int, int, str | None]:
    """(pinned, archived, deleted_at) of a thread, or NotFoundError."""
    row = conn.execute(
        "SELECT pinned, archived, deleted_at FROM threads WHERE id = ?", (thread_id,)
    ).fetchone()
    if row is None:
        raise NotFoundError(f"No thread with id {thread_id}.")
    return int(row[0]), int(row[1]), row[2]


def _refuse_trashed(deleted_at: str | None, thread_id: str) -> None:
    if deleted_at is not None:
        raise ConfigError(
            "This thread is in the trash; restore it first.",
            hint=f"mira-desktop thread restore {thread_id}",
        )


def pin(db: Database, thread_id: str) -> Thread:
    """Pin a thread at the end of the pins (so Ctrl+1…9 of the others stay put)."""
    with write(db) as conn:
        pinned, archived, deleted_at = _state(conn, thread_id)
        _refuse_trashed(deleted_at, thread_id)
        if not pinned or archived:
            last = conn.execute("SELECT MAX(pin_order) FROM threads WHERE pinned = 1").fetchone()
            order = 0 if last[0] is None else int(last[0]) + 1
            conn.execute(
                "UPDATE threads SET pinned = 1, pin_order = ?, archived = 0 WHERE id = ?",
                (order, thread_id),
            )
    return get_thread(db, thread_id)


def unpin(db: Database, thread_id: str) -> Thread:
    with write(db) as conn:
        _state(conn, thread_id)
        conn.execute("UPDATE threads SET pinned = 0, pin_order = NULL WHERE id = ?", (thread_id,))
    return get_thread(db, thread_id)


def reorder_pins(db: Database, ordered_ids: Sequence[str]) -> list[Thread]:
    """Put the given pinned threads first, in this order; pins not named keep
    their relative order after them. Returns the active pins in the new order."""
    wanted = list(dict.fromkeys(ordered_ids))
    with write(db) as conn:
        current = [
            r[0]
            for r in conn.execute(f"SELECT id FROM threads WHERE pinned = 1 ORDER BY {_PIN_ORDER}")
        ]
        unknown = [i for i in wanted if i not in set(current)]
        if unknown:
            raise ConfigError(
                f"Not pinned: {', '.join(unknown)}.", hint="Pin a thread before reordering it."
            )
        order = wanted + [i for i in current if i not in set(wanted)]
        conn.executemany(
            "UPDATE threads SET pin_order = ? WHERE id = ?",
            [(index, thread_id) for index, thread_id in enumerate(order)],
        )
    return pinned_threads(db, limit=len(order))


def pinned_threads(db: Database, limit: int = 9, workspace_id: str | None = None) -> list[Thread]:
    where, params = _where(ThreadView.ACTIVE, workspace_id)
    sql = (
        f"SELECT {_THREAD_COLUMNS} FROM threads WHERE {where} AND pinned = 1"
        f" ORDER BY {_PIN_ORDER} LIMIT ?"
    )
    return _threads(db, sql, [*params, max(0, limit)])


def set_archived(db: Database, thread_id: str, archived: bool) -> Thread:
    """Archive (which also unpins: the archive has no pins) or unarchive."""
    with write(db) as conn:
        _, _, deleted_at = _state(conn, thread_id)
        _refuse_trashed(deleted_at, thread_id)
        if archived:
            conn.execute(
                "UPDATE threads SET archived = 1, pinned = 0, pin_order = NULL WHERE id = ?",
                (thread_id,),
            )
        else:
            conn.execute("UPDATE threads SET archived = 0 WHERE id = ?", (thread_id,))
    return get_thread(db, thread_id)


def trash(db: Database, thread_ids: Sequence[str], when: str) -> int:
    """Move threads to the trash (already trashed ones keep their date)."""
    with write(db) as conn:
        for thread_id in thread_ids:
            _state(conn, thread_id)
        changed = 0
        for thread_id in thread_ids:
            changed += conn.execute(
                "UPDATE threads SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                (when, thread_id),
            ).rowcount
    return changed


def restore(db: Database, thread_id: str) -> Thread:
    """Take a thread out of the trash, into the workspace it is in (a deleted
    workspace's threads were moved to Mira BASE when it went)."""
    with write(db) as conn:
        _state(conn, thread_id)
        conn.execute("UPDATE threads SET deleted_at = NULL WHERE id = ?", (thread_id,))
    return get_thread(db, thread_id)


def purge(db: Database, thread_id: str, *, force: bool = False) -> None:
    """Delete a trashed thread for good (``force``: even when not in the trash)."""
    with write(db) as conn:
        _, _, deleted_at = _state(conn, thread_id)
        if deleted_at is None and not force:
            raise ConfigError(
                "This thread is not in the trash; nothing was deleted.",
                hint=f"Move it to the trash first (mira-desktop thread trash {thread_id}),"
                " or add --force.",
            )
        _delete_thread(conn, thread_id)


def purge_trashed(db: Database, before: str | None = None) -> int:
    """Delete every trashed thread (deleted before ``before`` when given), in one
    transaction. Returns how many went."""
    sql = "SELECT id FROM threads WHERE deleted_at IS NOT NULL"
    params: list[Any] = []
    if before is not None:
        sql += " AND deleted_at < ?"
        params.append(before)
    with write(db) as conn:
        ids = [r[0] for r in conn.execute(sql, params).fetchall()]
        for thread_id in ids:
            _delete_thread(conn, thread_id)
    return len(ids)


def _delete_thread(conn: sqlite3.Connection, thread_id: str) -> None:
    """Release the media its messages reference (the attachments' collector
    removes files nobody references), then delete the thread: its messages,
    parts and runs go with it by ON DELETE CASCADE."""
    refs = conn.execute(
        "SELECT p.media_sha256, COUNT(*) FROM message_parts p"
        " JOIN messages m ON m.id = p.message_id"
        " WHERE m.thread_id = ? AND p.media_sha256 IS NOT NULL GROUP BY p.media_sha256",
        (thread_id,),
    ).fetchall()
    now = utc_now()
    for sha256, count in refs:
        media_repo.release(conn, sha256, int(count), now)
    # Cut the parent links first: a cascade down a long reply chain would
    # recurse once per message and fail past SQLite's trigger depth (1000).
    conn.execute(
        "UPDATE messages SET parent_id = NULL WHERE thread_id = ? AND parent_id IS NOT NULL",
        (thread_id,),
    )
    conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,))


def rename(db: Database, thread_id: str, title: str) -> Thread:
    """A title the user chose: recorded as ``manual`` so auto-titling keeps off."""
    with write(db) as conn:
        _state(conn, thread_id)
        conn.execute(
            "UPDATE threads SET title = ?, title_source = 'manual' WHERE id = ?",
            (title, thread_id),
        )
    return get_thread(db, thread_id)


def set_auto_title(db: Database, thread_id: str, title: str) -> bool:
    """Set a generated title unless the user renamed the thread meanwhile."""
    with write(db) as conn:
        cursor = conn.execute(
            "UPDATE threads SET title = ? WHERE id = ? AND title_source = 'auto'",
            (title, thread_id),
        )
    return cursor.rowcount > 0


def title_source(db: Database, thread_id: str) -> str:
    row = db.execute("SELECT title_source FROM threads WHERE id = ?", [thread_id]).fetchone()
    if row is None:
        raise NotFoundError(f"No thread with id {thread_id}.")
    return str(row[0])
