"""Waiting inside ``async def`` GUI tests. Blocking ``qtbot.waitUntil`` must not be
used there (tech-notes §4: the nested Qt loop does not advance asyncio tasks), so
tests poll with ``await asyncio.sleep`` instead."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(predicate: Callable[[], object], timeout: float = 8.0) -> None:
    """Return once ``predicate()`` is truthy; fail the test after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)
