"""Memory over a long session (info; no target in issue 9): the real
``MainWindow`` offscreen, on the qasync loop, driven as a person would over
a day, in three phases after a warm-up that goes once through each of them:

* **switches**: threads opened one after another from the sidebar's action
  (``HistoryActions.open_thread``), back and forth among 50 seeded threads
  of 40 messages (answers with code blocks and lists), every tenth one read
  (scrolled to its top: more rows built, rendered, dropped), with Find
  (Ctrl+F) open and a word typed all along: 300 (quick: 20 among 8);
* **answers**: answers streamed from the loopback model server
  (``stream_server.py``, another process; 600 chunks of Markdown with a list
  and a code block) into saved threads, five to a thread: 100 (quick: 6);
* **dialogs and menus**: Settings opened (its tabs loaded) and closed, the
  Ctrl+K search opened, a query typed, its results shown, then closed —
  every other time by opening the first result — and a sidebar thread's
  right-click menu opened and dismissed: 40 of each (quick: 4).

After the warm-up and after each half of each phase, with the same thread
shown: RSS, the Python heap (tracemalloc, on from the warm-up on: what was
allocated since and is still held, this benchmark's own counts left out,
single blocks of 1 MB or more — tables that doubled — counted apart),
the live ``QWidget``s (``QApplication.allWidgets()``), the ``QObject``s under
the window, top-level widgets, the timeline's row widgets, asyncio tasks
and handles, Python wrappers of deleted Qt objects, and the garbage
collector's objects counted by type (after a full collection; what start-up
froze, ``startup_gc``, is not in these counts). Growth is reported per 100
switches / answers / dialogs, over the second half of each phase (one-off
costs are paid in the first) and over the whole phase.

**A leak** is a count that keeps growing with the number of switches,
answers or dialogs in the second half: live widgets or QObjects per 100
above zero, objects of one type growing by about as many as the actions, a
Python heap growing by hundreds of KB per 100 (a few KB is noise: the
branch and token caches fill up to their bounds). Not leaks: the asyncio
handles of cancelled timeouts, kept by qasync until they would have fired
(aiohttp's 300 s read timeout, a few an answer), and RSS, which includes
allocator high-water marks (information).

    .venv/bin/python -m tests.benchmarks.section memory --root DIR --out F [--quick]"""

from __future__ import annotations

import asyncio
import gc
import logging
import random
import shutil
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from .bench_stream import _serve
from .common import Figure, dataset, qt_loop, rss_bytes, settle_gc

log = logging.getLogger(__name__)

#: Markdown chunks of each streamed answer (a list at 200, a code block at 500)
CHUNKS = 600
#: a switch waits this long after its thread loaded (paint, prefetch, spares)
DWELL_S = 0.01
#: every tenth thread is read: scrolled to its top and left open for
#: ``READ_S`` (longer than Find's ``SEARCH_DELAY_MS``: its search runs)
READ_EVERY = 10
READ_S = 0.14
SEARCH_QUERIES = ("database", "python error", "数据库", "release version", "memory")
TOP_TYPES = 12
#: typed into Find (Ctrl+F), open while the threads are switched
FIND_WORDS = "the"


def plan(quick: bool) -> dict[str, int]:
    if quick:
        return {"threads": 8, "messages": 40, "switches": 20, "answers": 6, "dialogs": 4}
    return {"threads": 50, "messages": 40, "switches": 300, "answers": 100, "dialogs": 40}


# -- what is counted -------------------------------------------------------------------


def _type_name(obj: object) -> str:
    kind = type(obj)
    module = kind.__dict__.get("__module__")
    name = getattr(kind, "__qualname__", kind.__name__)
    if not isinstance(module, str) or module == "builtins":
        return name
    return f"{module.rsplit('.', 1)[-1]}.{name}"


def descendants(obj: Any) -> int:
    """How many QObjects are under ``obj``, walked through ``children()``.
    Not ``findChildren``: PySide makes every object it returns a child of the
    caller's wrapper, and when such an object is deleted by Qt, its Python
    wrapper stays (dead) as long as the caller's does: counting through it
    would itself leak a wrapper per object counted."""
    return sum(1 + descendants(child) for child in obj.children())


#: a block this large is a table that doubled (the interpreter's interned
#: strings, a cache's dict): counted apart, it lands in whichever half of a
#: phase crossed the size, and would read as 1.8 MB "per 50 dialogs"
LARGE_BLOCK = 1_000_000


def heap_bytes() -> tuple[int, int]:
    """The Python heap tracemalloc traced — in blocks under ``LARGE_BLOCK``,
    and in larger ones — less what this benchmark keeps (its counts at each
    checkpoint) and tracemalloc itself."""
    if not tracemalloc.is_tracing():
        return 0, 0
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, __file__), tracemalloc.Filter(False, tracemalloc.__file__)]
    )
    sizes = [trace.size for trace in snapshot.traces]
    large = sum(size for size in sizes if size >= LARGE_BLOCK)
    return sum(sizes) - large, large


def checkpoint(window: Any) -> dict[str, Any]:
    """Counts of what is alive now, after a full collection."""
    import shiboken6
    from PySide6.QtWidgets import QApplication

    gc.collect()
    objects = gc.get_objects()
    types = Counter(_type_name(o) for o in objects)
    dead = sum(
        1 for o in objects if isinstance(o, shiboken6.Shiboken.Object) and not shiboken6.isValid(o)
    )
    del objects
    widget_types = Counter(type(w).__name__ for w in QApplication.allWidgets())
    heap, large = heap_bytes()
    return {
        "rss_mb": rss_bytes() / 1e6,
        "heap_mb": heap / 1e6,
        "heap_large_blocks_mb": large / 1e6,
        "widgets": len(QApplication.allWidgets()),
        "window_qobjects": descendants(window),
        "top_level_widgets": len(QApplication.topLevelWidgets()),
        "timeline_rows": window.timeline.live_widget_count(),
        "find_folded": window.find_actions.folded_count(),  # messages Find keeps folded
        "asyncio_tasks": len(asyncio.all_tasks()),
        "window_tasks": window.tasks.pending(),
        # qasync keeps a cancelled timer's handle until it would have fired
        # (aiohttp's 300 s read timeout, re-armed a few times an answer)
        "asyncio_handles": types["events.Handle"],
        "gc_objects": sum(types.values()),
        # Python wrappers whose Qt object was deleted: what holds them leaks
        "dead_wrappers": dead,
        "types": types,
        "widget_types": widget_types,
    }


def growth(before: dict[str, Any], after: dict[str, Any], per: float) -> dict[str, Any]:
    """What grew from ``before`` to ``after``, scaled by ``per`` (100 / how many)."""
    out = {
        key: round((after[key] - before[key]) * per, 2)
        for key in before
        if isinstance(before[key], int | float)
    }
    for key in ("types", "widget_types"):
        grown = after[key].copy()
        grown.subtract(before[key])
        out[key] = [(name, round(n * per, 1)) for name, n in grown.most_common(TOP_TYPES) if n]
    return out


def _plain(point: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v.most_common(TOP_TYPES) if isinstance(v, Counter) else round(v, 2)
        for k, v in point.items()
    }


# -- the session -------------------------------------------------------------------------


class Session:
    def __init__(self, window: Any, thread_ids: list[str]) -> None:
        self.window = window
        self.thread_ids = thread_ids
        self.rng = random.Random(11)
        self.switches = 0

    async def open_thread(self, thread_id: str, *, scroll_top: bool = False) -> None:
        window = self.window
        window.history_actions.open_thread(thread_id)
        task = window.tasks.get("load-thread")
        if task is not None:
            await task
        await asyncio.sleep(DWELL_S)
        if scroll_top:
            ids = window.timeline.message_ids()
            if ids:
                window.timeline.scroll_to_message(ids[0])
                await asyncio.sleep(READ_S)
        self.switches += 1

    async def checkpoint(self) -> dict[str, Any]:
        """:func:`checkpoint` with the same thread shown each time (the rows
        built depend on it), once the spare rows are made again."""
        await self.open_thread(self.thread_ids[1])
        await self.open_thread(self.thread_ids[0])
        await asyncio.sleep(0.6)  # ``row_pool.HOLD_MS``, then the spares
        return checkpoint(self.window)

    async def switch(self, count: int) -> None:
        """Back and forth: mostly among a handful of recent threads, now and
        then another one."""
        recent: list[str] = []
        for n in range(count):
            if recent and self.rng.random() < 0.5:
                thread_id = self.rng.choice(recent[-6:])
            else:
                thread_id = self.rng.choice(self.thread_ids)
            if thread_id == self.window.presenter.key:  # a click on it would do nothing
                ids = self.thread_ids
                thread_id = ids[(ids.index(thread_id) + 1) % len(ids)]
            recent.append(thread_id)
            await self.open_thread(thread_id, scroll_top=n % READ_EVERY == READ_EVERY - 1)

    async def send(self) -> None:
        """A question sent in the open thread, until its answer has streamed
        (its Markdown may still be catching up, as when a person reads on)."""
        chat, composer = self.window.chat, self.window.composer
        done = asyncio.Event()

        def on_running(_key: str, running: bool) -> None:
            if not running:
                done.set()

        chat.running_changed.connect(on_running)
        try:
            composer.set_text("Write a long answer")
            composer.send_requested.emit(composer.text())
            await asyncio.wait_for(done.wait(), 60)
        finally:
            chat.running_changed.disconnect(on_running)

    async def answer(self, count: int, per_thread: int = 5) -> None:
        for n in range(count):
            if n % per_thread == 0:  # not into the two threads checkpoints show
                await self.open_thread(self.rng.choice(self.thread_ids[2:]))
            await self.send()

    async def settings(self) -> None:
        from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog

        window = self.window
        window.open_settings()
        dialogs = [d for d in window.children() if isinstance(d, SettingsDialog) and d.isVisible()]
        if not dialogs:
            raise RuntimeError("the Settings dialog did not open")
        await asyncio.sleep(0.12)  # its tabs load when it shows
        dialogs[-1].reject()
        await asyncio.sleep(0.01)

    async def search(self, query: str, choose: bool) -> None:
        dialog = self.window.search_actions.open_search()
        shown = asyncio.Event()
        dialog.results_shown.connect(lambda text, _n: text == query and shown.set())
        dialog.query_edit.setText(query)
        await asyncio.wait_for(shown.wait(), 10)
        if choose and dialog.hits():
            dialog.choose_current()
            task = self.window.tasks.get("load-thread")
            if task is not None:
                await task
        else:
            dialog.reject()
        await asyncio.sleep(0.01)

    async def thread_menu(self) -> None:
        """A right-click on a thread of the sidebar, its menu dismissed."""
        sidebar = self.window.sidebar
        view, grouped = sidebar.list_view, sidebar.grouped
        row = grouped.row_of(self.rng.choice(self.thread_ids[:5]))
        view.customContextMenuRequested.emit(view.visualRect(grouped.index(row)).center())
        menu = sidebar.thread_menu
        if menu is None or not menu.isVisible():
            raise RuntimeError("the thread's menu did not open")
        await asyncio.sleep(0.01)
        menu.close()
        await asyncio.sleep(0.01)

    async def dialogs(self, count: int) -> None:
        for n in range(count):
            await self.settings()
            await self.search(SEARCH_QUERIES[n % len(SEARCH_QUERIES)], choose=n % 2 == 1)
            await self.thread_menu()

    def find(self, words: str) -> None:
        """Ctrl+F with ``words`` typed (an empty string closes the bar)."""
        find = self.window.find_actions
        if words:
            find.open()
            assert find.bar is not None
            find.bar.field.setText(words)
        else:
            find.close()


async def _measure(url: str, folder: Path, thread_ids: list[str], sizes: dict[str, int]) -> dict[str, Any]:  # fmt: skip
    from mira_desktop.bootstrap import build_services
    from mira_desktop.ui.window.main_window import MainWindow

    services = build_services(folder)
    await services.providers.add_provider("Local", "openai", url + "/v1")
    await services.store.save_listed_models("Local", ["m1"])
    await services.settings.set("chat.last_model", {"provider": "Local", "model": "m1"})
    await services.settings.set("chat.auto_title", False)
    window = MainWindow(services)
    window.resize(1180, 780)
    window.show()
    await window.start()
    settle_gc()  # as the launch does after the window shows (common.qt_loop)
    session = Session(window, thread_ids)
    points: dict[str, dict[str, Any]] = {}
    phases: dict[str, float] = {}
    try:
        await asyncio.sleep(1.6)  # the timeline's idle warm-up, its spare rows
        for n, thread_id in enumerate(thread_ids[:10]):  # warm-up: each phase once
            await session.open_thread(thread_id, scroll_top=n < 3)
        session.find(FIND_WORDS)
        await session.switch(5)
        session.find("")
        await session.answer(3)
        await session.dialogs(3)
        tracemalloc.start()
        points["warm"] = await session.checkpoint()
        for name, step, count in (
            ("switches", session.switch, sizes["switches"]),
            ("answers", session.answer, sizes["answers"]),
            ("dialogs", session.dialogs, sizes["dialogs"]),
        ):
            started = time.perf_counter()
            if name == "switches":  # Find stays open with its words, as it may for a while
                session.find(FIND_WORDS)
            for half in (1, 2):  # the second half shows whether growth goes on
                await step(count // 2)
                points[f"{name} {half}/2"] = await session.checkpoint()
            session.find("")
            phases[name] = time.perf_counter() - started
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
        await window.tasks.cancel_all()
        window.close()
        await services.aclose()
    return {"points": points, "phases": phases, "snapshot": snapshot, "switches": session.switches}


def _heap_growers(snapshot: Any) -> list[tuple[str, float, int]]:
    """Where the Python heap allocated since the warm-up is held: (file:line,
    KB, blocks), the largest first."""
    stats = snapshot.filter_traces(
        [
            tracemalloc.Filter(False, __file__),
            tracemalloc.Filter(False, tracemalloc.__file__),
            tracemalloc.Filter(False, "<frozen *>"),
        ]
    ).statistics("lineno")
    out = []
    for stat in stats[:15]:
        frame = stat.traceback[0]
        where = "/".join(Path(frame.filename).parts[-3:])
        out.append((f"{where}:{frame.lineno}", round(stat.size / 1024, 1), stat.count))
    return out


def run(quick: bool, root: Path) -> dict[str, Any]:
    sizes = plan(quick)
    data = dataset(root, "memory", [(sizes["threads"], sizes["messages"])])
    thread_ids = list(data["groups"][0]["ids"])
    server, url = _serve(CHUNKS)
    folder = root / "memory-session"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(data["dir"], folder)  # the session writes answers: the seed stays as seeded
    try:
        _, loop = qt_loop()
        try:
            measured = loop.run_until_complete(_measure(url, folder, thread_ids, sizes))
        finally:
            loop.close()
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    points = measured["points"]
    s, a, d = sizes["switches"], sizes["answers"], sizes["dialogs"]
    figures = [
        Figure("RSS after the warm-up", points["warm"]["rss_mb"], "MB"),
        Figure(
            f"RSS at the end ({s} switches, {a} answers, {3 * d} dialogs and menus)",
            points["dialogs 2/2"]["rss_mb"],
            "MB",
            points["warm"]["rss_mb"],
            "after the warm-up",
            note="allocator high-water marks included: information, not a leak by itself",
        ),
    ]
    rates: dict[str, dict[str, Any]] = {}
    previous = "warm"
    for phase, what, count in (("switches", "switches", s), ("answers", "answers", a), ("dialogs", "dialogs and menus", 3 * d)):  # fmt: skip
        whole = growth(points[previous], points[f"{phase} 2/2"], 100 / count)
        steady = growth(points[f"{phase} 1/2"], points[f"{phase} 2/2"], 100 / (count / 2))
        rates[phase] = {"whole": whole, "second_half": steady}
        previous = f"{phase} 2/2"
        figures += [
            Figure(
                f"Python heap held, per 100 {what} (second half)",
                steady["heap_mb"] * 1000,
                "KB",
                note=f"whole phase {whole['heap_mb'] * 1000:.0f} KB per 100;"
                f" RSS {steady['rss_mb']:+.1f} MB per 100 (second half)",
            ),
            Figure(f"live QWidgets, per 100 {what} (second half)", steady["widgets"], "widgets"),
            Figure(
                f"QObjects under the window, per 100 {what} (second half)",
                steady["window_qobjects"],
                "objects",
            ),
            Figure(
                f"GC-tracked objects, per 100 {what} (second half)",
                steady["gc_objects"],
                "objects",
                note=f"whole phase {whole['gc_objects']:.0f} per 100",
            ),
        ]
    return {
        "figures": [f.to_dict() for f in figures],
        "details": {
            "plan": sizes,
            "switches_done": measured["switches"],
            "phase_seconds": {k: round(v, 1) for k, v in measured["phases"].items()},
            "points": {name: _plain(point) for name, point in points.items()},
            "per_100": rates,
            "whole_session": growth(points["warm"], points["dialogs 2/2"], 1.0),
            "heap_held_since_warm_up": _heap_growers(measured["snapshot"]),
        },
    }


if __name__ == "__main__":
    import json
    import sys
    import tempfile

    quick = "--quick" in sys.argv
    print(json.dumps(run(quick, Path(tempfile.mkdtemp(prefix="mira-bench-memory-"))), indent=2))
