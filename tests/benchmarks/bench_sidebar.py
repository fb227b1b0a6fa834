"""Sidebar benchmark (issue 9 §5): the real ``ThreadSidebar`` over a lazy
``ThreadListModel`` (fed by ``HistoryService.list_threads``, grouped by date
as the window does), offscreen at 300 × 800, on 100,000 threads (quick: 2,000).

* first rows: from ``refresh()`` until the first page is in and painted;
* scrolling: page-down steps (the view's own page step) until 5,000 rows
  (quick: 500) have been loaded and shown — the view asks the model for the
  next page when it reaches the bottom; total time, pages fetched, the slowest
  step (fetch + paint) and p95 of the steps;
* baseline: the same pages read straight through ``HistoryService`` with no
  Qt (what the data alone costs), and one page at the very end of the list
  (paged by key: ``OFFSET`` paging grew with depth, ~14 ms at 100,000);
* depth: the Qt thread's CPU time of a step that brought a page (scroll,
  the page's rows inserted and laid out, paint), the last ten pages against
  the first ten. A ``QListView`` laid every loaded row out again on each
  insert, so this grew with the rows already loaded (2.5× by 5,000 rows,
  ~25 ms a page at 12,000); the list is now a table whose rows cost the same
  at any depth;
* a live move: a thread a few rows down bumped to the top (an answer came
  in), the model call timed (the rows' signals and the views' work, not the
  paint after it), median of ten, with the rows loaded after the scroll
  against the first page alone. The grouped rows were all built again on
  each move (~1.5 µs a loaded thread); now only the rows around it are;
* a sync: what noticing an outside change (the CLI) costs with the rows
  loaded after the scroll — all of them read again and compared;
* midnight and a removal at depth: with 5,000 and 100,000 rows loaded (one
  page of all of them: someone scrolled to the end), the Qt thread's CPU time
  of the regroup when the clock passes midnight, and of removing the last
  row. Both were linear with a big constant (every thread grouped again,
  ~825 ms at 100,000; every row built again on a removal at the end,
  ~225 ms): now only the threads of the last 30 days are grouped again, and
  a removal builds the rows from it to the end."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from .common import Figure, dataset, median, open_services, percentile, qt_loop, settle_gc

log = logging.getLogger(__name__)

SIZE = (300, 800)


def sizes(quick: bool) -> tuple[int, int, int]:
    """(threads, messages per thread, rows to scroll through)."""
    return (2_000, 2, 500) if quick else (100_000, 2, 5_000)


async def _scroll(folder: Path, rows: int) -> dict[str, Any]:
    """Runs on the qasync loop: the model fetches pages as asyncio tasks, so
    Qt gets the thread only through awaits (``processEvents`` here would
    re-enter the loop); each step repaints the viewport synchronously."""
    from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel
    from mira_desktop.ui.sidebar.thread_sidebar import ThreadSidebar

    services = open_services(folder)
    history = services.history
    fetches: list[float] = []

    async def page(after: Any, limit: int) -> list[Any]:
        started = time.perf_counter()
        threads = await history.list_threads_after(after, limit)
        fetches.append(time.perf_counter() - started)
        return threads

    try:
        model = ThreadListModel(page, history.count_threads)  # paged by key, as the window
        sidebar = ThreadSidebar(model)
        sidebar.set_grouping(lambda thread: history.group_of(thread, use_pins=True))
        sidebar.resize(*SIZE)
        sidebar.show()
        await asyncio.sleep(0.1)
        settle_gc()  # as the launch does after the window shows (common.qt_loop)
        view = sidebar.list_view
        started = time.perf_counter()
        model.refresh()
        await model.wait_idle()
        await asyncio.sleep(0)
        view.viewport().repaint()
        first_rows = time.perf_counter() - started
        move_first = await _live_moves(model, 0)
        steps, page_cpu, scrolled = await _page_down(view, model, rows)
        loaded = len(model.threads())
        move_deep = await _live_moves(model, 1000)
        sync_s, sync_cpu = await _syncs(model)
        sidebar.close()
        sidebar.deleteLater()
        baseline = await _data_only(history, model.total() or loaded, loaded)
    finally:
        await services.aclose()
    return {
        "first_rows_s": first_rows,
        "scroll_s": scrolled,
        "rows_loaded": loaded,
        "pages": len(fetches),
        "steps": len(steps),
        "step_max_s": max(steps) if steps else 0.0,
        "step_p95_s": percentile(steps, 0.95) if steps else 0.0,
        "fetch_median_s": median(fetches),
        # no page step at all (a list that ends within the first page): 0, no ratio
        "page_cpu_first_s": median(page_cpu[:10]) if page_cpu else 0.0,
        "page_cpu_last_s": median(page_cpu[-10:]) if page_cpu else 0.0,
        "fetch_last_s": fetches[-1],
        "move_first_s": move_first,
        "move_deep_s": move_deep,
        "sync_s": sync_s,
        "sync_cpu_s": sync_cpu,
        **baseline,
    }


async def _page_down(view: Any, model: Any, rows: int) -> tuple[list[float], list[float], float]:
    """Page down until ``rows`` rows are loaded (or the list ends): the
    duration of every step (scroll, fetch if the bottom was reached, paint),
    and the Qt thread's CPU time of each step that brought a page."""
    bar = view.verticalScrollBar()
    steps: list[float] = []
    page_cpu: list[float] = []
    started = time.perf_counter()
    stuck = 0
    while len(model.threads()) < rows and stuck < 50:
        step = time.perf_counter()
        cpu = time.thread_time()
        before = len(model.threads())
        bar.setValue(bar.value() + max(1, bar.pageStep()))
        view.viewport().repaint()
        if model.is_loading():
            await model.wait_idle()
            await asyncio.sleep(0)  # posted layout of the new rows
            view.viewport().repaint()
            page_cpu.append(time.thread_time() - cpu)
        steps.append(time.perf_counter() - step)
        at_bottom = bar.value() >= bar.maximum() and len(model.threads()) == before
        if at_bottom and not model.is_loading():
            if not model.canFetchMore():
                break
            stuck += 1
            await asyncio.sleep(0.001)  # let the view lay out and ask for more
        else:
            stuck = 0
    return steps, page_cpu, time.perf_counter() - started


async def _live_moves(model: Any, first: int, count: int = 10) -> float:
    """Median time of ``upsert_thread`` moving the fourth thread to the top
    with a newer ``updated_at`` than any before (``first``: the number of the
    first bump; nothing is written: the model is what a controller updates
    when a thread changes)."""
    timings: list[float] = []
    for n in range(count):
        thread = model.thread_at(min(3, len(model.threads()) - 1))
        if thread is None:
            return 0.0
        stamp = f"2999-01-01T00:00:00.{first + n:06d}+00:00"
        started = time.perf_counter()
        model.upsert_thread(replace(thread, updated_at=stamp))
        timings.append(time.perf_counter() - started)
        await asyncio.sleep(0)  # the paint it asked for, untimed
    return median(timings)


async def _syncs(model: Any, count: int = 5) -> tuple[float, float]:
    """Median time of ``sync()`` (what an outside change costs: the loaded
    rows read again on the database thread, the difference applied on the Qt
    thread), and the Qt thread's CPU time of it."""
    timings: list[float] = []
    cpu: list[float] = []
    for _ in range(count):
        started, cpu_started = time.perf_counter(), time.thread_time()
        model.sync()
        await model.wait_idle()
        timings.append(time.perf_counter() - started)
        cpu.append(time.thread_time() - cpu_started)
    return median(timings), median(cpu)


async def _data_only(history: Any, total: int, rows: int) -> dict[str, float]:
    """The same pages through the service alone (by key), and a page at the
    end: after the thread 100 rows before the end (found untimed)."""
    started = time.perf_counter()
    after = None
    for _ in range(0, rows, 100):
        page = await history.list_threads_after(after, 100)
        after = page[-1] if page else None
    pages = time.perf_counter() - started
    first = time.perf_counter()
    await history.list_threads_after(None, 100)
    first_page = time.perf_counter() - first
    last = await history.list_threads(max(0, total - 101), 1)
    deep = time.perf_counter()
    await history.list_threads_after(last[0] if last else None, 100)
    deep_page = time.perf_counter() - deep
    return {"data_only_s": pages, "first_page_s": first_page, "deepest_page_s": deep_page}


def depth_sizes(quick: bool) -> tuple[int, ...]:
    """Rows loaded for the midnight and removal figures."""
    return (500, 2_000) if quick else (5_000, 100_000)


async def _at_depth(folder: Path, rows: int) -> dict[str, float]:
    """``rows`` threads loaded in the sidebar, grouped on a clock the section
    moves: the median Qt-thread CPU time of three midnights
    (``GroupedThreadModel.day_passed``, as the sidebar's day check calls it)
    and of five removals of the last row (paint after each, untimed)."""
    from datetime import timedelta

    from mira_desktop.services.timeframes import thread_group, utc_clock
    from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel
    from mira_desktop.ui.sidebar.thread_sidebar import ThreadSidebar

    services = open_services(folder)
    history = services.history
    clock = [utc_clock()]
    try:
        model = ThreadListModel(history.list_threads_after, history.count_threads, page_size=rows)
        sidebar = ThreadSidebar(model)
        sidebar.set_grouping(lambda thread: thread_group(thread, clock[0]))
        sidebar.resize(*SIZE)
        sidebar.show()
        model.refresh()
        await model.wait_idle()
        await asyncio.sleep(0.05)
        settle_gc()
        midnight: list[float] = []
        for _ in range(3):
            clock[0] += timedelta(days=1)
            cpu = time.thread_time()
            sidebar.grouped.day_passed()
            midnight.append(time.thread_time() - cpu)
            await asyncio.sleep(0)
        removal: list[float] = []
        for _ in range(5):
            last = model.thread_at(model.rowCount() - 1)
            if last is None:
                break
            cpu = time.thread_time()
            model.remove_thread(last.id)
            removal.append(time.thread_time() - cpu)
            await asyncio.sleep(0)
        loaded = len(model.threads())
        sidebar.close()
        sidebar.deleteLater()
    finally:
        await services.aclose()
    return {"rows": loaded, "midnight_s": median(midnight), "remove_last_s": median(removal)}


def run(quick: bool, root: Path) -> dict[str, Any]:
    threads, messages, rows = sizes(quick)
    data = dataset(root, "sidebar", [(threads, messages)])
    _, loop = qt_loop()
    try:
        result = loop.run_until_complete(_scroll(Path(data["dir"]), rows))
        depth = [
            loop.run_until_complete(_at_depth(Path(data["dir"]), n)) for n in depth_sizes(quick)
        ]
    finally:
        loop.close()
    ms = 1000.0
    figures = [
        Figure(
            f"sidebar first rows, {threads:,} threads",
            result["first_rows_s"] * ms,
            "ms",
            result["first_page_s"] * ms,
            "first page, data only",
        ),
        Figure(
            f"sidebar scroll through {result['rows_loaded']:,} rows",
            result["scroll_s"] * ms,
            "ms",
            result["data_only_s"] * ms,
            "same pages, data only",
        ),
        Figure("sidebar slowest scroll step", result["step_max_s"] * ms, "ms"),
        Figure(
            f"sidebar Qt-thread CPU a page, at {result['rows_loaded']:,} rows",
            result["page_cpu_last_s"] * ms,
            "ms",
            result["page_cpu_first_s"] * ms,
            "the first pages",
            note="the last ten pages against the first ten: flat when a page costs the same at any depth",
        ),
        Figure(
            f"sidebar live move to the top, at {result['rows_loaded']:,} rows",
            result["move_deep_s"] * ms,
            "ms",
            result["move_first_s"] * ms,
            "first page loaded",
            note="a thread four rows down bumped to the top: flat when only the rows around it are built",
        ),
        Figure(
            f"sidebar sync with outside changes, at {result['rows_loaded']:,} rows",
            result["sync_s"] * ms,
            "ms",
            result["sync_cpu_s"] * ms,
            "Qt-thread CPU",
            note="the loaded rows read again (database thread) and compared (Qt thread)",
        ),
        Figure(
            f"page at the end of {threads:,} threads",
            result["deepest_page_s"] * ms,
            "ms",
            result["first_page_s"] * ms,
            "first page",
            note="paging by key (the last row's sort key): flat at any depth",
        ),
    ]
    shallow, deep = depth
    figures += [
        Figure(
            f"sidebar midnight regroup, at {deep['rows']:,} rows",
            deep["midnight_s"] * ms,
            "ms",
            shallow["midnight_s"] * ms,
            f"at {shallow['rows']:,} rows",
            note="Qt-thread CPU: only the threads of the last 30 days are grouped again",
        ),
        Figure(
            f"sidebar removing the last row, at {deep['rows']:,} rows",
            deep["remove_last_s"] * ms,
            "ms",
            shallow["remove_last_s"] * ms,
            f"at {shallow['rows']:,} rows",
            note="Qt-thread CPU: the rows from the removed one to the end built again",
        ),
    ]
    details = {k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}
    for entry in depth:
        for key in ("midnight_s", "remove_last_s"):
            details[f"{key[:-2]}_at_{entry['rows']}_s"] = round(entry[key], 4)
    details.update({"threads": threads, "seed_seconds": data.get("seed_seconds")})
    return {"figures": [f.to_dict() for f in figures], "details": details}
