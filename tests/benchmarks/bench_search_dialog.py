"""Search as you type (info; the reader's side of issue 9 §1): the real
``SearchDialog`` offscreen on the search section's data set (1,000,000
messages; quick: 5,000), queries typed into its field one key at a time.

* last key → results: from the last key until the dialog has shown the
  results of the whole query (``results_shown``), typed at a brisk 120 ms a
  key (a search a key) and in a 30 ms burst (keys coalesce into fewer
  searches);
* searches run per query, counted by the search object the dialog is given;
* the Qt thread's longest gap while typing, from a 2 ms precise timer (p99
  too): what each result costs the thread that also draws the field.

Baselines, measured in the same run: for the latency, ``SearchService.search``
of the same queries awaited directly (the search itself: the rest is the
debounce and the dialog); for the gap, the same timer's longest gap while
the dialog sits idle for as long as the typing took (the host's own noise).

    .venv/bin/python -m tests.benchmarks.section search_dialog --root DIR --out F"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from .bench_search import sizes as search_sizes
from .common import (
    Figure,
    StallMonitor,
    dataset,
    open_services,
    percentile,
    qt_loop,
    settle_gc,
)

QUERIES = ["python error", "machine learning", "数据库 server", "Docker", "customer invoice", "性能优化"]  # fmt: skip
PACES_S = (0.12, 0.03)


class CountedSearch:
    """The search service, counting the searches the dialog starts."""

    def __init__(self, service: Any) -> None:
        self._service = service
        self.count = 0

    async def search(self, query: str, **filters: Any) -> Any:
        self.count += 1
        return await self._service.search(query, **filters)


class Typing:
    """What happened while typing (``events``: time, label — a key, or the
    results of a query) and the spans the gaps are read in."""

    def __init__(self) -> None:
        self.events: list[tuple[float, str]] = []
        self.spans: list[tuple[float, float]] = []

    def note(self, label: str) -> None:
        self.events.append((time.perf_counter(), label))

    def before(self, moment: float) -> str:
        """The last event before ``moment``."""
        earlier = [label for at, label in self.events if at <= moment]
        return earlier[-1] if earlier else ""


async def _type(dialog: Any, counted: CountedSearch, typing: Typing, query: str, pace: float) -> dict[str, Any]:  # fmt: skip
    shown: dict[str, float] = {}

    def on_shown(text: str, _n: int) -> None:
        shown.setdefault(text, time.perf_counter())
        typing.note(f"results for {text!r}")

    dialog.query_edit.clear()
    await asyncio.sleep(0.3)
    dialog.results_shown.connect(on_shown)
    counted.count = 0
    began = last = time.perf_counter()
    for char in query:
        typing.note(f"key {dialog.query_edit.text() + char!r}")
        dialog.query_edit.insert(char)
        last = time.perf_counter()
        await asyncio.sleep(pace)
    deadline = last + 10.0
    while query not in shown and time.perf_counter() < deadline:
        await asyncio.sleep(0.001)
    typing.spans.append((began, time.perf_counter()))
    dialog.results_shown.disconnect(on_shown)
    if query not in shown:
        raise RuntimeError(f"no results shown for {query!r} within 10 s")
    return {
        "ms": round((shown[query] - last) * 1000, 1),
        "searches": counted.count,
        "keys": len(query),
    }


async def _measure(folder: Path, queries: list[str]) -> dict[str, Any]:
    from mira_desktop.ui.search.search_dialog import RESULT_LIMIT, SearchDialog

    services = open_services(folder)
    counted = CountedSearch(services.search)
    dialog = SearchDialog(counted, [])  # type: ignore[arg-type]
    dialog.resize(680, 520)
    dialog.show()
    settle_gc()  # as the launch does after the window shows (common.qt_loop)
    monitor = StallMonitor()
    try:
        await _type(dialog, counted, Typing(), "warm up", 0.05)  # fonts, the first paint
        typing = Typing()
        runs: dict[str, dict[str, Any]] = {}
        started = time.perf_counter()
        for pace in PACES_S:
            runs[f"{round(pace * 1000)} ms"] = {
                q: await _type(dialog, counted, typing, q, pace) for q in queries
            }
        idle = (time.perf_counter(), 2 * time.perf_counter() - started)
        await asyncio.sleep(idle[1] - idle[0])  # idle, as long as the typing took
        typed = [span for window in typing.spans for span in monitor.gap_spans(*window)]
        longest = sorted(typed, key=lambda span: span[1] - span[0], reverse=True)[:5]
        service: list[float] = []
        for query in queries * 3:
            searched = time.perf_counter()
            await services.search.search(query, limit=RESULT_LIMIT)
            service.append(time.perf_counter() - searched)
        return {
            "runs": runs,
            "gaps": [done - began for began, done in typed],
            # (ms, what came last before the gap ended)
            "longest_gaps": [
                (round((done - began) * 1000, 1), typing.before(done)) for began, done in longest
            ],
            "idle_gaps": monitor.gaps(*idle),
            "service": service,
        }
    finally:
        monitor.stop()
        dialog.done(0)
        await services.aclose()


def run(quick: bool, root: Path) -> dict[str, Any]:
    threads, messages = search_sizes(quick)
    data = dataset(root, "search", [(threads, messages)])
    _app, loop = qt_loop()
    measured = loop.run_until_complete(
        _measure(Path(data["dir"]), QUERIES[:2] if quick else QUERIES)
    )
    figures = []
    service_ms = statistics.median(measured["service"]) * 1000
    for pace, per_query in measured["runs"].items():
        times = [r["ms"] for r in per_query.values()]
        searches = sum(r["searches"] for r in per_query.values())
        keys = sum(r["keys"] for r in per_query.values())
        figures.append(
            Figure(
                f"search dialog: last key → results, a key per {pace}",
                statistics.median(times),
                "ms",
                service_ms,
                "SearchService.search, same queries",
                note=f"median of {len(times)} queries, max {max(times):.1f} ms;"
                f" {searches} searches for {keys} keys",
            )
        )
    gaps = measured["gaps"]
    figures.append(
        Figure(
            "search dialog: Qt thread's longest gap while typing",
            max(gaps) * 1000,
            "ms",
            max(measured["idle_gaps"]) * 1000,
            "same timer, dialog idle",
            note=f"p99 {percentile(gaps, 0.99) * 1000:.1f} ms of {len(gaps)} timer shots (2 ms)",
        )
    )
    return {
        "figures": [f.to_dict() for f in figures],
        "details": {
            "messages": threads * messages,
            "runs": measured["runs"],
            "longest_gaps_while_typing": measured["longest_gaps"],
        },
    }
