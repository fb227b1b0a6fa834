"""Token benchmark (issue 9 §7): the context meter
(``ContextMeterService.measure``) on a thread of about 100,000 tokens
(1,300 seeded messages; quick: 130, about 10,000 tokens).

* update after a turn: a question and an answer are added to the thread, then
  the meter measures again — only the two new messages should be counted (per
  message cache); median of five turns;
* typing: measuring with a growing draft (the thread's total is cached under
  its fingerprint, only the draft is counted); p95;
* cold: the first measurement of the thread (everything counted);
* the longest the event loop went without a turn during an update after a
  turn (a 1 ms ticker task beside it): on the Qt thread that is a frozen
  window (info);
* baseline: counting the whole thread from scratch with ``TiktokenCounter``
  (what a meter without caches would do on every update)."""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import build_services
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.core.models import Message, MessageRole

from .common import Figure, dataset, median, percentile

log = logging.getLogger(__name__)

TURNS = 5
QUESTION = "Could you explain how the search index handles 中文 and English words together?"
ANSWER = (
    "The trigram index cuts every text into overlapping three-character pieces, so "
    "机器学习 and 'machine learning' are both found by substring. " * 12
)


class LoopTicker:
    """A task that wakes every millisecond; :meth:`stop` gives the longest
    time between two of its wake-ups beyond the millisecond asked."""

    def __init__(self) -> None:
        self._longest = 0.0
        self._running = True
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        last = time.perf_counter()
        while self._running:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self._longest = max(self._longest, now - last - 0.001)
            last = now

    async def stop(self) -> float:
        self._running = False
        await self._task
        return self._longest


def sizes(quick: bool) -> tuple[int, int]:
    return (1, 130 if quick else 1_300)


async def _add_turn(services: Any, thread_id: str) -> None:
    thread = await services.threads.get_thread(thread_id)
    parent = thread.active_leaf_id
    for role, text in ((MessageRole.USER, QUESTION), (MessageRole.ASSISTANT, ANSWER)):
        message = Message(
            id=new_id(),
            thread_id=thread_id,
            role=role,
            text=text,
            created_at=utc_now(),
            parent_id=parent,
        )
        await services.store.add_message(message)
        parent = message.id


async def _bench(folder: Path, thread_id: str) -> dict[str, Any]:
    services = build_services(folder)
    try:
        meter = services.meter
        messages = await services.threads.get_active_messages(thread_id)
        texts = [m.text for m in messages]
        services.tokens.count("warm up")  # load the encoding outside every timing
        started = time.perf_counter()
        full = sum(services.tokens.count(t) for t in texts)
        full_s = time.perf_counter() - started
        started = time.perf_counter()
        cold = await meter.measure(thread_id)
        cold_s = time.perf_counter() - started
        typing: list[float] = []
        for n in range(1, 21):
            started = time.perf_counter()
            await meter.measure(thread_id, QUESTION[: n * 4])
            typing.append(time.perf_counter() - started)
        updates: list[float] = []
        blocks: list[float] = []
        for _ in range(TURNS):
            await _add_turn(services, thread_id)
            ticker = LoopTicker()
            started = time.perf_counter()
            after = await meter.measure(thread_id)
            updates.append(time.perf_counter() - started)
            blocks.append(await ticker.stop())
    finally:
        await services.aclose()
    return {
        "messages": len(texts),
        "thread_tokens": full,
        "meter_tokens_cold": cold.current_tokens,
        "meter_tokens_after": after.current_tokens,
        "full_count_s": full_s,
        "cold_s": cold_s,
        "typing_p50_s": percentile(typing, 0.5),
        "typing_p95_s": percentile(typing, 0.95),
        "update_s": median(updates),
        "update_max_s": max(updates),
        "update_loop_block_s": max(blocks),
    }


def run(quick: bool, root: Path) -> dict[str, Any]:
    # a fresh folder each run (seeding 1,300 messages takes a second): the turns
    # added below must not grow a data set the next run reuses
    with tempfile.TemporaryDirectory(prefix="tokens-", dir=root) as tmp:
        data = dataset(Path(tmp), "tokens", [sizes(quick)])
        result = asyncio.run(_bench(Path(data["dir"]), data["groups"][0]["ids"][0]))
    ms = 1000.0
    tokens = result["thread_tokens"]
    figures = [
        Figure(
            f"meter update after a turn, {tokens:,}-token thread",
            result["update_s"] * ms,
            "ms",
            result["full_count_s"] * ms,
            "count the whole thread",
        ),
        Figure(
            "meter update, longest event-loop block",
            result["update_loop_block_s"] * ms,
            "ms",
            note="the longest gap of a 1 ms ticker beside the update (max of the turns)",
        ),
        Figure(
            "meter while typing p95",
            result["typing_p95_s"] * ms,
            "ms",
            result["full_count_s"] * ms,
            "count the whole thread",
        ),
        Figure(
            "meter cold (first measure)",
            result["cold_s"] * ms,
            "ms",
            result["full_count_s"] * ms,
            "count the whole thread",
        ),
    ]
    details = {k: round(v, 5) if isinstance(v, float) else v for k, v in result.items()}
    details["meter_service"] = "ContextMeterService.measure (services/meter.py)"
    return {"figures": [f.to_dict() for f in figures], "details": details}
