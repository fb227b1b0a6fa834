"""``LoopPacer``: lets the event loop breathe during a fast stream.

httpx hands over lines that are already buffered without suspending, so a loop
consuming a fast stream can run for tens of milliseconds without giving the
event loop a turn — on the Qt thread (qasync) that is a visible stall. Calling
``await pacer.tick()`` once per item yields (``asyncio.sleep(0)``) whenever the
work since the last yield exceeds a small budget, and costs nothing otherwise."""

from __future__ import annotations

import asyncio
import time

DEFAULT_BUDGET = 0.002  # seconds of uninterrupted work before yielding


class LoopPacer:
    def __init__(self, budget: float = DEFAULT_BUDGET) -> None:
        self._budget = budget
        self._since = time.monotonic()

    async def tick(self) -> None:
        if time.monotonic() - self._since >= self._budget:
            await asyncio.sleep(0)
            self._since = time.monotonic()
