"""SQL of history management (PRODUCT.md §8): the sidebar's paged views, pins and
their order, archive, trash, purge (releasing media references in the same
transaction) and the title's source (``manual`` after a rename, else ``auto``).

Plain functions taking the database first; they run on the database thread. None
of them touches ``updated_at``: it means "last activity", and pinning, renaming
or archiving a thread is not activity (the thread keeps its place by date)."""

from __future__ import annotations

import json
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
    """Put the given pinned threads in this order, in the places they hold
    among all pins; pins not named stay where they are (the sidebar names the
    pins it shows, filtered to a workspace: the hidden ones must not move).
    Returns the active pins in the new order."""
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
        order = list(current)
        places = sorted(current.index(i) for i in wanted)
        for place, thread_id in zip(places, wanted, strict=True):
            order[place] = thread_id
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


def purge(db: Database, thread_id: str, *, force: bool = False) -> list[str]:
    """Delete a trashed thread for good (``force``: even when not in the trash).
    Returns the media it released (to collect their files at once)."""
    with write(db) as conn:
        _, _, deleted_at = _state(conn, thread_id)
        if deleted_at is None and not force:
            raise ConfigError(
                "This thread is not in the trash; nothing was deleted.",
                hint=f"Move it to the trash first (mira-desktop thread trash {thread_id}),"
                " or add --force.",
            )
        return _delete_thread(conn, thread_id)


def purge_trashed(db: Database, before: str | None = None) -> tuple[int, list[str]]:
    """Delete every trashed thread (deleted before ``before`` when given), in one
    transaction. Returns how many went and the media they released."""
    sql = "SELECT id FROM threads WHERE deleted_at IS NOT NULL"
    params: list[Any] = []
    if before is not None:
        sql += " AND deleted_at < ?"
        params.append(before)
    released: set[str] = set()
    with write(db) as conn:
        ids = [r[0] for r in conn.execute(sql, params).fetchall()]
        for thread_id in ids:
            released.update(_delete_thread(conn, thread_id))
    return len(ids), sorted(released)


def purge_undone(db: Database, before: str) -> tuple[int, list[str]]:
    """Delete for good the messages of undone turns trashed before ``before``
    (threads not themselves in the trash: those go whole). A trashed message
    is deleted only with all its descendants — never one that still has a
    live message under it, which would cut that message off its thread.
    Returns how many went and the media they released."""
    with write(db) as conn:
        # the trashed messages through their own index (few), then whether
        # their threads are live — not a walk over every live thread's messages
        trashed = conn.execute(
            "SELECT id, parent_id, thread_id FROM messages INDEXED BY messages_trashed"
            " WHERE deleted_at IS NOT NULL AND deleted_at < ?",
            [before],
        ).fetchall()
        live = {
            row[0]
            for row in conn.execute(
                "SELECT id FROM threads WHERE deleted_at IS NULL AND id IN"
                " (SELECT value FROM json_each(?))",
                [json.dumps(sorted({r[2] for r in trashed}))],
            )
        }
        rows = [r for r in trashed if r[2] in live]
        candidates = {row[0] for row in rows}
        if not candidates:
            return 0, []
        threads = sorted({row[2] for row in rows})
        doomed: list[str] = []
        for thread_id in threads:
            children: dict[str | None, list[str]] = {}
            for child, parent in conn.execute(
                "SELECT id, parent_id FROM messages WHERE thread_id = ?", [thread_id]
            ):
                children.setdefault(parent, []).append(child)
            doomed += _whole_subtrees(candidates, children, thread_id, rows)
        if not doomed:
            return 0, []
        released = _release_parts(conn, doomed)
        marks_sql = ",".join("?" for _ in doomed)
        conn.execute(f"UPDATE messages SET parent_id = NULL WHERE id IN ({marks_sql})", doomed)
        conn.execute(f"DELETE FROM messages WHERE id IN ({marks_sql})", doomed)
    log.info("purged %d message(s) of turns undone long ago", len(doomed))
    return len(doomed), released


def _whole_subtrees(
    candidates: set[str],
    children: dict[str | None, list[str]],
    thread_id: str,
    rows: list[Any],
) -> list[str]:
    """The candidates of one thread whose every descendant is a candidate too."""
    ok: dict[str, bool] = {}

    def whole(message_id: str) -> bool:
        # iterative post-order: a long reply chain must not hit the recursion limit
        stack = [(message_id, False)]
        while stack:
            current, expanded = stack.pop()
            if current in ok:
                continue
            if not expanded:
                stack.append((current, True))
                stack.extend((c, False) for c in children.get(current, ()) if c not in ok)
                continue
            ok[current] = current in candidates and all(
                ok.get(c, False) for c in children.get(current, ())
            )
        return ok[message_id]

    return [row[0] for row in rows if row[2] == thread_id and whole(row[0])]


def _release_parts(conn: sqlite3.Connection, message_ids: list[str]) -> list[str]:
    """Release the media these messages' parts reference; returns the hashes
    nothing references any more."""
    refs: dict[str, int] = {}
    for start in range(0, len(message_ids), 500):
        chunk = message_ids[start : start + 500]
        marks = ",".join("?" for _ in chunk)
        for sha256, count in conn.execute(
            "SELECT media_sha256, COUNT(*) FROM message_parts"
            f" WHERE message_id IN ({marks}) AND media_sha256 IS NOT NULL GROUP BY media_sha256",
            chunk,
        ):
            refs[sha256] = refs.get(sha256, 0) + int(count)
    now = utc_now()
    return sorted(
        sha for sha, count in refs.items() if media_repo.release(conn, sha, count, now) == 0
    )


def _delete_thread(conn: sqlite3.Connection, thread_id: str) -> list[str]:
    """Release the media its messages reference (returned: the hashes nothing
    references any more, whose files can go now), then delete the thread: its
    messages, parts and runs go with it by ON DELETE CASCADE."""
    refs = conn.execute(
        "SELECT p.media_sha256, COUNT(*) FROM message_parts p"
        " JOIN messages m ON m.id = p.message_id"
        " WHERE m.thread_id = ? AND p.media_sha256 IS NOT NULL GROUP BY p.media_sha256",
        (thread_id,),
    ).fetchall()
    now = utc_now()
    released = [
        sha256 for sha256, count in refs if media_repo.release(conn, sha256, int(count), now) == 0
    ]
    # Cut the parent links first: a cascade down a long reply chain would
    # recurse once per message and fail past SQLite's trigger depth (1000).
    conn.execute(
        "UPDATE messages SET parent_id = NULL WHERE thread_id = ? AND parent_id IS NOT NULL",
        (thread_id,),
    )
    conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
    return released


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
