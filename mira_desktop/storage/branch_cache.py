"""``BranchCache``: a thread's active branch, read once while the database does
not change, and kept up to date through the writes of a turn.

A send, the context meter before and after it, a title and the thread view
each read the whole active branch; in a 5,000-message thread that is ~50 ms
of the database thread every time (four or five reads a turn). The branch is
kept with the database's change marks — the connection's ``total_changes``
(every row this connection inserted, updated or deleted, triggers included)
and ``PRAGMA data_version`` (a commit by any other connection, in this
process or another) — and read again as soon as either moves.

The writes of a turn go through :meth:`BranchCache.appending` (a new message
made the active leaf: the question, the answer's draft) and
:meth:`BranchCache.updating` (the streaming answer written again). When the
branch kept was current just before such a write and the write extends or
rewrites it as it says, the written message is read back alone (one row) and
put in its place, under the marks after the write; otherwise the branch is
simply read again next time. Writes beside the branches (a setting, a
thread's model: :meth:`BranchCache.beside`) leave them kept. Any other write
drops them.

Only the database thread uses it (like every repository call), so it needs
no lock. Callers get a list of their own; the messages are frozen."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from ..core.models import Message
from . import messages_repo as messages
from .connection import Database

_Marks = tuple[int, int]
_Kept = tuple[_Marks, tuple[Message, ...]]
T = TypeVar("T")


def _marks(db: Database) -> _Marks:
    return (db.conn.total_changes, db.execute("PRAGMA data_version").fetchone()[0])


class BranchCache:
    def __init__(self, size: int = 4) -> None:
        """``size``: threads kept (the open one, and a few just left)."""
        self._size = size
        self._kept: OrderedDict[str, _Kept] = OrderedDict()

    def active_branch(self, db: Database, thread_id: str) -> list[Message]:
        """``messages_repo.active_branch``, from the cache when nothing changed."""
        marks = _marks(db)
        kept = self._kept.get(thread_id)
        if kept is not None and kept[0] == marks:
            self._kept.move_to_end(thread_id)
            return list(kept[1])
        branch = messages.active_branch(db, thread_id)
        self._keep(thread_id, marks, tuple(branch))
        return branch

    def appending(self, db: Database, message: Message, write: Callable[[Database], T]) -> T:
        """Run ``write(db)``, which adds ``message`` to its thread and makes it
        the active leaf; the kept branch of the thread grows by the message
        when it was current and ended at the message's parent."""
        before = _marks(db)
        kept = self._current(message.thread_id, before)
        if kept is not None:
            leaf = db.execute(
                "SELECT active_leaf_id FROM threads WHERE id = ?", [message.thread_id]
            ).fetchone()
            if leaf is None or leaf[0] != message.parent_id:
                kept = None
        result = write(db)
        if kept is not None:
            self._after_write(db, message.thread_id, before, kept, message.id)
        return result

    def updating(self, db: Database, message_id: str, write: Callable[[Database], T]) -> T:
        """Run ``write(db)``, which rewrites the message ``message_id`` (its
        text, status, usage) and nothing else of its thread's branch; the kept
        branch ending with that message takes it as written."""
        before = _marks(db)
        thread_id = next(
            (
                key
                for key, (marks, branch) in self._kept.items()
                if marks == before and branch and branch[-1].id == message_id
            ),
            None,
        )
        result = write(db)
        if thread_id is not None:
            self._after_write(db, thread_id, before, self._kept[thread_id][1][:-1], message_id)
        return result

    def beside(self, db: Database, write: Callable[[Database], T]) -> T:
        """Run ``write(db)``, which changes nothing a branch is read from (a
        setting; a thread's title, model or flags, not its active leaf): the
        branches kept stay kept."""
        before = _marks(db)
        current = [key for key, (marks, _) in self._kept.items() if marks == before]
        result = write(db)
        after = _marks(db)
        if after[1] == before[1]:
            for key in current:
                self._kept[key] = (after, self._kept[key][1])
        return result

    def _current(self, thread_id: str, marks: _Marks) -> tuple[Message, ...] | None:
        kept = self._kept.get(thread_id)
        return kept[1] if kept is not None and kept[0] == marks else None

    def _after_write(
        self,
        db: Database,
        thread_id: str,
        before: _Marks,
        kept: tuple[Message, ...],
        written: str,
    ) -> None:
        """Keep ``kept`` followed by the message ``written``, read back now,
        unless another connection committed meanwhile."""
        after = _marks(db)
        if after[1] != before[1]:
            self._kept.pop(thread_id, None)
            return
        read = messages.get_message(db, written)
        if read.deleted_at is not None:  # not on the branch as active_branch reads it
            self._kept.pop(thread_id, None)
            return
        self._keep(thread_id, after, (*kept, read))

    def _keep(self, thread_id: str, marks: _Marks, branch: tuple[Message, ...]) -> None:
        self._kept[thread_id] = (marks, branch)
        self._kept.move_to_end(thread_id)
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)
