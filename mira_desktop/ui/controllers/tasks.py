"""``TaskRunner``: background coroutines of the window, kept referenced (so they
are never garbage-collected mid-flight) and cancellable by key. Unexpected
exceptions are logged and reported through a callback instead of vanishing.
Once closed (the window is closing, the services go next) it starts nothing:
a late signal's task (the context meter re-measuring after the shut-down
stopped an answer) would otherwise reach a closed database."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)


class TaskRunner:
    def __init__(self, on_error: Callable[[BaseException], None] | None = None) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._keyed: dict[str, asyncio.Task[Any]] = {}
        self._on_error = on_error
        self._closed = False

    def start(self, coro: Coroutine[Any, Any, Any], key: str | None = None) -> asyncio.Task[Any]:
        """Run ``coro`` as a task (replacing the task of ``key`` in the index).
        After :meth:`close` the task is cancelled before its first step: the
        coroutine's body never runs."""
        task = asyncio.ensure_future(coro)
        if self._closed:
            task.cancel()
        self._tasks.add(task)
        if key is not None:
            self._keyed[key] = task
        task.add_done_callback(lambda t: self._done(t, key))
        return task

    def _done(self, task: asyncio.Task[Any], key: str | None) -> None:
        self._tasks.discard(task)
        if key is not None and self._keyed.get(key) is task:
            del self._keyed[key]
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("background task failed", exc_info=exc)
            if self._on_error is not None:
                self._on_error(exc)

    def get(self, key: str) -> asyncio.Task[Any] | None:
        return self._keyed.get(key)

    def cancel(self, key: str) -> bool:
        task = self._keyed.get(key)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    async def cancel_all(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Cancel every task and start no more (see :meth:`start`)."""
        self._closed = True
        await self.cancel_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def pending(self) -> int:
        return len(self._tasks)
