"""A send (or regeneration) being prepared before its run starts: planned
from the database, then routed through the knowledge base (embedding and
rerank requests) and equipped with the agent. ``ChatService`` keeps one per
thread (or draft) id from the moment the send begins, so a Stop — the
window's button, busy input, Ctrl+C — finds it before the run exists.

A Stop while the send is planned lets the planning finish (it reads and
writes the database only); a Stop while the knowledge base or the agent is
consulted cancels that work (its network requests are dropped). Either way
the run then starts already stopped and ends like a Stop before any content:
an existing thread keeps the question and an empty stopped answer, a welcome
draft writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .run_support import RunPlan

__all__ = ["Preparation"]


class Preparation:
    def __init__(self) -> None:
        #: a Stop was asked: the run starts stopped
        self.stopped = False
        #: set when the preparation is over (its run, if any, is registered)
        self.settled = asyncio.Event()
        self._step: asyncio.Task[RunPlan] | None = None

    def stop(self) -> None:
        self.stopped = True
        if self._step is not None:
            self._step.cancel()

    async def unless_stopped(
        self, plan: RunPlan, step: Callable[[RunPlan], Awaitable[RunPlan]]
    ) -> RunPlan:
        """``step(plan)`` — the knowledge base, the agent — or, when a Stop
        comes first or meanwhile, ``plan`` as it is (the run will not ask
        the model anything). A cancellation of the caller itself (its
        consumer went away) is passed on."""
        if self.stopped:
            return plan
        self._step = asyncio.ensure_future(step(plan))
        try:
            return await self._step
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not self.stopped or (current is not None and current.cancelling()):
                raise
            return plan
        finally:
            self._step = None
