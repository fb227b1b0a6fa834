"""Open-a-thread benchmark (issue 9 §2): the real ``TimelineView`` offscreen
(900 × 700, as in the window), a 5,000-message thread (quick: 500) against a
20-message thread in the same run (a virtualised timeline should not care).

* first paint: from ``set_messages`` until the event-loop pass that paints the
  timeline has returned (an event filter on the timeline and its canvas sees
  the paint; target < 100 ms); cold (first open, after the idle warm-up the
  view does a moment after it appears) and the median of reopening (the
  spare rows made while the big thread loaded are used);
* loading: the active branch read from the database through the worker
  (``messages_repo.active_branch``, the database half of opening a thread),
  and ``ThreadService.get_active_messages`` when nothing was written since
  the last read (the branch storage keeps, ``branch_cache.py``);
* memory: RSS growth of loading + opening the big thread, and tracemalloc's
  count of the Python objects ``set_messages`` + the first paint keep alive
  (Qt's C++ allocations are only in the RSS figure);
* widgets: ``live_widget_count()`` after opening (only visible rows are built)."""

from __future__ import annotations

import gc
import logging
import time
import tracemalloc
from pathlib import Path
from typing import Any

from .common import (
    Figure,
    dataset,
    median,
    open_services,
    process_events,
    qt_loop,
    rss_bytes,
    settle_gc,
)

log = logging.getLogger(__name__)

SIZE = (900, 700)
REOPENS = 5


def sizes(quick: bool) -> list[tuple[int, int]]:
    return [(1, 500 if quick else 5_000), (1, 20)]


class PaintProbe:
    """Notes when the timeline (or its canvas) receives a paint event."""

    def __init__(self, timeline: Any) -> None:
        from PySide6.QtCore import QEvent, QObject
        from PySide6.QtWidgets import QWidget

        probe = self

        class Filter(QObject):
            def eventFilter(self, obj: QObject, event: QEvent) -> bool:
                if event.type() == QEvent.Type.Paint:
                    probe.painted = True
                return False

        self.painted = False
        self._filter = Filter()
        self._watched = [timeline, *timeline.findChildren(QWidget, "timelineCanvas")]
        for widget in self._watched:
            widget.installEventFilter(self._filter)

    def time_open(self, timeline: Any, messages: list[Any]) -> tuple[float, float]:
        """(seconds in ``set_messages``, seconds until the first paint finished)."""
        from PySide6.QtCore import QCoreApplication

        process_events()
        self.painted = False
        started = time.perf_counter()
        timeline.set_messages(messages)
        returned = time.perf_counter() - started
        deadline = started + 5.0
        while not self.painted and time.perf_counter() < deadline:
            QCoreApplication.processEvents()
        return returned, time.perf_counter() - started


def _bench(loop: Any, folder: Path, big_id: str, small_id: str) -> dict[str, Any]:
    """A synchronous driver: awaits run through ``loop.run_until_complete``
    and the timings outside any coroutine, where ``processEvents`` is safe."""
    from mira_desktop.ui.timeline.timeline_view import WARM_UP_DELAY_MS, TimelineView

    services = open_services(folder)

    def load(thread_id: str) -> tuple[float, list[Any]]:
        started = time.perf_counter()
        messages = loop.run_until_complete(services.threads.get_active_messages(thread_id))
        return time.perf_counter() - started, messages

    def read(thread_id: str) -> float:
        """The database read itself, past the kept branches (branch_cache.py)."""
        from mira_desktop.storage import messages_repo

        started = time.perf_counter()
        loop.run_until_complete(services.store.worker.run(messages_repo.active_branch, thread_id))
        return time.perf_counter() - started

    try:
        timeline = TimelineView()
        timeline.resize(*SIZE)
        timeline.show()
        # the idle warm-up the app does before a person opens a thread: markdown
        # and lexers, then the spare rows (``row_pool``), a moment after start
        process_events(WARM_UP_DELAY_MS / 1000 + 0.3)
        settle_gc()  # as the launch does after the window shows (common.qt_loop)
        probe = PaintProbe(timeline)
        _, small = load(small_id)
        probe.time_open(timeline, small)
        rss_before = _settled_rss()
        load_cold, big = load(big_id)
        spares_cold = timeline.spare_row_count()
        big_return, big_paint = probe.time_open(timeline, big)
        process_events(0.2)
        rss_after = _settled_rss()
        widgets = timeline.live_widget_count()
        painted_big, painted_small, loads, kept = [], [], [], []
        for _ in range(REOPENS):
            painted_small.append(probe.time_open(timeline, small)[1])
            loads.append(read(big_id))
            seconds, big = load(big_id)  # nothing written since: the branch kept
            kept.append(seconds)
            painted_big.append(probe.time_open(timeline, big)[1])
        traced = _traced_open(probe, timeline, small, big)
        long_token = _with_long_token(small)
        token_paint = probe.time_open(timeline, long_token)[1]
        probe.time_open(timeline, small)
        shown = timeline.message_count()
        timeline.close()
        timeline.deleteLater()
        process_events()
    finally:
        loop.run_until_complete(services.aclose())
    return {
        "messages": len(big),
        "shown": shown,
        "first_paint_cold_s": big_paint,
        "set_messages_cold_s": big_return,
        "first_paint_s": median(painted_big),
        "first_paint_small_s": median(painted_small),
        "load_cold_s": load_cold,
        "load_s": median(loads),
        "load_kept_s": median(kept),
        "rss_delta_mb": (rss_after - rss_before) / 1e6,
        "traced_mb": traced / 1e6,
        "live_widgets": widgets,
        "spare_rows_before_cold_open": spares_cold,
        "first_paint_long_token_s": token_paint,
    }


#: an unbroken token (base64-like) in a code block of the last answer
LONG_TOKEN_CHARS = 100_000


def _with_long_token(messages: list[Any]) -> list[Any]:
    """``messages`` with one more answer: a 100 KB unbroken token in a code
    block (laid out at width 0 before the real one, it froze the window for
    over 20 s: its cost grew with the square of the token's length)."""
    import dataclasses
    import random
    import string

    from mira_desktop.core.models import MessageRole

    answer = next(m for m in reversed(messages) if m.role is MessageRole.ASSISTANT)
    rng = random.Random(7)
    token = "".join(rng.choices(string.ascii_letters + string.digits, k=LONG_TOKEN_CHARS))
    text = f"The file, encoded:\n\n```\n{token}\n```\n"
    return [*messages, dataclasses.replace(answer, id=answer.id + "-token", text=text)]


def _settled_rss() -> int:
    gc.collect()
    process_events()
    return rss_bytes()


def _traced_open(probe: PaintProbe, timeline: Any, small: list[Any], big: list[Any]) -> int:
    """Bytes of Python allocations still held after opening ``big`` (the
    message list itself was loaded before, so it is not counted)."""
    probe.time_open(timeline, small)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        probe.time_open(timeline, big)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def run(quick: bool, root: Path) -> dict[str, Any]:
    data = dataset(root, "thread", sizes(quick))
    big_id = data["groups"][0]["ids"][0]
    small_id = data["groups"][1]["ids"][0]
    _, loop = qt_loop()
    try:
        result = _bench(loop, Path(data["dir"]), big_id, small_id)
    finally:
        loop.close()
    ms = 1000.0
    n = result["messages"]
    figures = [
        Figure(
            f"first paint, {n:,} messages",
            result["first_paint_s"] * ms,
            "ms",
            result["first_paint_small_s"] * ms,
            "first paint, 20 messages",
            max_value=100.0,
        ),
        Figure(
            f"first paint cold, {n:,} messages",
            result["first_paint_cold_s"] * ms,
            "ms",
            result["first_paint_small_s"] * ms,
            "first paint, 20 messages",
            max_value=100.0,
        ),
        Figure(
            f"load {n:,} messages (database)",
            result["load_s"] * ms,
            "ms",
            note="messages_repo.active_branch through the worker; not in first paint",
        ),
        Figure(
            f"load {n:,} messages again, nothing written since",
            result["load_kept_s"] * ms,
            "ms",
            note="ThreadService.get_active_messages: the branch storage keeps (branch_cache.py)",
        ),
        Figure(
            "open total (load + first paint)",
            (result["load_s"] + result["first_paint_s"]) * ms,
            "ms",
        ),
        Figure(
            "first paint, an answer with a 100 KB unbroken token",
            result["first_paint_long_token_s"] * ms,
            "ms",
            max_value=500.0,
            note="a code block of one base64-like token (over 20 s before its fix)",
        ),
        Figure("memory added (RSS)", result["rss_delta_mb"], "MB", note="load + open"),
        Figure("memory added (tracemalloc)", result["traced_mb"], "MB", note="open only"),
    ]
    return {"figures": [f.to_dict() for f in figures], "details": _rounded(result)}


def _rounded(result: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}


if __name__ == "__main__":
    import json
    import sys
    import tempfile

    quick = "--quick" in sys.argv
    print(json.dumps(run(quick, Path(tempfile.mkdtemp(prefix="mira-bench-thread-"))), indent=2))
