"""SQL for the shape of the conversation tree (PRODUCT.md §5): the live path to a
message, its versions (siblings), switching the thread's active branch, and
undoing / restoring the last turn.

Rules kept here:
* Nothing is ever hard-deleted: an undone turn gets ``deleted_at`` (the trash).
  A message under a trashed one is hidden with it and comes back with it.
* Sibling order is creation order (``seq``); "the branch through a message"
  follows the most recently created live child down to a leaf.
* Each undo in a thread stamps its messages with a ``deleted_at`` no other undo
  of that thread has used, so a turn is restored as the unit it was trashed as.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable
from datetime import timedelta

from ..core.errors import ConfigError, NotFoundError, StorageError
from ..core.ids import format_time, parse_time, utc_now
from ..core.models import Message
from . import messages_repo
from .connection import Database
from .database import write

log = logging.getLogger(__name__)

_TRASHED_HINT = "Restore the turn first (undo is reversible), or pick another message."


def _parent_map(conn: sqlite3.Connection, thread_id: str) -> dict[str, tuple[str | None, bool]]:
    """``id -> (parent_id, trashed)`` of every message of a thread."""
    cursor = conn.execute(
        "SELECT id, parent_id, deleted_at IS NOT NULL FROM messages WHERE thread_id = ?",
        [thread_id],
    )
    return {row[0]: (row[1], bool(row[2])) for row in cursor}


def _path_ids(parents: dict[str, tuple[str | None, bool]], message_id: str) -> list[str]:
    """Ids from the root down to ``message_id`` (a parent outside the thread, or a
    cycle left by a damaged file, ends the walk instead of looping)."""
    path: list[str] = []
    seen: set[str] = set()
    current: str | None = message_id
    while current is not None and current in parents and current not in seen:
        seen.add(current)
        path.append(current)
        current = parents[current][0]
    path.reverse()
    return path


def require_live(conn: sqlite3.Connection, thread_id: str, message_id: str) -> list[str]:
    """The root→message path; raise when the message is not in the thread or it
    (or an ancestor) is in the trash."""
    parents = _parent_map(conn, thread_id)
    if message_id not in parents:
        raise NotFoundError(f"No message {message_id} in thread {thread_id}.")
    path = _path_ids(parents, message_id)
    if parents[path[0]][0] is not None:
        raise StorageError(
            "The conversation tree of this thread is damaged (a message's parent is missing).",
            hint="Run `mira-desktop doctor --fix` (Help → Check data in the window).",
        )
    if any(parents[m][1] for m in path):
        raise ConfigError("That message is in the trash (an undone turn).", hint=_TRASHED_HINT)
    return path


def latest_leaf(conn: sqlite3.Connection, message_id: str) -> str:
    """Follow the most recently created live child of the same thread to a leaf."""
    current, seen = message_id, {message_id}
    while True:
        row = conn.execute(
            "SELECT c.id FROM messages c JOIN messages p ON p.id = c.parent_id"
            " WHERE c.parent_id = ? AND c.thread_id = p.thread_id AND c.deleted_at IS NULL"
            " ORDER BY c.seq DESC LIMIT 1",
            [current],
        ).fetchone()
        if row is None or row[0] in seen:
            return current
        current = row[0]
        seen.add(current)


def _messages(db: Database, ids: Iterable[str]) -> list[Message]:
    return [messages_repo.get_message(db, message_id) for message_id in ids]


def live_path(db: Database, thread_id: str, message_id: str) -> list[Message]:
    """Root→``message_id`` of a live message (the history an edit or a
    regeneration of it starts from)."""
    require_live(db.conn, thread_id, message_id)
    return messages_repo.branch(db, message_id)


def branch_through(db: Database, thread_id: str, message_id: str) -> list[Message]:
    """The branch through a message: root → message → its latest descendants."""
    require_live(db.conn, thread_id, message_id)
    return messages_repo.branch(db, latest_leaf(db.conn, message_id))


def siblings(db: Database, thread_id: str, message_id: str) -> list[Message]:
    """The live versions of a message (itself included), in creation order."""
    require_live(db.conn, thread_id, message_id)
    parent = db.execute("SELECT parent_id FROM messages WHERE id = ?", [message_id]).fetchone()[0]
    ids = [
        row[0]
        for row in db.execute(
            "SELECT id FROM messages WHERE thread_id = ? AND parent_id IS ?"
            " AND deleted_at IS NULL ORDER BY seq",
            [thread_id, parent],
        )
    ]
    return _messages(db, ids)


def switch_branch(db: Database, thread_id: str, message_id: str) -> str:
    """Make the branch through ``message_id`` the thread's active branch; return
    its leaf. ``updated_at`` is left alone: looking at another version is not a
    change of the conversation (the sidebar order stays)."""
    with write(db) as conn:
        require_live(conn, thread_id, message_id)
        leaf = latest_leaf(conn, message_id)
        conn.execute("UPDATE threads SET active_leaf_id = ? WHERE id = ?", [leaf, thread_id])
    return leaf


def _active_leaf(conn: sqlite3.Connection, thread_id: str) -> str | None:
    row = conn.execute("SELECT active_leaf_id FROM threads WHERE id = ?", [thread_id]).fetchone()
    if row is None:
        raise NotFoundError(f"No thread with id {thread_id}.")
    return row[0]


def _unique_stamp(conn: sqlite3.Connection, thread_id: str) -> str:
    """Now, or 1 ms after the thread's latest trash stamp if that is not earlier."""
    now = utc_now()
    row = conn.execute(
        "SELECT MAX(deleted_at) FROM messages WHERE thread_id = ?", [thread_id]
    ).fetchone()
    if row[0] and row[0] >= now:
        return format_time(parse_time(row[0]) + timedelta(milliseconds=1))
    return now


def undo_turn(db: Database, thread_id: str) -> tuple[list[str], str | None]:
    """Trash the last turn of the active branch: its user message and everything
    after it on the branch. Returns (trashed ids, new active leaf)."""
    with write(db) as conn:
        leaf = _active_leaf(conn, thread_id)
        if leaf is None:
            raise ConfigError("There is nothing to undo in this thread.")
        path = require_live(conn, thread_id, leaf)
        roles = dict(
            conn.execute(
                f"SELECT id, role FROM messages WHERE id IN ({','.join('?' * len(path))})", path
            ).fetchall()
        )
        users = [i for i, message_id in enumerate(path) if roles[message_id] == "user"]
        start = users[-1] if users else 0
        turn = path[start:]
        stamp = _unique_stamp(conn, thread_id)
        # the turn shown, stamped as changed now: what restore brings back into view
        conn.executemany(
            "UPDATE messages SET deleted_at = ?, updated_at = ? WHERE id = ?",
            [(stamp, stamp, message_id) for message_id in turn],
        )
        # the turn's other versions below it (answers regenerated, branches
        # under them) go with it, with the same stamp: hidden under a trashed
        # message, they must not stay findable (search) or purgeable apart
        below = _live_descendants(conn, thread_id, turn[0])
        conn.executemany(
            "UPDATE messages SET deleted_at = ? WHERE id = ?",
            [(stamp, message_id) for message_id in below],
        )
        new_leaf = _leaf_after_undo(conn, thread_id, path, start)
        conn.execute(
            "UPDATE threads SET active_leaf_id = ?, updated_at = ? WHERE id = ?",
            [new_leaf, stamp, thread_id],
        )
    log.info(
        "undid a turn of thread %s (%d message(s) to the trash)",
        thread_id,
        len(turn) + len(below),
    )
    return turn, new_leaf


def _live_descendants(conn: sqlite3.Connection, thread_id: str, message_id: str) -> list[str]:
    rows = conn.execute(
        "WITH RECURSIVE below(id) AS ("
        " SELECT id FROM messages WHERE parent_id = ? AND thread_id = ?"
        " UNION SELECT m.id FROM messages m JOIN below b ON m.parent_id = b.id"
        " WHERE m.thread_id = ?)"
        " SELECT id FROM below JOIN messages USING (id) WHERE deleted_at IS NULL",
        [message_id, thread_id, thread_id],
    ).fetchall()
    return [row[0] for row in rows]


def _leaf_after_undo(
    conn: sqlite3.Connection, thread_id: str, path: list[str], start: int
) -> str | None:
    """Where the conversation stands once the turn at ``path[start]`` is
    undone: on another version of that question if it has one (an edited
    question's earlier version comes back into view, not an empty thread),
    else at the answer before it."""
    parent = path[start - 1] if start > 0 else None
    row = conn.execute(
        "SELECT id FROM messages WHERE thread_id = ? AND parent_id IS ? AND deleted_at IS NULL"
        " ORDER BY seq DESC LIMIT 1",
        [thread_id, parent],
    ).fetchone()
    if row is not None:
        return latest_leaf(conn, row[0])
    return parent


def _turn_stamp(conn: sqlite3.Connection, thread_id: str, message_id: str | None) -> str:
    if message_id is None:
        row = conn.execute(
            "SELECT MAX(deleted_at) FROM messages WHERE thread_id = ?", [thread_id]
        ).fetchone()
        if row[0] is None:
            raise ConfigError("There is no undone turn to restore in this thread.")
        return str(row[0])
    row = conn.execute(
        "SELECT deleted_at FROM messages WHERE id = ? AND thread_id = ?", [message_id, thread_id]
    ).fetchone()
    if row is None:
        raise NotFoundError(f"No message {message_id} in thread {thread_id}.")
    if row[0] is None:
        raise ConfigError("That message is not in the trash.")
    return str(row[0])


def _shown_when_undone(conn: sqlite3.Connection, group: list[str], stamp: str) -> str:
    """The last message of the turn as it was shown when undone (stamped as
    changed at the undo; other versions under it were only trashed), else the
    group's newest (children are created after their parents)."""
    marks = ",".join("?" * len(group))
    shown = [
        row[0]
        for row in conn.execute(
            f"SELECT id FROM messages WHERE id IN ({marks}) AND updated_at = ? ORDER BY seq",
            [*group, stamp],
        )
    ]
    return shown[-1] if shown else group[-1]


def restore_turn(
    db: Database, thread_id: str, message_id: str | None = None
) -> tuple[list[str], str]:
    """Bring back an undone turn (the one holding ``message_id``, or the latest),
    with any undone turns above it, and make its branch active. Returns
    (restored ids, new active leaf)."""
    with write(db) as conn:
        stamp = _turn_stamp(conn, thread_id, message_id)
        group = [
            row[0]
            for row in conn.execute(
                "SELECT id FROM messages WHERE thread_id = ? AND deleted_at = ? ORDER BY seq",
                [thread_id, stamp],
            )
        ]
        parents = _parent_map(conn, thread_id)
        bottom = _shown_when_undone(conn, group, stamp)
        if message_id is not None and message_id not in _path_ids(parents, bottom):
            bottom = message_id  # another version under the turn, asked for by name
        stamps = {stamp}
        for ancestor in _path_ids(parents, bottom):
            if parents[ancestor][1]:
                stamps.add(_turn_stamp(conn, thread_id, ancestor))
        marks = ",".join("?" * len(stamps))
        restored = [
            row[0]
            for row in conn.execute(
                f"SELECT id FROM messages WHERE thread_id = ? AND deleted_at IN ({marks})"
                " ORDER BY seq",
                [thread_id, *sorted(stamps)],
            )
        ]
        conn.execute(
            f"UPDATE messages SET deleted_at = NULL, updated_at = ?"
            f" WHERE thread_id = ? AND deleted_at IN ({marks})",
            [utc_now(), thread_id, *sorted(stamps)],
        )
        leaf = latest_leaf(conn, bottom)
        conn.execute(
            "UPDATE threads SET active_leaf_id = ?, updated_at = ? WHERE id = ?",
            [leaf, utc_now(), thread_id],
        )
    return restored, leaf
