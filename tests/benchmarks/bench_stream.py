"""Streaming benchmark (issue 9 §3): a model server in another process
(``stream_server.py``) emits 5,000 content chunks (quick: 500) as fast as it
can; we measure

* Mira: the real ``MainWindow`` (offscreen, on the qasync loop) sending a new
  chat — provider → ``ChatService`` → ``ChatController`` → presenter →
  timeline — from the send until the run has finished and the timeline holds
  the whole answer; tokens/s = chunks / that time (the live markdown may still
  be catching up in bounded steps: "send → markdown fully rendered" waits for
  it too);
* raw: bare ``httpx.AsyncClient`` (its default transport, httpcore over h11)
  reading the same stream line by line on the same loop — the baseline the
  issue names;
* raw over Mira's transport (info): the same bare reader over
  ``LocalTransport`` (aiohttp's C parser), which Mira's providers use for
  servers on this machine — the floor of Mira's own transport;
* the longest stall of the Qt event loop meanwhile: a 2 ms ``QTimer`` records
  every tick, and the largest gap between ticks from the send until the
  markdown has caught up is the stall (target: none over 16 ms, one frame);
* a send in a long thread (info): a seeded 5,000-message thread (quick:
  500) opened in the window, send → first delta against a new chat's, and
  the longest stall of such a send (the history is read, measured and sent
  with each question; the timeline and its anchor rail take the new rows).

Runs alternate (raw, Mira) after one warm-up of each; the medians are reported."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import Figure, StallMonitor, median, qt_loop, settle_gc
from .stream_server import CHAT

log = logging.getLogger(__name__)

FRAME_MS = 16.0


async def _raw_run(client: Any, url: str) -> tuple[float, int]:
    body = {"model": "m1", "messages": [{"role": "user", "content": "go"}], "stream": True}
    started = time.perf_counter()
    count = 0
    async with client.stream("POST", url + CHAT, json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                if line == "data: [DONE]":
                    break
                count += 1
    return time.perf_counter() - started, count - 2  # role chunk and finish chunk


class MiraRun:
    """One send in a fresh chat of the window, timed by the controller's signals."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.first: float | None = None
        self.last = 0.0
        self.deltas = 0
        self.done = asyncio.Event()
        chat = window.chat
        chat.text_delta.connect(self._on_delta)
        chat.running_changed.connect(self._on_running)

    def _on_delta(self, _key: str, _message_id: str, _text: str) -> None:
        now = time.perf_counter()
        if self.first is None:
            self.first = now
        self.last = now
        self.deltas += 1

    def _on_running(self, _key: str, running: bool) -> None:
        if not running:
            self.done.set()

    async def _rendered(self, message_id: str | None) -> float:
        """Diagnostic: when the answer's markdown has caught up with its text
        (the live rendering finishes in steps after the run). Waiting for it
        also keeps those steps out of the next (raw) run."""
        widget = self.window.timeline.message_widget(message_id) if message_id else None
        body = getattr(widget, "body", None)
        deadline = time.perf_counter() + 10
        while body is not None and body.markdown_pending() and time.perf_counter() < deadline:
            await asyncio.sleep(0.002)
        return time.perf_counter()

    async def once(self, *, fresh: bool = True) -> dict[str, float]:
        """One send: in a new chat (``fresh``), else in the open thread."""
        window = self.window
        if fresh:
            window.presenter.new_chat()
        await asyncio.sleep(0.05)
        self.first, self.deltas = None, 0
        self.done.clear()
        started = time.perf_counter()
        window.composer.set_text("Write a long answer")
        window.composer.send_requested.emit(window.composer.text())
        await asyncio.wait_for(self.done.wait(), 120)
        ended = time.perf_counter()
        ids = window.timeline.message_ids()
        shown = len(window.timeline.message_text(ids[-1])) if ids else 0
        rendered = await self._rendered(ids[-1] if ids else None)
        return {
            "seconds": ended - started,
            "window": self.last - (self.first or started),
            "to_first": (self.first or ended) - started,
            "deltas": self.deltas,
            "chars_shown": shown,
            "render_tail": rendered - ended,
            "start": started,
            "end": ended,
        }


async def _long_thread(
    window: Any, services: Any, mira: MiraRun, monitor: StallMonitor, messages: int, runs: int
) -> list[dict[str, float]]:
    """Sends in a seeded thread of ``messages`` messages, opened as a click
    opens it: each question reads, measures and sends the history (the
    context is built for the model's window), and the timeline and its
    anchor rail take the new rows."""
    from mira_desktop.services.seed import SeedService
    from mira_desktop.storage.seed_repo import SeedStore

    report = await SeedService(SeedStore(services.store.worker)).seed(1, messages, seed=9)
    window.history_actions.open_thread(report.thread_ids[0])
    deadline = time.perf_counter() + 30
    while len(window.timeline.message_ids()) < messages and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.3)  # the meter's first measure, spare rows
    await mira.once(fresh=False)  # warm-up
    sends = []
    for _ in range(runs):
        await asyncio.sleep(0.2)
        run = await mira.once(fresh=False)
        span = (run["start"], run["end"] + run["render_tail"])
        run["stall"] = max(monitor.gaps(*span))
        run["stall_cpu"] = max(monitor.cpu_gaps(*span))
        run["stall_at"] = monitor.worst_at(*span)  # after the send
        sends.append(run)
    return sends


async def _bench(url: str, folder: Path, runs: int, long_thread: int) -> dict[str, Any]:
    import httpx

    from mira_desktop.bootstrap import build_services
    from mira_desktop.providers.local_transport import LocalTransport
    from mira_desktop.ui.window.main_window import MainWindow

    services = build_services(folder)
    await services.providers.add_provider("Local", "openai", url + "/v1")
    await services.store.save_listed_models("Local", ["m1"])
    await services.settings.set("chat.last_model", {"provider": "Local", "model": "m1"})
    await services.settings.set("chat.auto_title", False)  # the title call would stream 5,000 too
    window = MainWindow(services)
    window.resize(1180, 780)
    window.show()
    await window.start()
    settle_gc()  # as the launch does after the window shows (common.qt_loop)
    monitor = StallMonitor()
    mira = MiraRun(window)
    raw_runs: list[dict[str, float]] = []
    local_runs: list[dict[str, float]] = []
    mira_runs: list[dict[str, float]] = []
    try:
        async with (
            httpx.AsyncClient(timeout=60) as client,
            httpx.AsyncClient(timeout=60, transport=LocalTransport()) as local,
        ):
            await _raw_run(client, url)  # warm-ups
            await _raw_run(local, url)
            await mira.once()
            for _ in range(runs):
                started = time.perf_counter()
                seconds, count = await _raw_run(client, url)
                gaps = monitor.gaps(started, started + seconds)
                cpu = monitor.cpu_gaps(started, started + seconds)
                raw_runs.append(
                    {"seconds": seconds, "chunks": count, "stall": max(gaps), "stall_cpu": max(cpu)}
                )
                await asyncio.sleep(0.05)
                seconds, count = await _raw_run(local, url)
                local_runs.append({"seconds": seconds, "chunks": count})
                await asyncio.sleep(0.1)
                run = await mira.once()
                # the stall window includes the markdown catching up after the run
                span = (run["start"], run["end"] + run["render_tail"])
                gaps = monitor.gaps(*span)
                run["stall"] = max(gaps)
                run["stall_cpu"] = max(monitor.cpu_gaps(*span))
                run["stall_at"] = monitor.worst_at(*span)  # after the send
                run["over_frame"] = sum(1 for g in gaps if g * 1000 > FRAME_MS)
                mira_runs.append(run)
                await asyncio.sleep(0.1)
        long_runs = await _long_thread(window, services, mira, monitor, long_thread, runs)
    finally:
        monitor.stop()
        await window.tasks.cancel_all()
        window.close()
        await services.aclose()
    return {"raw": raw_runs, "local": local_runs, "mira": mira_runs, "long": long_runs}


def _serve(chunks: int) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.benchmarks.stream_server", str(chunks)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def run(quick: bool, root: Path) -> dict[str, Any]:
    chunks = 500 if quick else 5_000
    runs = 2 if quick else 5
    long_thread = 500 if quick else 5_000
    server, url = _serve(chunks)
    try:
        _, loop = qt_loop()
        with tempfile.TemporaryDirectory(prefix="mira-bench-stream-", dir=root) as tmp:
            try:
                measured = loop.run_until_complete(_bench(url, Path(tmp), runs, long_thread))
            finally:
                loop.close()
    finally:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.close()
        requests = server.stdout.readline().strip()
        server.wait(10)
    raw, local, mira, long = measured["raw"], measured["local"], measured["mira"], measured["long"]
    raw_rate = median([chunks / r["seconds"] for r in raw])
    local_rate = median([chunks / r["seconds"] for r in local])
    mira_rate = median([chunks / r["seconds"] for r in mira])
    window_rate = median([chunks / max(r["window"], 1e-9) for r in mira])
    rendered_rate = median([chunks / (r["seconds"] + r["render_tail"]) for r in mira])
    figures = [
        Figure(
            "tokens/s, send → answer shown",
            mira_rate,
            "tok/s",
            raw_rate,
            "raw httpx tokens/s",
            min_ratio=0.9,
        ),
        Figure(
            "tokens/s, first → last delta",
            window_rate,
            "tok/s",
            raw_rate,
            "raw httpx tokens/s",
            note="excludes the send's set-up (thread, context, request)",
        ),
        Figure(
            "longest event-loop stall while streaming",
            max(r["stall"] for r in mira) * 1000,
            "ms",
            max(r["stall"] for r in raw) * 1000,
            "stall during raw httpx",
            max_value=FRAME_MS,
        ),
        Figure(
            "longest Qt-thread CPU between two ticks while streaming",
            max(r["stall_cpu"] for r in mira) * 1000,
            "ms",
            max(r["stall_cpu"] for r in raw) * 1000,
            "same during raw httpx",
            note="the stall's own work; the rest of a longer stall is waiting for a core",
        ),
        Figure(
            "tokens/s, send → markdown fully rendered",
            rendered_rate,
            "tok/s",
            raw_rate,
            "raw httpx tokens/s",
            note="the live markdown finishes in steps after the run ends",
        ),
        Figure(
            "tokens/s, send → answer shown, vs raw over Mira's transport",
            mira_rate,
            "tok/s",
            local_rate,
            "raw httpx over LocalTransport tokens/s",
            note="the floor of Mira's own transport (aiohttp's parser) for local servers",
        ),
        Figure("send → first delta", median([r["to_first"] for r in mira]) * 1000, "ms"),
        Figure(
            f"send → first delta, {long_thread:,}-message thread",
            median([r["to_first"] for r in long]) * 1000,
            "ms",
            median([r["to_first"] for r in mira]) * 1000,
            "in a new chat",
            note="the history read, measured and sent with the question",
        ),
        Figure(
            f"longest event-loop stall, send in a {long_thread:,}-message thread",
            max(r["stall"] for r in long) * 1000,
            "ms",
            max(r["stall"] for r in raw) * 1000,
            "stall during raw httpx",
        ),
    ]
    return {
        "figures": [f.to_dict() for f in figures],
        "details": {
            "chunks": chunks,
            "runs": runs,
            "server_requests": int(requests or 0),
            "expected_requests": 4 * runs + 4,
            "raw": [_rounded(r) for r in raw],
            "raw_local_transport": [_rounded(r) for r in local],
            "mira": [_rounded(r) for r in mira],
            "long_thread": [_rounded(r) for r in long],
        },
    }


def _rounded(run: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in run.items() if k not in ("start", "end")}
