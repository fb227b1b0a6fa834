"""The sidebar after the clock passes midnight (``GroupedThreadModel.day_passed``):
the rows and headers are what a list built afresh shows, only the threads of
the groups that move with the clock (Today … Previous 30 days) are grouped
again, and the model moves rows — no reset, the threads below untouched."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QPersistentModelIndex, Qt
from PySide6.QtTest import QAbstractItemModelTester

from mira_desktop.core.history import ThreadGroup
from mira_desktop.core.models import Thread
from mira_desktop.services.timeframes import thread_group
from mira_desktop.ui.sidebar import ThreadListModel
from mira_desktop.ui.sidebar.grouped_model import GroupedThreadModel
from tests.support.qt_async import until

START = datetime(2026, 3, 14, 21, 30, tzinfo=UTC)


def threads_over_days(count: int, hours_apart: int) -> list[Thread]:
    """Newest first, one every ``hours_apart`` hours before START, two pinned."""
    threads = []
    for n in range(count):
        stamp = (START - timedelta(hours=n * hours_apart)).isoformat()
        threads.append(
            Thread(
                id=f"t{n:05d}",
                title=f"Thread {n}",
                workspace_id="w",
                created_at=stamp,
                updated_at=stamp,
                pinned=n in (40, 41),
            )
        )
    return [t for t in threads if t.pinned] + [t for t in threads if not t.pinned]


class Clock:
    """The history's clock and grouping, counting the threads it groups."""

    def __init__(self) -> None:
        self.now = START
        self.calls = 0

    def grouping(self, thread: Thread) -> ThreadGroup:
        self.calls += 1
        return thread_group(thread, self.now, UTC)


async def loaded(threads: list[Thread], clock: Clock) -> tuple[ThreadListModel, GroupedThreadModel]:
    async def page(after: Thread | None, limit: int) -> list[Thread]:
        await asyncio.sleep(0)
        start = 0 if after is None else threads.index(after) + 1
        return threads[start : start + limit]

    async def count() -> int:
        return len(threads)

    model = ThreadListModel(page, count, page_size=len(threads) + 1)
    grouped = GroupedThreadModel(model, clock.grouping)
    model.refresh()
    await until(lambda: model.rowCount() == len(threads))
    return model, grouped


def shown(grouped: GroupedThreadModel) -> list[tuple[object, ...]]:
    rows = []
    for row in range(grouped.rowCount()):
        index = grouped.index(row)
        kind = index.data(GroupedThreadModel.KindRole)
        key = index.data(
            ThreadListModel.IdRole if kind == "thread" else GroupedThreadModel.GroupKeyRole
        )
        rows.append((kind, key, index.data(Qt.ItemDataRole.DisplayRole)))
    return rows


class Spy:
    """The rows a model removed and inserted, and its resets."""

    def __init__(self, grouped: GroupedThreadModel) -> None:
        self.removed: list[object] = []
        self.inserted = 0
        self.resets = 0
        grouped.rowsAboutToBeRemoved.connect(
            lambda _p, first, last: self.removed.extend(
                grouped.index(r).data(GroupedThreadModel.KindRole) for r in range(first, last + 1)
            )
        )
        grouped.rowsInserted.connect(
            lambda _p, first, last: setattr(self, "inserted", self.inserted + last - first + 1)
        )
        grouped.modelAboutToBeReset.connect(lambda: setattr(self, "resets", self.resets + 1))


async def test_after_midnight_the_rows_are_those_of_a_fresh_list(qtbot) -> None:
    """600 threads, one every 5 hours (125 days), a group collapsed: day after
    day, then a jump of three weeks, the rows and headers equal a list built
    afresh on the new clock; the model checks itself (QAbstractItemModelTester)."""
    clock = Clock()
    threads = threads_over_days(600, 5)
    model, grouped = await loaded(threads, clock)
    grouped.set_collapsed({"previous_7_days"})
    QAbstractItemModelTester(grouped, QAbstractItemModelTester.FailureReportingMode.Fatal)
    spy = Spy(grouped)
    for days in (1, 1, 1, 2, 21, 1):
        clock.now += timedelta(days=days)
        grouped.day_passed()
        fresh = GroupedThreadModel(model, lambda t: thread_group(t, clock.now, UTC))
        fresh.set_collapsed({"previous_7_days"})
        assert shown(grouped) == shown(fresh)
        assert grouped.group_keys() == fresh.group_keys()
    assert spy.resets == 0


async def test_midnight_groups_and_moves_only_the_threads_of_the_last_days(qtbot) -> None:
    """3,000 threads over 125 days: midnight groups again the ~150 of the
    last 30 days, not 3,000; the thread rows stay (only headers leave and
    come); a row below the recent groups keeps its index."""
    clock = Clock()
    threads = threads_over_days(3_000, 1)
    _model, grouped = await loaded(threads, clock)
    spy = Spy(grouped)
    deep = QPersistentModelIndex(grouped.index(grouped.rowCount() - 1))
    deep_id = deep.data(ThreadListModel.IdRole)
    clock.calls = 0
    clock.now += timedelta(days=1)
    grouped.day_passed()
    assert clock.calls <= 31 * 24 + 30  # the threads of the clock's groups, not 3,000
    assert spy.resets == 0
    assert "thread" not in spy.removed  # headers went, no thread row did
    assert 0 < len(spy.removed) <= 5 and spy.inserted <= 5
    assert deep.isValid() and deep.data(ThreadListModel.IdRole) == deep_id
    fresh = GroupedThreadModel(_model, lambda t: thread_group(t, clock.now, UTC))
    assert shown(grouped) == shown(fresh)


async def test_removing_the_last_row_removes_one_row(qtbot) -> None:
    """The last of 3,000 rows removed: one row leaves (no reset), nothing is
    grouped again, and its group's header goes with its last thread."""
    clock = Clock()
    threads = threads_over_days(3_000, 1)
    model, grouped = await loaded(threads, clock)
    QAbstractItemModelTester(grouped, QAbstractItemModelTester.FailureReportingMode.Fatal)
    spy = Spy(grouped)
    clock.calls = 0
    model.remove_thread(threads[-1].id)
    assert spy.removed == ["thread"] and spy.inserted == 0 and spy.resets == 0
    assert clock.calls == 0
    last_group = grouped.group_keys()[-1]
    while grouped.group_keys()[-1] == last_group:  # its threads, one by one, from the end
        model.remove_thread(model.thread_at(model.rowCount() - 1).id)
    assert spy.removed[-2:] == ["header", "thread"] and spy.resets == 0
    fresh = GroupedThreadModel(model, clock.grouping)
    assert shown(grouped) == shown(fresh)
