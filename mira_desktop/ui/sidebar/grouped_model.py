"""``GroupedThreadModel``: what the sidebar's list view shows — the lazy
:class:`ThreadListModel` flattened with a header row before each date group
(Pinned, Today, Yesterday, …, one per month), groups collapsible.

Groups are computed per loaded row by an injected ``grouping(thread)`` (the
history service's clock and zone), so the list stays lazy: a page that arrives
only appends rows (and the headers of groups it starts); ``canFetchMore`` and
``fetchMore`` pass through to the source. Any other change of the source (a
thread moved to the top, removed, the pinned block reordered) builds the rows
around the change again (:class:`~.grouped_rows.GroupedRows`, which keeps the
rows) and applies the difference as one removal and one insertion around the
common prefix and suffix, so rows outside the change keep their place.

It also holds the batch-mode tick marks (:class:`~.batch.BatchChecks`: one
by one, or "all" minus the unticked, covering pages not loaded yet), the workspace colours shown in
the "All" list, and the drag-and-drop of thread ids (reordering pins here;
moving threads onto a workspace in :mod:`workspace_list`). Renames and pin
orders are *requested* by signal; the service's answer comes back through the
source model."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from mira_desktop.core.history import ThreadGroup
from mira_desktop.core.models import Thread
from mira_desktop.services.timeframes import CLOCK_GROUP_KEYS
from mira_desktop.ui.plain_text import plain_tooltip
from mira_desktop.ui.sidebar.batch import (
    MIME_TYPE,
    BatchChecks,
    BatchSelection,
    decode_ids,
    encode_ids,
)
from mira_desktop.ui.sidebar.group_labels import group_label
from mira_desktop.ui.sidebar.grouped_rows import HEADER, THREAD, Change, GroupedRows, Key
from mira_desktop.ui.sidebar.row_sync import runs, staying
from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel
from mira_desktop.ui.sidebar.thread_row import (
    CHECKED_ROLE,
    COLOR_ROLE,
    EDIT_ROLE,
    ID_ROLE,
    ROW_FIELDS,
    ROW_FLAGS,
    ROW_ROLE,
    THREAD_ROLE,
    TOOLTIP_ROLE,
    ThreadRow,
)

log = logging.getLogger(__name__)

Grouping = Callable[[Thread], ThreadGroup | None]
_Index = QModelIndex | QPersistentModelIndex


def _key(group: ThreadGroup | None) -> str | None:
    return group.key if group is not None else None


class GroupedThreadModel(QAbstractListModel):
    KindRole = Qt.ItemDataRole.UserRole + 20  # "header" | "thread"
    GroupKeyRole = Qt.ItemDataRole.UserRole + 21
    CollapsedRole = Qt.ItemDataRole.UserRole + 22
    CheckedRole = CHECKED_ROLE  # None outside batch mode
    ColorRole = COLOR_ROLE  # workspace colour in the "All" list
    RowRole = ROW_ROLE  # a thread's ThreadRow (None on a header)

    group_toggled = Signal(str, bool)  # group key, now collapsed
    rename_requested = Signal(str, str)  # thread id, new title
    pins_reorder_requested = Signal(list)  # pinned thread ids in the new order
    checked_changed = Signal()
    structure_changed = Signal()  # rows came or went (the sidebar re-selects)

    def __init__(
        self, source: ThreadListModel, grouping: Grouping | None = None, parent: Any = None
    ) -> None:
        super().__init__(parent)
        self._src = source
        self._grouping = grouping
        self._cache: dict[tuple[str, str, bool], ThreadGroup | None] = {}
        self._clocked: set[tuple[str, str, bool]] = set()  # cached in a group of the clock
        self._collapsed: set[str] = set()
        self._rows = GroupedRows(self._group, self._collapsed)
        self._entries: list[Key] = []  # the rows shown (during a change: on the way)
        self._changing = False
        self._checks = BatchChecks()
        self._colors: dict[str, str] = {}
        source.rowsInserted.connect(self._on_inserted)
        source.rowsRemoved.connect(self._sync_changes)
        source.rowsMoved.connect(self._sync_changes)
        source.modelReset.connect(self._reset)
        source.dataChanged.connect(self._on_data_changed)
        self._reset()

    # ---- Qt model interface -------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt signature)
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._entries):
            return None
        kind, key = self._entries[index.row()]
        if kind == HEADER:
            return self._header_data(key, role)
        thread = self._rows.threads.get(key)
        if thread is None:  # a row on its way out (asked while it is removed)
            return {self.KindRole: "thread", ID_ROLE: key}.get(role)
        return self._thread_data(thread, role)

    def _header_data(self, key: str, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, ThreadListModel.TitleRole):
            group = self._rows.groups.get(key)  # None: a header on its way out
            return group_label(group) if group is not None else None
        return {
            self.KindRole: "header",
            self.GroupKeyRole: key,
            self.CollapsedRole: key in self._collapsed,
        }.get(role)

    def _thread_data(self, thread: Thread, role: int) -> Any:
        if role == ROW_ROLE:
            return self.row_info(thread)
        field = ROW_FIELDS.get(role)
        if field is not None:  # one of the painted values alone
            return self.row_info(thread)[field]
        if role == EDIT_ROLE:
            return thread.title
        if role == TOOLTIP_ROLE:  # a title the model wrote: as written, never as markup
            return plain_tooltip(thread.title) or None
        return {self.KindRole: "thread", ID_ROLE: thread.id, THREAD_ROLE: thread}.get(role)

    def row_info(self, thread: Thread) -> ThreadRow:
        """What the delegate paints for a thread, in one call (``RowRole``)."""
        return ThreadRow(
            thread.title or self.tr("New chat"),
            thread.deleted_at if self._src.thread_filter().view == "trash" else thread.updated_at,
            thread.pinned,
            self._src.is_running(thread.id),
            self.is_checked(thread.id) if self._checks.on else None,
            self._colors.get(thread.workspace_id),
        )

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        thread = self.thread_at(index.row()) if index.isValid() else None
        if thread is None or role != Qt.ItemDataRole.EditRole:
            return False
        title = " ".join(str(value or "").split())
        if title and title != thread.title:
            self.rename_requested.emit(thread.id, title)
        return True

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return ROW_FLAGS["drop"]
        kind, key = self._entries[index.row()]
        if kind == HEADER:
            return ROW_FLAGS["pinned header" if key == "pinned" else "header"]
        editable = self._src.thread_filter().view != "trash" and not self._checks.on
        return ROW_FLAGS[editable, self._rows.threads[key].pinned]

    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self._src.canFetchMore()

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008
        if not parent.isValid():
            self._src.fetchMore()

    # ---- drag and drop --------------------------------------------------------
    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, indexes: Iterable[QModelIndex]) -> QMimeData:
        ids = [str(i.data(ThreadListModel.IdRole)) for i in indexes if self.thread_at(i.row())]
        return encode_ids(ids)

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def canDropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index
    ) -> bool:
        return self.pin_order_after_drop(decode_ids(data), row, parent) is not None

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index
    ) -> bool:
        order = self.pin_order_after_drop(decode_ids(data), row, parent)
        if order is None:
            return False
        self.pins_reorder_requested.emit(order)
        return True

    def pin_order_after_drop(self, ids: list[str], row: int, parent: _Index) -> list[str] | None:
        """The pinned order after dropping ``ids`` at ``row`` (between rows) or
        onto ``parent`` (a pinned row: takes its place); None if not a pin move."""
        threads = self._rows.threads
        pins = [key for kind, key in self._entries if kind == THREAD and threads[key].pinned]
        if not ids or any(i not in pins for i in ids):
            return None
        if parent.isValid():
            target = self.thread_at(parent.row())
            if target is None or not target.pinned:
                return None
            at = pins.index(target.id) + (1 if pins.index(ids[0]) < pins.index(target.id) else 0)
        else:
            first = self._rows.row_of.get((THREAD, pins[0]), 0)
            at = row - first
            if not 0 <= at <= len(pins):
                return None
        kept = [p for p in pins[:at] if p not in ids]
        order = kept + ids + [p for p in pins[at:] if p not in ids]
        return order if order != pins else None

    # ---- public API ---------------------------------------------------------
    def source(self) -> ThreadListModel:
        return self._src

    def is_changing(self) -> bool:
        """True while rows are being removed or inserted (the selection moves)."""
        return self._changing

    def set_grouping(self, grouping: Grouping | None) -> None:
        self._grouping = grouping
        self.regroup()

    def regroup(self) -> None:
        """Compute every group again (the view changed, the clock went back or
        into another year)."""
        self._cache.clear()
        self._clocked.clear()
        self._sync()

    def day_passed(self) -> None:
        """The clock passed midnight (forward, in the same year): only the
        threads of the groups that move with the clock (Today … Previous 30
        days, listed first) are grouped again, and only the rows whose group
        changed are moved; the month groups below stay as they are."""
        rows, threads = self._rows, self._src.threads()
        if self._grouping is None or rows.thread_count() != len(threads):
            self.regroup()
            return
        dirty = 1 + max(
            (rows.last_row(k) for k in rows.groups if k in CLOCK_GROUP_KEYS), default=-1
        )
        old_last = _key(self._group(threads[dirty - 1])) if dirty else None
        for key in self._clocked:
            del self._cache[key]
        self._clocked.clear()
        self._apply(rows.regroup(threads, dirty, old_last))

    def set_collapsed(self, keys: Iterable[str]) -> None:
        self._collapsed.clear()
        self._collapsed.update(keys)
        self._sync()

    def collapsed(self) -> frozenset[str]:
        return frozenset(self._collapsed)

    def toggle_group(self, key: str) -> bool:
        """Collapse or expand a group; returns True when it is now collapsed."""
        collapsed = key not in self._collapsed
        if collapsed:
            self._collapsed.add(key)
        else:
            self._collapsed.discard(key)
        self._sync()
        self.group_toggled.emit(key, collapsed)
        return collapsed

    def set_workspace_colors(self, colors: dict[str, str]) -> None:
        self._colors = dict(colors)
        if self._entries:
            self.dataChanged.emit(self.index(0), self.index(len(self._entries) - 1))

    def thread_at(self, row: int) -> Thread | None:
        if not 0 <= row < len(self._entries) or self._entries[row][0] != THREAD:
            return None
        return self._rows.threads[self._entries[row][1]]

    def row_of(self, thread_id: str) -> int:
        return self._rows.row_of.get((THREAD, thread_id), -1)

    def header_row(self, key: str) -> int:
        return self._rows.row_of.get((HEADER, key), -1)

    def group_keys(self) -> list[str]:
        return [key for kind, key in self._entries if kind == HEADER]

    def pinned_ids(self) -> list[str]:
        return [t.id for t in self._src.threads() if t.pinned]

    # ---- batch mode -----------------------------------------------------------
    def set_batch_mode(self, on: bool) -> None:
        self._checks.reset(on=on)
        self._all_changed()

    def batch_mode(self) -> bool:
        return self._checks.on

    def is_checked(self, thread_id: str) -> bool:
        return self._checks.is_checked(thread_id)

    def set_checked(self, thread_id: str, checked: bool) -> None:
        self._checks.set_checked(thread_id, checked)
        row = self.row_of(thread_id)
        if row >= 0:
            self.dataChanged.emit(self.index(row), self.index(row), [self.CheckedRole])
        self.checked_changed.emit()

    def set_all_checked(self, checked: bool) -> None:
        self._checks.reset(everything=checked)
        self._all_changed()

    def all_checked(self) -> bool:
        return self._checks.all_checked()

    def checked_ids(self) -> list[str]:
        """Ticked threads among the loaded rows, in list order."""
        return [t.id for t in self._src.threads() if self.is_checked(t.id)]

    def checked_count(self) -> int:
        return self._checks.count(self._src.total() or len(self._src.threads()))

    def batch_selection(self) -> BatchSelection:
        return self._checks.selection(t.id for t in self._src.threads())

    def _all_changed(self) -> None:
        if self._entries:
            self.dataChanged.emit(self.index(0), self.index(len(self._entries) - 1))
        self.checked_changed.emit()

    # ---- following the source ---------------------------------------------------
    def _group(self, thread: Thread) -> ThreadGroup | None:
        if self._grouping is None:
            return None
        key = (thread.id, thread.updated_at, thread.pinned)
        if key not in self._cache:
            group = self._cache[key] = self._grouping(thread)
            if group is not None and group.key in CLOCK_GROUP_KEYS:
                self._clocked.add(key)
        return self._cache[key]

    def _reset(self) -> None:
        self.beginResetModel()
        self._changing = True
        self._rows.rebuild(self._src.threads())
        self._entries = self._rows.entries
        self._changing = False
        self.endResetModel()
        self.structure_changed.emit()

    def _on_inserted(self, _parent: QModelIndex, first: int, last: int) -> None:
        threads = self._src.threads()
        count = self._rows.thread_count()
        if first != count or len(threads) != count + (last - first + 1):
            self._sync_changes()
            return
        added = self._rows.build_after(threads[first:])
        if added:
            start = len(self._entries)
            self._changing = True
            self.beginInsertRows(QModelIndex(), start, start + len(added) - 1)
            self._rows.extend(added)
            self._entries = self._rows.entries
            self.endInsertRows()
            self._changing = False
            self.structure_changed.emit()  # the open thread's row may have arrived

    def _sync(self, *_args: object) -> None:
        """Every row built again (groups, clock or collapsed groups changed)."""
        self._apply(self._rows.rebuild(self._src.threads()))

    def _sync_changes(self, *_args: object) -> None:
        """The rows after a live change of the source: the rows around the change
        built again (:meth:`GroupedRows.update`)."""
        self._apply(self._rows.update(self._src.threads()))

    def _apply(self, change: Change) -> None:
        """Show ``change`` between the rows kept at the start and at the end as
        the rows that leave and the rows that come (the rows between that keep
        their order stay where they are: a regroup at midnight moves headers
        past the threads, not the threads)."""
        old, new, prefix, suffix = change.old, change.new, change.prefix, change.suffix
        before, after = old[prefix : len(old) - suffix], new[prefix : len(new) - suffix]
        self._changing = True
        try:
            entries = list(old)
            self._entries = entries
            keep = staying(before, after)
            for first, last in runs([not k for k in keep]):
                self.beginRemoveRows(QModelIndex(), prefix + first, prefix + last)
                del entries[prefix + first : prefix + last + 1]
                self.endRemoveRows()
            held = {key for key, k in zip(before, keep, strict=True) if k}
            at = 0
            while at < len(after):
                if after[at] in held:
                    at += 1
                    continue
                end = at
                while end < len(after) and after[end] not in held:
                    end += 1
                self.beginInsertRows(QModelIndex(), prefix + at, prefix + end - 1)
                entries[prefix + at : prefix + at] = after[at:end]
                self.endInsertRows()
                at = end
            self._entries = new
        finally:
            self._changing = False
        self.structure_changed.emit()

    def _on_data_changed(
        self, top: QModelIndex, bottom: QModelIndex, roles: Sequence[int] = ()
    ) -> None:
        threads = self._src.threads()
        first = top.row()
        changed = threads[first : bottom.row() + 1]
        if self._grouping is not None and any(
            (old := self._rows.threads.get(t.id)) is not None
            and _key(self._group(old)) != _key(self._group(t))
            for t in changed
        ):
            self._sync_changes()  # a thread changed group where it stands (Yesterday → Today)
            return
        for row, thread in enumerate(changed, first):
            self._rows.replaced(row, thread)
            mine = self.row_of(thread.id)
            if mine >= 0:
                self.dataChanged.emit(self.index(mine), self.index(mine), list(roles))
