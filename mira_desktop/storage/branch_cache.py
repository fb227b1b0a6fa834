"""``BranchCache``: a thread's active branch, read once while the database does
not change.

A send, the context meter before and after it, a title and the thread view
each read the whole active branch; in a 5,000-message thread that is ~50 ms
of the database thread every time (four or five reads a turn). The branch is
kept with the database's change marks — the connection's ``total_changes``
(every row this connection inserted, updated or deleted, triggers included)
and ``PRAGMA data_version`` (a commit by any other connection, in this
process or another) — and read again as soon as either moves. Any write
anywhere drops it; a read with nothing written in between returns it.

Only the database thread uses it (like every repository call), so it needs
no lock. Callers get a list of their own; the messages are frozen."""

from __future__ import annotations

from collections import OrderedDict

from ..core.models import Message
from . import messages_repo as messages
from .connection import Database

_Marks = tuple[int, int]


class BranchCache:
    def __init__(self, size: int = 4) -> None:
        """``size``: threads kept (the open one, and a few just left)."""
        self._size = size
        self._kept: OrderedDict[str, tuple[_Marks, tuple[Message, ...]]] = OrderedDict()

    def active_branch(self, db: Database, thread_id: str) -> list[Message]:
        """``messages_repo.active_branch``, from the cache when nothing changed."""
        marks = (db.conn.total_changes, db.execute("PRAGMA data_version").fetchone()[0])
        kept = self._kept.get(thread_id)
        if kept is not None and kept[0] == marks:
            self._kept.move_to_end(thread_id)
            return list(kept[1])
        branch = messages.active_branch(db, thread_id)
        self._kept[thread_id] = (marks, tuple(branch))
        self._kept.move_to_end(thread_id)
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)
        return branch
