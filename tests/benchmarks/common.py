"""Shared pieces of the benchmark sections: :class:`Figure` (one measured
number, its same-run baseline, the ratio and the target it is held to),
percentiles, synthetic data sets seeded once per data root and reused, and a
Qt + qasync set-up for the sections that drive real widgets.

Every section module has ``run(quick: bool, root: Path) -> dict`` returning
``{"figures": [Figure.to_dict(), ...], "details": {...}}``."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.services.seed import SeedService
from mira_desktop.storage.seed_repo import SeedStore

log = logging.getLogger(__name__)

MARKER = "benchmark-seed.json"


@dataclass
class Figure:
    """One figure. ``ratio`` is ``value / baseline``; targets: ``max_ratio``
    (lower is better, e.g. a time), ``min_ratio`` (higher is better, e.g. a
    throughput), ``max_value`` (an absolute bound in ``unit``)."""

    name: str
    value: float
    unit: str
    baseline: float | None = None
    baseline_name: str = ""
    max_ratio: float | None = None
    min_ratio: float | None = None
    max_value: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline == 0:
            return None
        return self.value / self.baseline

    def target(self) -> str:
        parts = []
        if self.max_ratio is not None:
            parts.append(f"≤ {self.max_ratio:g}×")
        if self.min_ratio is not None:
            parts.append(f"≥ {self.min_ratio:g}×")
        if self.max_value is not None:
            parts.append(f"< {self.max_value:g} {self.unit}")
        return " and ".join(parts)

    def misses(self) -> list[str]:
        """What the target missed by, in words; empty when met (or none set)."""
        out: list[str] = []
        ratio = self.ratio
        if self.max_ratio is not None and ratio is not None and ratio > self.max_ratio:
            out.append(
                f"{ratio:.2f}× vs ≤ {self.max_ratio:g}× ({(ratio / self.max_ratio - 1) * 100:.0f}% over)"
            )
        if self.min_ratio is not None and ratio is not None and ratio < self.min_ratio:
            out.append(
                f"{ratio:.2f}× vs ≥ {self.min_ratio:g}× ({(1 - ratio / self.min_ratio) * 100:.0f}% short)"
            )
        if self.max_value is not None and self.value >= self.max_value:
            out.append(
                f"{self.value:.1f} {self.unit} vs < {self.max_value:g} "
                f"(+{self.value - self.max_value:.1f} {self.unit})"
            )
        return out

    def verdict(self) -> str:
        if not self.target():
            return "info"
        return "MISS" if self.misses() else "ok"

    def to_dict(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            "name": self.name,
            "value": round(self.value, 3),
            "unit": self.unit,
            "baseline": None if self.baseline is None else round(self.baseline, 3),
            "baseline_name": self.baseline_name,
            "ratio": None if ratio is None else round(ratio, 3),
            "target": self.target(),
            "verdict": self.verdict(),
            "misses": self.misses(),
            "note": self.note,
        }


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0–1) by linear interpolation."""
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary_ms(samples_s: Sequence[float]) -> dict[str, float]:
    """p50 / p95 / max of durations given in seconds, in milliseconds."""
    return {
        "p50_ms": round(percentile(samples_s, 0.5) * 1000, 2),
        "p95_ms": round(percentile(samples_s, 0.95) * 1000, 2),
        "max_ms": round(max(samples_s) * 1000, 2) if samples_s else float("nan"),
        "n": len(samples_s),
    }


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def rss_bytes() -> int:
    """Resident set size of this process (Linux ``/proc``; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def settle_memory() -> int:
    gc.collect()
    return rss_bytes()


# -- data sets --------------------------------------------------------------------


def dataset(root: Path, name: str, groups: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """The data folder ``root/name`` holding ``groups`` of (threads, messages per
    thread), seeded with ``SeedService`` unless a previous run left exactly that.
    Returns ``{"dir", "groups": [{"threads", "messages", "ids"?}], "seed_seconds"}``;
    ids are kept for groups of at most 1,000 threads."""
    folder = root / name
    marker = folder / MARKER
    wanted = [list(g) for g in groups]
    if marker.exists():
        saved = json.loads(marker.read_text())
        if saved.get("wanted") == wanted:
            saved["dir"] = folder
            saved["reused"] = True
            return saved
    if folder.exists():
        import shutil

        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    info = asyncio.run(_seed(folder, groups))
    info["wanted"] = wanted
    marker.write_text(json.dumps(info))
    info["dir"] = folder
    info["reused"] = False
    return info


async def _seed(folder: Path, groups: Sequence[tuple[int, int]]) -> dict[str, Any]:
    services = build_services(folder)
    try:
        seeder = SeedService(SeedStore(services.store.worker))
        started = time.perf_counter()
        out = []
        for n, (threads, messages) in enumerate(groups):
            report = await seeder.seed(threads, messages, seed=n)
            group: dict[str, Any] = {"threads": threads, "messages": messages}
            if threads <= 1000:
                group["ids"] = list(report.thread_ids)
            out.append(group)
        return {"groups": out, "seed_seconds": round(time.perf_counter() - started, 1)}
    finally:
        await services.aclose()


def db_mb(folder: Path) -> float:
    return round((folder / "mira.sqlite3").stat().st_size / 1e6, 1)


# -- Qt -----------------------------------------------------------------------------


def qt_loop() -> tuple[Any, asyncio.AbstractEventLoop]:
    """The QApplication (offscreen unless told otherwise) and a qasync loop set
    as the current asyncio loop, as ``ui/launch.py`` builds them.

    The garbage collector too is handled as the app's launch handles it
    (``mira_desktop/startup_gc.py``): off from here while the widgets are
    built; the section calls :func:`settle_gc` once its widget is up. Without
    it a full collection walked every object of the window's start-up again
    (~15 ms) at a moment of its choosing: a 16.6 ms streaming stall (15.7 ms
    of it the Qt thread's CPU) that the app, which freezes those objects,
    does not have.

    The theme is applied as the launch applies it (``ui/launch.open_window``):
    the app's style sheet decides how widgets paint (a scroll bar of the bare
    Fusion style under a widget's own sheet took 3.3 ms a paint; the theme's
    flat one 0.3 ms), so a widget measured without it is not the app's."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from mira_desktop import startup_gc

    startup_gc.pause()

    from mira_desktop.ui.controllers.event_loop import new_event_loop
    from mira_desktop.ui.theme import apply_theme

    app = QApplication.instance() or QApplication(["mira-bench"])
    apply_theme(app, "light")  # what "system" gives offscreen
    app.setQuitOnLastWindowClosed(False)  # closing a benchmarked widget must not stop the loop
    loop = new_event_loop(app)  # type: ignore[arg-type]
    asyncio.set_event_loop(loop)
    return app, loop


#: the stall monitor's timer interval
TICK_MS = 2


class StallMonitor:
    """A precise QTimer on the Qt thread; ``gaps(start, end)`` are the gaps
    between consecutive ticks that overlap ``[start, end]``, and
    ``cpu_gaps(start, end)`` the Qt thread's own CPU time in each of them
    (``time.thread_time``): a long gap with little CPU is the thread waiting
    for a core (another process), not Mira's work."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.ticks: list[float] = []
        self.cpu: list[float] = []
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def _tick(self) -> None:
        self.ticks.append(time.perf_counter())
        self.cpu.append(time.thread_time())

    def _pairs(self, start: float, end: float) -> list[int]:
        ticks = self.ticks
        return [i for i in range(1, len(ticks)) if ticks[i] >= start and ticks[i - 1] <= end]

    def gaps(self, start: float, end: float) -> list[float]:
        return [done - began for began, done in self.gap_spans(start, end)]

    def gap_spans(self, start: float, end: float) -> list[tuple[float, float]]:
        """(first tick, next tick) of each gap that overlaps ``[start, end]``."""
        ticks = self.ticks
        return [(ticks[i - 1], ticks[i]) for i in self._pairs(start, end)]

    def worst_at(self, start: float, end: float) -> float:
        """When (seconds after ``start``) the longest gap in the window began."""
        ticks = self.ticks
        i = max(self._pairs(start, end), key=lambda i: ticks[i] - ticks[i - 1])
        return ticks[i - 1] - start

    def cpu_gaps(self, start: float, end: float) -> list[float]:
        cpu = self.cpu
        return [cpu[i] - cpu[i - 1] for i in self._pairs(start, end)]

    def stop(self) -> None:
        self._timer.stop()


def settle_gc() -> None:
    """What the launch does ``GC_SETTLE_DELAY_S`` after its window shows: one
    collection, a freeze of the survivors, the collector back on (see
    :func:`qt_loop`)."""
    from mira_desktop import startup_gc

    startup_gc.settle()


def open_services(folder: Path) -> Services:
    return build_services(folder)


def process_events(seconds: float = 0.0) -> None:
    """Let Qt run pending events (and timers, for ``seconds``). Only outside
    coroutines: inside one, on qasync, it would re-enter the asyncio loop."""
    from PySide6.QtCore import QCoreApplication, QEventLoop

    deadline = time.perf_counter() + seconds
    while True:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
        if time.perf_counter() >= deadline:
            return
        time.sleep(0.001)
