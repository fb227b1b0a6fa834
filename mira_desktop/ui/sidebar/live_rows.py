"""``LiveThreadRows``: the loaded rows of the sidebar's thread list and their
live changes, the base of :class:`~.thread_list_model.ThreadListModel` (which
adds the paging). A new thread, an answer moving a thread to the top, a pin, an
archive or deletion, a background stream are applied in place with
``upsert_thread``/``set_pins``/``remove_thread``/``set_running``: a
:class:`ThreadFilter` says whether a thread still belongs and where the database
would list it; a thread that now sorts after the loaded rows leaves them for its
page to bring. ``_apply_rows`` makes the rows a list read again after changes
made elsewhere (``row_sync``)."""

from __future__ import annotations

import logging
import operator
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt

from mira_desktop.core.models import Thread
from mira_desktop.ui.sidebar.row_sync import Insert, Remove, steps
from mira_desktop.ui.sidebar.thread_filter import ThreadFilter, same_place

log = logging.getLogger(__name__)

_thread_id = operator.attrgetter("id")


class LiveThreadRows(QAbstractListModel):
    IdRole = Qt.ItemDataRole.UserRole + 1
    TitleRole = Qt.ItemDataRole.UserRole + 2
    UpdatedRole = Qt.ItemDataRole.UserRole + 3
    PinnedRole = Qt.ItemDataRole.UserRole + 4
    RunningRole = Qt.ItemDataRole.UserRole + 5
    ThreadRole = Qt.ItemDataRole.UserRole + 6

    def __init__(self, thread_filter: ThreadFilter, parent: Any = None) -> None:
        super().__init__(parent)
        self._filter = thread_filter
        self._rows: list[Thread] = []
        self._ids: set[str] = set()
        self._running: set[str] = set()
        self._total: int | None = None  # threads on the server, when known
        self._exhausted = False  # the last page came: every row is loaded
        self._changes = 0  # live changes applied (a count or a sync asked meanwhile)

    def threads(self) -> list[Thread]:
        """The loaded rows in order (read-only: a view of the model's own list)."""
        return self._rows

    def is_running(self, thread_id: str) -> bool:
        return thread_id in self._running

    def thread_at(self, row: int) -> Thread | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, thread_id: str) -> int:
        if thread_id not in self._ids:
            return -1
        # searched in C (~25 ns a row; a Python loop took ~10 ms at 100,000)
        try:
            return operator.indexOf(map(_thread_id, self._rows), thread_id)
        except ValueError:
            return -1

    def upsert_thread(self, thread: Thread) -> None:
        """Insert or update ``thread`` where the list's order puts it; a thread the
        filter no longer accepts leaves the list."""
        self._changes += 1
        if not self._filter.accepts(thread):
            self.remove_thread(thread.id)
            return
        row = self.row_of(thread.id)
        if row >= 0 and same_place(self._rows[row], thread):
            self._rows[row] = thread
            index = self.index(row)
            self.dataChanged.emit(index, index)
            return
        target = self._position(thread, skip=row)
        if target is None:  # it sorts after the loaded rows: its page brings it
            if row >= 0:
                self._take(row)
            elif self._total is not None:
                self._total += 1
            return
        if row >= 0:
            self._move(row, target, thread)
            return
        self._insert(target, thread)
        if self._total is not None:
            self._total += 1

    def set_pins(self, pinned: list[Thread]) -> None:
        """Replace the block of pinned threads at the top (after a reorder)."""
        pinned = [t for t in pinned if t.pinned and self._filter.accepts(t)]
        count = 0
        while count < len(self._rows) and self._rows[count].pinned:
            count += 1
        if count:
            self.beginRemoveRows(QModelIndex(), 0, count - 1)
            removed = self._rows[:count]
            del self._rows[:count]
            self._ids.difference_update(t.id for t in removed)
            self.endRemoveRows()
        for thread in pinned:  # a pin that was further down moves up
            if thread.id in self._ids:
                self._take(self.row_of(thread.id))
                count += 1
        if pinned:
            self.beginInsertRows(QModelIndex(), 0, len(pinned) - 1)
            self._rows[0:0] = pinned
            self._ids.update(t.id for t in pinned)
            self.endInsertRows()

    def remove_thread(self, thread_id: str) -> None:
        self._changes += 1
        row = self.row_of(thread_id)
        self._running.discard(thread_id)
        if row < 0:
            return
        self._take(row)
        if self._total is not None:
            self._total = max(0, self._total - 1)

    def set_running(self, thread_id: str, running: bool) -> None:
        """Mark a thread as streaming in the background (the delegate shows a spinner)."""
        if running:
            self._running.add(thread_id)
        else:
            self._running.discard(thread_id)
        row = self.row_of(thread_id)
        if row >= 0:
            index = self.index(row)
            self.dataChanged.emit(index, index, [self.RunningRole])

    def running_ids(self) -> frozenset[str]:
        return frozenset(self._running)

    def _apply_rows(self, threads: list[Thread]) -> None:
        """Make the rows ``threads`` by the steps of ``row_sync.steps``."""
        for step in steps(self._rows, threads):
            if isinstance(step, Remove):
                self.beginRemoveRows(QModelIndex(), step.first, step.last)
                self._ids.difference_update(t.id for t in self._rows[step.first : step.last + 1])
                del self._rows[step.first : step.last + 1]
                self.endRemoveRows()
            elif isinstance(step, Insert):
                self.beginInsertRows(QModelIndex(), step.row, step.row + len(step.threads) - 1)
                self._rows[step.row : step.row] = step.threads
                self._ids.update(t.id for t in step.threads)
                self.endInsertRows()
            else:
                self._rows[step.row] = step.thread
                self.dataChanged.emit(self.index(step.row), self.index(step.row))

    def _insert(self, row: int, thread: Thread) -> None:
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.insert(row, thread)
        self._ids.add(thread.id)
        self.endInsertRows()

    def _move(self, row: int, target: int, thread: Thread) -> None:
        """The thread of ``row``, updated, to ``target`` (a row of the list
        without it): one move, not a removal and an insertion, so the grouped
        model above rebuilds once."""
        if target == row:  # its place is where it is
            self._rows[row] = thread
            index = self.index(row)
            self.dataChanged.emit(index, index)
            return
        # Qt counts the destination in the rows before the move
        self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), target + (target > row))
        del self._rows[row]
        self._rows.insert(target, thread)
        self.endMoveRows()

    def _take(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        thread = self._rows.pop(row)
        self._ids.discard(thread.id)
        self.endRemoveRows()

    def _position(self, thread: Thread, skip: int = -1) -> int | None:
        """``ThreadFilter.position`` in the loaded rows; None (its page brings
        it) while more pages remain on the server."""
        loaded_all = self._exhausted or (self._total is not None and len(self._rows) >= self._total)
        return self._filter.position(self._rows, thread, skip, loaded_all=loaded_all)

    def thread_filter(self) -> ThreadFilter:
        return self._filter
