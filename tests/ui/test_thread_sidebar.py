"""The lazy thread list: pages are fetched on the qasync loop only as the view scrolls
to them; live upserts, removals and running marks keep the list and the paging right;
the grouped view adds date headers as pages arrive, collapses groups, keeps the
open thread highlighted when rows move, and turns a pin drop into the new order."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QLocale, QModelIndex, Qt

from mira_desktop.core.history import ThreadGroup
from mira_desktop.core.models import Thread
from mira_desktop.ui.sidebar import ThreadListModel, ThreadSidebar
from mira_desktop.ui.sidebar.grouped_model import GroupedThreadModel
from mira_desktop.ui.sidebar.thread_delegate import relative_time
from mira_desktop.ui.sidebar.thread_filter import ThreadFilter
from tests.support.qt_async import until

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def make_thread(n: int, *, pinned: bool = False, minutes_ago: int | None = None) -> Thread:
    stamp = (NOW - timedelta(minutes=n if minutes_ago is None else minutes_ago)).isoformat()
    return Thread(
        id=f"t{n:05d}",
        title=f"Thread number {n}",
        workspace_id="w",
        created_at=stamp,
        updated_at=stamp,
        pinned=pinned,
    )


class FakeThreadSource:
    """An async page source over an in-memory list (in the list's order),
    paged by key as the database is, counting every call."""

    def __init__(self, count: int, delay: float = 0.005) -> None:
        self.threads = [make_thread(n) for n in range(count)]
        self.delay = delay
        self.page_calls: list[tuple[str | None, int]] = []  # (after's id, limit)
        self.count_calls = 0
        self.fail = False

    async def fetch_page(self, after: Thread | None, limit: int) -> list[Thread]:
        self.page_calls.append((after.id if after else None, limit))
        await asyncio.sleep(self.delay)
        if self.fail:
            raise RuntimeError("database is locked")
        start = 0
        if after is not None:  # after its row; gone: after where it would sort
            ids = [t.id for t in self.threads]
            start = (
                ids.index(after.id) + 1
                if after.id in ids
                else next(
                    (n for n, t in enumerate(self.threads) if ThreadFilter().before(after, t)),
                    len(self.threads),
                )
            )
        return self.threads[start : start + limit]

    async def count(self) -> int:
        self.count_calls += 1
        await asyncio.sleep(self.delay)
        return len(self.threads)


async def settle(model: ThreadListModel, rounds: int = 10) -> None:
    """Let the view's fetch-more timers run and any page land."""
    for _ in range(rounds):
        await asyncio.sleep(0.01)
        await model.wait_idle()


def make_sidebar(qtbot, source: FakeThreadSource, page_size: int = 20) -> ThreadSidebar:
    model = ThreadListModel(source.fetch_page, source.count, page_size=page_size)
    sidebar = ThreadSidebar(model)
    qtbot.addWidget(sidebar)
    sidebar.resize(280, 600)
    sidebar.show()
    return sidebar


async def test_pages_are_fetched_only_as_the_view_scrolls(qtbot) -> None:
    source = FakeThreadSource(10_000)
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    model.refresh()
    await until(lambda: model.rowCount() == 20)
    await settle(model)
    assert source.count_calls == 1
    assert source.page_calls == [(None, 20)]  # one page fills the viewport; nothing more
    assert model.total() == 10_000

    bar = sidebar.list_view.verticalScrollBar()
    for expected_rows in (40, 60, 80):
        bar.setValue(bar.maximum())
        await until(lambda n=expected_rows: model.rowCount() == n)
        await settle(model)
    assert source.page_calls == [(None, 20), ("t00019", 20), ("t00039", 20), ("t00059", 20)]
    assert model.data(model.index(79), ThreadListModel.IdRole) == "t00079"


async def test_nothing_is_fetched_before_the_first_refresh(qtbot) -> None:
    """The window sets the saved view and workspace before its first refresh();
    a page of the default list asked by the shown view meanwhile was thrown away."""
    source = FakeThreadSource(500)
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    await settle(model)
    assert (source.page_calls, source.count_calls, model.rowCount()) == ([], 0, 0)
    model.refresh()
    await until(lambda: model.rowCount() == 20)
    await settle(model)
    assert (source.page_calls, source.count_calls) == ([(None, 20)], 1)


async def test_the_first_page_is_asked_before_the_count_and_shown_without_it(qtbot) -> None:
    """The rows are what the window shows first; the count (only for "more to
    fetch") follows on the database thread."""
    order: list[str] = []
    gate = asyncio.Event()

    class Source(FakeThreadSource):
        async def fetch_page(self, after: Thread | None, limit: int) -> list[Thread]:
            order.append("page")
            return await super().fetch_page(after, limit)

        async def count(self) -> int:
            order.append("count")
            await gate.wait()
            return await super().count()

    source = Source(500)
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    model.refresh()
    await asyncio.wait_for(model.wait_idle(), 5)
    assert order == ["page", "count"] and model.rowCount() == 20 and model.total() is None
    gate.set()
    await until(lambda: model.total() == 500)


async def test_a_thread_added_while_the_count_is_asked_is_counted_once(qtbot) -> None:
    """The count may be taken before or after a new thread's write: a live
    change during the count asks it again."""
    gate = asyncio.Event()

    class Source(FakeThreadSource):
        async def count(self) -> int:
            self.count_calls += 1
            counted = len(self.threads)  # the database counts now...
            await gate.wait()  # ...and the answer reaches the Qt thread later
            return counted

    source = Source(500)
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    model.refresh()
    await asyncio.wait_for(model.wait_idle(), 5)
    await until(lambda: source.count_calls == 1)
    new = make_thread(500, minutes_ago=-1)
    source.threads.insert(0, new)  # written after the count was taken...
    model.upsert_thread(new)  # ...and shown before the count's answer
    gate.set()
    await until(lambda: model.total() is not None)
    assert (model.total(), source.count_calls, model.row_of(new.id)) == (501, 2, 0)


async def test_small_pages_keep_filling_a_tall_viewport(qtbot) -> None:
    source = FakeThreadSource(500)
    sidebar = make_sidebar(qtbot, source, page_size=3)
    model = sidebar.model()
    model.refresh()
    await until(lambda: model.rowCount() >= 9)
    await settle(model)
    visible_rows = sidebar.list_view.viewport().height() // sidebar.list_view.sizeHintForRow(0)
    assert visible_rows <= model.rowCount() <= visible_rows + 6
    assert len(source.page_calls) < 20


async def test_end_of_list_stops_fetching(qtbot) -> None:
    source = FakeThreadSource(25)
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    model.refresh()
    await until(lambda: model.rowCount() == 20)
    bar = sidebar.list_view.verticalScrollBar()
    bar.setValue(bar.maximum())
    await until(lambda: model.rowCount() == 25)
    await settle(model)
    assert not model.canFetchMore()
    assert len(source.page_calls) == 2


async def test_refresh_drops_a_stale_page(qtbot) -> None:
    source = FakeThreadSource(50, delay=0.05)
    model = ThreadListModel(source.fetch_page, source.count, page_size=10)
    model.refresh()
    await asyncio.sleep(0.01)
    source.threads = [make_thread(n) for n in range(1000, 1005)]
    model.refresh()
    await until(lambda: model.rowCount() == 5)
    await settle(model)
    assert [model.thread_at(r).id for r in range(5)] == [f"t{n:05d}" for n in range(1000, 1005)]


async def test_a_refresh_asked_after_closing_starts_nothing(qtbot) -> None:
    """The window closes the model before the database; an import or a purge
    ending then asks for a refresh: no load may outlive the loop, unrun."""
    source = FakeThreadSource(50)
    model = ThreadListModel(source.fetch_page, source.count, page_size=10)
    model.refresh()
    await model.aclose()
    calls = len(source.page_calls)
    model.refresh()
    await asyncio.sleep(0.05)
    assert not model.is_loading() and len(source.page_calls) == calls


async def test_fetch_error_is_reported_not_retried_in_a_loop(qtbot) -> None:
    source = FakeThreadSource(50)
    source.fail = True
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    errors: list[str] = []
    model.load_failed.connect(errors.append)
    model.refresh()
    await until(lambda: bool(errors))
    await settle(model)
    assert errors == ["database is locked"]
    assert len(source.page_calls) == 1
    assert not model.canFetchMore()


async def test_upsert_moves_to_top_and_keeps_paging_aligned(qtbot) -> None:
    source = FakeThreadSource(30)
    model = ThreadListModel(source.fetch_page, source.count, page_size=10)
    model.refresh()
    await until(lambda: model.rowCount() == 10)

    # An answer in thread 5 makes it the most recent: it moves to row 0.
    moved = make_thread(5, minutes_ago=0)
    model.upsert_thread(moved)
    assert model.thread_at(0).id == "t00005"
    assert model.rowCount() == 10

    # A brand-new thread appears at the top and on the server too.
    new = make_thread(999, minutes_ago=0)
    model.upsert_thread(new)
    source.threads.insert(0, new)
    assert model.thread_at(0).id == "t00999"
    assert model.total() == 31

    model.fetchMore()
    await until(lambda: model.rowCount() == 21)
    ids = [model.thread_at(r).id for r in range(model.rowCount())]
    assert len(ids) == len(set(ids))  # nothing repeated
    assert ids[11:] == [f"t{n:05d}" for n in range(10, 20)]  # nothing skipped


async def test_pinned_stay_above_and_remove_and_running(qtbot) -> None:
    source = FakeThreadSource(0)
    source.threads = [make_thread(1, pinned=True), make_thread(2), make_thread(3)]
    model = ThreadListModel(source.fetch_page, source.count, page_size=10)
    model.refresh()
    await until(lambda: model.rowCount() == 3)
    await until(lambda: model.total() == 3)  # counted after the first page, in the background

    model.upsert_thread(make_thread(3, minutes_ago=0))
    assert [model.thread_at(r).id for r in range(3)] == ["t00001", "t00003", "t00002"]
    assert model.data(model.index(0), ThreadListModel.PinnedRole) is True

    changed: list[int] = []
    model.dataChanged.connect(lambda top, _bottom, _roles=(): changed.append(top.row()))
    model.set_running("t00002", True)
    assert model.data(model.index(2), ThreadListModel.RunningRole) is True
    assert changed == [2]
    model.set_running("t00002", False)
    assert model.data(model.index(2), ThreadListModel.RunningRole) is False

    model.remove_thread("t00003")
    assert [model.thread_at(r).id for r in range(2)] == ["t00001", "t00002"]
    assert model.total() == 2
    model.upsert_thread(replace(make_thread(2), archived=True))
    assert [model.thread_at(r).id for r in range(model.rowCount())] == ["t00001"]


async def test_user_selection_emits_but_programmatic_does_not(qtbot) -> None:
    source = FakeThreadSource(5)
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    model.refresh()
    await until(lambda: model.rowCount() == 5)
    chosen: list[str] = []
    sidebar.thread_selected.connect(chosen.append)

    sidebar.select_thread("t00002")
    assert chosen == []
    assert sidebar.selected_thread_id() == "t00002"

    rect = sidebar.list_view.visualRect(sidebar.grouped.index(3))
    qtbot.mouseClick(sidebar.list_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert chosen == ["t00003"]

    new_chat: list[bool] = []
    sidebar.new_thread_requested.connect(lambda: new_chat.append(True))
    qtbot.mouseClick(sidebar.new_chat_button, Qt.MouseButton.LeftButton)
    assert new_chat == [True]


async def test_running_thread_animates_spinner(qtbot) -> None:
    source = FakeThreadSource(3)
    sidebar = make_sidebar(qtbot, source)
    model = sidebar.model()
    model.refresh()
    await until(lambda: model.rowCount() == 3)
    model.set_running("t00001", True)
    phase = sidebar.delegate.spinner_phase
    await until(lambda: sidebar.delegate.spinner_phase != phase)
    model.set_running("t00001", False)
    assert not sidebar._spinner.isActive()


def test_empty_sidebar_says_so(qtbot) -> None:
    source = FakeThreadSource(0)
    model = ThreadListModel(source.fetch_page, source.count)
    sidebar = ThreadSidebar(model)
    qtbot.addWidget(sidebar)
    sidebar.show()
    assert sidebar.empty_label.isVisible()
    assert "No conversations yet" in sidebar.empty_label.text()


@pytest.mark.parametrize(
    ("delta", "expected"),
    [
        (timedelta(seconds=10), "now"),
        (timedelta(minutes=5), "5 min"),
        (timedelta(days=3), "3 d"),
        (timedelta(days=7), "7 d"),  # still in "Previous 7 days", like its neighbours
        (timedelta(days=40), "10/21"),
        (timedelta(days=400), "10/26/25"),
    ],
)
def test_relative_time(delta: timedelta, expected: str) -> None:
    QLocale.setDefault(QLocale("en_US"))  # the conftest puts the suite's back
    assert relative_time((NOW - delta).isoformat(), NOW) == expected


@pytest.mark.parametrize(
    ("locale", "this_year", "older"),
    [
        ("en_US", "10/21", "10/26/25"),
        ("en_GB", "21/10", "26/10/2025"),
        ("zh_CN", "10/21", "2025/10/26"),
        ("de_DE", "21.10", "26.10.25"),
        ("sv_SE", "10-21", "2025-10-26"),
        ("ko_KR", "10. 21.", "25. 10. 26."),
    ],
)
def test_older_dates_follow_the_formats_locale(locale: str, this_year: str, older: str) -> None:
    """Day and month in the order of the locale ``install_translator`` sets
    (as the message footers), the year dropped within the current one."""
    QLocale.setDefault(QLocale(locale))
    assert relative_time((NOW - timedelta(days=40)).isoformat(), NOW) == this_year
    assert relative_time((NOW - timedelta(days=400)).isoformat(), NOW) == older


def test_relative_time_tolerates_garbage() -> None:
    assert relative_time("not a date", NOW) == ""


# ---- the grouped view over the lazy list ----------------------------------------------
def by_tens(thread: Thread) -> ThreadGroup:
    """A grouping for tests: threads 0–9 in "g0", 10–19 in "g1"…"""
    key = f"g{int(thread.id[1:]) // 10}"
    return ThreadGroup(key, key)


async def test_headers_arrive_with_their_pages_and_groups_collapse(qtbot) -> None:
    source = FakeThreadSource(100)
    model = ThreadListModel(source.fetch_page, source.count, page_size=15)
    grouped = GroupedThreadModel(model, by_tens)
    inserted: list[tuple[int, int]] = []
    grouped.rowsInserted.connect(lambda _p, first, last: inserted.append((first, last)))
    model.refresh()
    await until(lambda: model.rowCount() == 15)
    assert grouped.group_keys() == ["g0", "g1"]
    assert grouped.rowCount() == 17  # 15 threads, 2 headers
    model.fetchMore()
    await until(lambda: model.rowCount() == 30)
    assert grouped.group_keys() == ["g0", "g1", "g2"]
    assert inserted[-1] == (17, 32)  # the page only appended (g1 continues, g2 starts)
    toggled: list[tuple[str, bool]] = []
    grouped.group_toggled.connect(lambda key, on: toggled.append((key, on)))
    grouped.toggle_group("g1")
    assert toggled == [("g1", True)]
    assert grouped.row_of("t00012") == -1 and grouped.header_row("g1") == 11
    assert grouped.header_row("g2") == 12
    grouped.toggle_group("g1")
    assert grouped.row_of("t00012") == 14  # header g1 at 11, then t00010…


async def test_the_highlight_follows_a_thread_that_moves_to_the_top(qtbot) -> None:
    source = FakeThreadSource(30)
    sidebar = make_sidebar(qtbot, source)
    sidebar.set_grouping(by_tens)
    model = sidebar.model()
    model.refresh()
    await until(lambda: model.rowCount() == 20)
    chosen: list[str] = []
    sidebar.thread_selected.connect(chosen.append)
    sidebar.select_thread("t00015")
    model.upsert_thread(make_thread(15, minutes_ago=-5))  # newest now: row 1, group g1
    assert sidebar.selected_thread_id() == "t00015"
    assert sidebar.grouped.row_of("t00015") == 1
    assert chosen == []  # moving rows never opens another thread


async def test_dropping_pins_gives_the_new_order(qtbot) -> None:
    source = FakeThreadSource(0)
    source.threads = [replace(make_thread(n, pinned=True), pin_order=n) for n in range(3)] + [
        make_thread(n) for n in range(3, 6)
    ]
    model = ThreadListModel(source.fetch_page, source.count, page_size=10)
    grouped = GroupedThreadModel(
        model, lambda t: ThreadGroup("pinned", "Pinned") if t.pinned else None
    )
    model.refresh()
    await until(lambda: model.rowCount() == 6)
    none = QModelIndex()
    first = grouped.row_of("t00000")
    assert grouped.pin_order_after_drop(["t00002"], first, none) == ["t00002", "t00000", "t00001"]
    assert grouped.pin_order_after_drop(["t00000"], first + 3, none) == [
        "t00001",
        "t00002",
        "t00000",
    ]
    onto = grouped.index(grouped.row_of("t00001"))  # dropped onto a pin: takes its place
    assert grouped.pin_order_after_drop(["t00000"], -1, onto) == ["t00001", "t00000", "t00002"]
    assert grouped.pin_order_after_drop(["t00004"], first, none) is None  # not a pin
    assert grouped.pin_order_after_drop(["t00000"], first, none) is None  # no change
    model.set_pins([replace(t, pin_order=i) for i, t in enumerate(reversed(source.threads[:3]))])
    assert grouped.pinned_ids() == ["t00002", "t00001", "t00000"]
    assert [model.thread_at(r).id for r in range(3, 6)] == ["t00003", "t00004", "t00005"]


def _counting_hook(grouped: GroupedThreadModel) -> tuple[list[int], object]:
    """A counter of the grouped model's ``rowCount`` and ``data`` calls, and
    the profile hook that counts them once installed (``sys.setprofile``):
    nothing of the model is replaced."""
    count = [0]
    code = {GroupedThreadModel.rowCount.__code__, GroupedThreadModel.data.__code__}

    def hook(frame, event, _arg):  # type: ignore[no-untyped-def]
        if event == "call" and frame.f_code in code:
            count[0] += 1

    return count, hook


async def test_a_page_costs_the_view_the_same_at_any_depth(qtbot) -> None:
    """Rows arriving deep in the list cost the view what they cost at the top:
    it asks the model about the rows it shows, not about every row loaded. (A
    list view laid every loaded row out again on each insert, one ``rowCount``
    call per row: ~20 ms a page at 12,000 rows, ~200 ms at 100,000.)"""
    import sys

    source = FakeThreadSource(6_000, delay=0)
    sidebar = make_sidebar(qtbot, source, page_size=1_000)
    model = sidebar.model()
    model.refresh()
    await until(lambda: len(model.threads()) >= 1_000)
    calls: list[int] = []
    while len(model.threads()) < 6_000:
        count, hook = _counting_hook(sidebar.grouped)
        sys.setprofile(hook)
        try:
            model.fetchMore()
            await model.wait_idle()
            await asyncio.sleep(0.05)  # the view's posted layout and paint
        finally:
            sys.setprofile(None)
        calls.append(count[0])
    assert len(model.threads()) == 6_000
    # about the ~20 rows on screen each time, whether 1,000 rows are loaded or 5,000
    assert max(calls) < 1_000, calls
    assert calls[-1] < 2 * calls[0] + 100, calls


async def test_the_list_keys_and_row_height_of_a_list(qtbot) -> None:
    """The thread list is a one-column table acting as a list: Home and End go
    to the first and last row, Tab does not step through the rows, and the
    rows follow the list's font."""
    from PySide6.QtGui import QFont
    from PySide6.QtTest import QTest

    from mira_desktop.ui.sidebar.thread_delegate import row_height

    source = FakeThreadSource(30, delay=0)
    sidebar = make_sidebar(qtbot, source, page_size=50)
    sidebar.model().refresh()
    await until(lambda: len(sidebar.model().threads()) == 30)
    view = sidebar.list_view
    assert view.accessibleName() == "Conversations"  # not "table" alone, to a screen reader
    view.setFocus()
    view.setCurrentIndex(sidebar.grouped.index(5))
    QTest.keyClick(view, Qt.Key.Key_End)
    assert view.currentIndex().row() == sidebar.grouped.rowCount() - 1
    QTest.keyClick(view, Qt.Key.Key_Home)
    assert view.currentIndex().row() == 0
    assert view.rowHeight(0) == row_height(view.font())
    big = QFont(view.font())
    big.setPointSizeF(big.pointSizeF() * 2)
    view.setFont(big)
    assert view.rowHeight(3) == row_height(big) > row_height(QFont())
    assert view.sizeHintForRow(3) == view.rowHeight(3)
    view.setCurrentIndex(sidebar.grouped.index(2))
    QTest.keyClick(view, Qt.Key.Key_Tab)  # leaves the list; never the next row
    assert view.currentIndex().row() == 2


async def test_a_pin_dropped_on_the_list_lands_between_rows_or_takes_a_place(qtbot) -> None:
    """The drop as the view makes it, from where the mouse is released: near
    a row's top edge the pin goes above that row, on its middle it takes that
    pin's place."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QDropEvent

    from mira_desktop.ui.sidebar.batch import encode_ids

    source = FakeThreadSource(0, delay=0)
    source.threads = [replace(make_thread(n, pinned=True), pin_order=n) for n in range(3)] + [
        make_thread(n) for n in range(3, 6)
    ]
    sidebar = make_sidebar(qtbot, source)
    sidebar.set_grouping(lambda t: ThreadGroup("pinned", "Pinned") if t.pinned else None)
    sidebar.model().refresh()
    await until(lambda: len(sidebar.model().threads()) == 6)
    view, grouped = sidebar.list_view, sidebar.grouped
    orders: list[list[str]] = []
    grouped.pins_reorder_requested.connect(orders.append)

    def drop(ids: list[str], onto: str, dy: float) -> None:
        rect = view.visualRect(grouped.index(grouped.row_of(onto)))
        data = encode_ids(ids)  # the event only points to it: keep it alive
        event = QDropEvent(
            QPointF(rect.center().x(), rect.top() + dy),
            Qt.DropAction.MoveAction,
            data,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        view.dropEvent(event)

    drop(["t00000"], "t00002", 1)  # the top edge of the last pin: above it
    drop(["t00000"], "t00002", view.rowHeight(0) / 2)  # its middle: its place
    assert orders == [["t00001", "t00000", "t00002"], ["t00001", "t00002", "t00000"]]


def by_age(thread: Thread) -> ThreadGroup:
    """ "new" for threads updated after NOW, "old" for the rest."""
    new = datetime.fromisoformat(thread.updated_at) > NOW
    return ThreadGroup("new", "New") if new else ThreadGroup("old", "Old")


async def test_a_thread_that_changes_group_in_place_gets_its_header(qtbot) -> None:
    """An answer in the thread already at the top keeps it there, yet moves
    it to another group (Yesterday → Today): the header follows it."""
    source = FakeThreadSource(5, delay=0)
    model = ThreadListModel(source.fetch_page, source.count, page_size=10)
    grouped = GroupedThreadModel(model, by_age)
    model.refresh()
    await until(lambda: model.rowCount() == 5)
    assert grouped.group_keys() == ["old"]
    model.upsert_thread(make_thread(0, minutes_ago=-1))  # newer than NOW, still first
    assert model.thread_at(0).id == "t00000"
    assert grouped.group_keys() == ["new", "old"]
    assert grouped.row_of("t00000") == 1 and grouped.header_row("old") == 2
    model.upsert_thread(replace(model.thread_at(0), title="Renamed"))  # same place, group
    assert grouped.index(1).data(Qt.ItemDataRole.DisplayRole) == "Renamed"


async def test_a_thread_moving_up_rebuilds_the_grouped_list_once(qtbot) -> None:
    """A move is one change of the list under the groups, not a removal and an
    insertion: the grouped list is rebuilt (and the sidebar re-selects) once."""
    source = FakeThreadSource(30, delay=0)
    model = ThreadListModel(source.fetch_page, source.count, page_size=30)
    grouped = GroupedThreadModel(model, by_tens)
    model.refresh()
    await until(lambda: model.rowCount() == 30)
    rebuilt: list[int] = []
    grouped.structure_changed.connect(lambda: rebuilt.append(1))
    model.upsert_thread(make_thread(25, minutes_ago=-5))  # newest now: to the top
    assert [model.thread_at(r).id for r in range(3)] == ["t00025", "t00000", "t00001"]
    assert grouped.row_of("t00025") == 1 and grouped.row_of("t00024") == 28
    assert len(rebuilt) == 1
    model.upsert_thread(make_thread(3, minutes_ago=-1))  # to the second row
    assert [model.thread_at(r).id for r in range(3)] == ["t00025", "t00003", "t00000"]
    await until(lambda: model.total() == 30)
    model.upsert_thread(make_thread(3, minutes_ago=40))  # the oldest now: the last row
    assert [model.thread_at(r).id for r in range(3)] == ["t00025", "t00000", "t00001"]
    assert model.row_of("t00003") == 29 and grouped.row_of("t00003") == 32
    assert len(rebuilt) == 3


def _rows_of(grouped: GroupedThreadModel) -> list[tuple[object, ...]]:
    """What the grouped list shows, row by row: (kind, id or group key, title)."""
    shown = []
    for row in range(grouped.rowCount()):
        index = grouped.index(row)
        kind = index.data(GroupedThreadModel.KindRole)
        key = index.data(
            ThreadListModel.IdRole if kind == "thread" else GroupedThreadModel.GroupKeyRole
        )
        shown.append((kind, key, index.data(Qt.ItemDataRole.DisplayRole)))
    return shown


def by_hour(thread: Thread) -> ThreadGroup:
    hours = int((NOW - datetime.fromisoformat(thread.updated_at)).total_seconds() // 3600)
    return ThreadGroup(f"h{hours}", f"{hours} h")


async def test_live_changes_leave_the_grouped_list_as_a_fresh_one_would_show_it(qtbot) -> None:
    """Random upserts (up, down, in place, new, retitled), removals and a
    collapsed group, applied live: after each, the grouped list equals one
    built afresh over the same threads."""
    import random

    rng = random.Random(20261201)
    source = FakeThreadSource(0, delay=0)
    source.threads = [make_thread(n, minutes_ago=n * 7) for n in range(120)]
    model = ThreadListModel(source.fetch_page, source.count, page_size=200)
    grouped = GroupedThreadModel(model, by_hour)
    model.refresh()
    await until(lambda: model.rowCount() == 120 and model.total() == 120)
    grouped.toggle_group("h3")
    for step in range(150):
        threads = model.threads()
        choice = rng.random()
        if choice < 0.6 and threads:
            # often the first thread: the one a conversation keeps at the top
            old = threads[0] if rng.random() < 0.3 else rng.choice(threads)
            minutes = rng.choice([-5 - step, 0, rng.randrange(0, 900)])
            moved = replace(old, updated_at=(NOW - timedelta(minutes=minutes)).isoformat())
            model.upsert_thread(replace(moved, title=f"{old.title}*") if step % 5 == 0 else moved)
        elif choice < 0.8:
            model.upsert_thread(make_thread(1000 + step, minutes_ago=rng.randrange(-5, 900)))
        elif threads:
            model.remove_thread(rng.choice(threads).id)
        fresh = GroupedThreadModel(model, by_hour)
        fresh.set_collapsed(grouped.collapsed())
        assert _rows_of(grouped) == _rows_of(fresh), f"step {step}"
        fresh.deleteLater()


@pytest.mark.parametrize("view", ["active", "trash"])
async def test_a_rows_painted_values_are_its_roles(qtbot, view: str) -> None:
    """The delegate reads a thread row's values in one call (``RowRole``): the
    same as each role asked alone, in batch mode, with a running thread and
    workspace colours, in the list and in the trash; None on a header."""
    from mira_desktop.ui.sidebar.thread_filter import ThreadFilter

    source = FakeThreadSource(0, delay=0)
    source.threads = [
        replace(
            make_thread(n, pinned=n == 0),
            title="" if n == 2 else f"Thread number {n}",
            workspace_id="w" if n % 2 else "v",
            deleted_at=(NOW - timedelta(days=n)).isoformat() if view == "trash" else None,
        )
        for n in range(6)
    ]
    model = ThreadListModel(
        source.fetch_page, source.count, thread_filter=ThreadFilter(view=view), page_size=10
    )
    grouped = GroupedThreadModel(model, by_tens)
    model.refresh()
    await until(lambda: model.rowCount() == 6)
    model.set_running("t00003", True)
    grouped.set_workspace_colors({"w": "#123456"})
    for batch in (False, True):
        grouped.set_batch_mode(batch)
        if batch:
            grouped.set_checked("t00001", True)
        for row in range(grouped.rowCount()):
            index = grouped.index(row)
            info = index.data(GroupedThreadModel.RowRole)
            if index.data(GroupedThreadModel.KindRole) == "header":
                assert info is None
                continue
            assert info == (
                index.data(ThreadListModel.TitleRole),
                index.data(ThreadListModel.UpdatedRole),
                index.data(ThreadListModel.PinnedRole),
                index.data(ThreadListModel.RunningRole),
                index.data(GroupedThreadModel.CheckedRole),
                index.data(GroupedThreadModel.ColorRole),
            )
    assert (
        grouped.index(grouped.row_of("t00002")).data(GroupedThreadModel.RowRole).title == "New chat"
    )
    trash = view == "trash"
    one = grouped.index(grouped.row_of("t00001")).data(GroupedThreadModel.RowRole)
    assert one.updated == (source.threads[1].deleted_at if trash else source.threads[1].updated_at)
    assert one.checked is True and one.color == "#123456"
    assert grouped.index(grouped.row_of("t00003")).data(GroupedThreadModel.RowRole).running


def test_the_delegate_measures_rows_in_the_views_current_font(qtbot) -> None:
    """The fonts a row is painted in are made once per view font, and made
    again when the font changes (a stale one would elide titles wrongly)."""
    from PySide6.QtGui import QFont

    from mira_desktop.ui.sidebar.thread_delegate import ThreadItemDelegate

    delegate = ThreadItemDelegate()
    small, large = QFont("DejaVu Sans", 9), QFont("DejaVu Sans", 18)
    first = delegate._fonts(small)
    assert delegate._fonts(QFont("DejaVu Sans", 9)) is first  # equal font: kept
    bigger = delegate._fonts(large)
    assert bigger.title_metrics.height() > first.title_metrics.height()
    assert bigger.time.pointSizeF() == 16.5 and bigger.header.pointSizeF() == 17.0
    assert bigger.header.weight() == QFont.Weight.DemiBold
    assert delegate._fonts(small).title_metrics.height() == first.title_metrics.height()


@pytest.mark.parametrize("view", ["active", "trash"])
async def test_row_flags_say_what_a_row_allows(qtbot, view: str) -> None:
    """Threads are selectable and draggable; renaming is off in the trash and
    in batch mode; pinned threads and the Pinned header take drops (a pin
    reorder), other headers only enable; the space below the rows takes drops."""
    from mira_desktop.ui.sidebar.thread_filter import ThreadFilter

    flag = Qt.ItemFlag
    source = FakeThreadSource(0, delay=0)
    source.threads = [make_thread(0, pinned=True), make_thread(1), make_thread(2)]
    model = ThreadListModel(
        source.fetch_page, source.count, thread_filter=ThreadFilter(view=view), page_size=10
    )
    pins = ThreadGroup("pinned", "Pinned")
    grouped = GroupedThreadModel(model, lambda t: pins if t.pinned else ThreadGroup("old", "Old"))
    model.refresh()
    await until(lambda: model.rowCount() == 3)
    base = flag.ItemIsEnabled | flag.ItemIsSelectable | flag.ItemIsDragEnabled
    for batch in (False, True):
        grouped.set_batch_mode(batch)
        editable = flag.ItemIsEditable if view == "active" and not batch else flag.NoItemFlags
        assert grouped.flags(grouped.index(grouped.row_of("t00000"))) == (
            base | editable | flag.ItemIsDropEnabled
        )
        assert grouped.flags(grouped.index(grouped.row_of("t00001"))) == base | editable
    assert grouped.flags(grouped.index(grouped.header_row("pinned"))) == (
        flag.ItemIsEnabled | flag.ItemIsDropEnabled
    )
    assert grouped.flags(grouped.index(grouped.header_row("old"))) == flag.ItemIsEnabled
    assert grouped.flags(QModelIndex()) == flag.ItemIsDropEnabled
