"""``LiveCadence``: when the next piece of live timeline work may run.

While an answer streams, the timeline's work is per *step* (a markdown render,
a document insert, a relayout, a paint), not per token: rendering every few
milliseconds would spend most of the Qt thread re-rendering text nobody can
read that fast. The cadence measures what each step cost and lets the next one
run only after ``cost × (1 / share − 1)`` more seconds, so live work takes at
most ``share`` of the thread, within ``[floor_ms, ceiling_ms]`` (the ceiling
bounds how long new text waits to be rendered). Once the stream has ended
(``paced=False``) the remaining steps follow ``idle_ms`` apart: the thread
is free, and each step is still short, so nothing stalls.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: share of the Qt thread that live rendering may take while a stream arrives
LIVE_SHARE = 0.15
#: shortest and longest pause after a live step while streaming
FLOOR_MS = 80
CEILING_MS = 220
#: pause between steps once the stream has ended
IDLE_MS = 8
#: a step's longest pass (its preparation, or its edit with the relayout)
#: aims at this; on a slower machine steps get smaller (``adapted_step_scale``)
STEP_TARGET_S = 0.004
#: steps shrink to no less than this share of the caller's budget
MIN_STEP_SCALE = 0.25


def paced_wait_ms(cost_s: float, *, share: float, floor_ms: int, ceiling_ms: int) -> int:
    """The pause after work that cost ``cost_s`` seconds that keeps the work at
    ``share`` of the time, clamped to ``[floor_ms, ceiling_ms]``."""
    wait = cost_s * (1.0 / share - 1.0) * 1000.0
    return int(min(ceiling_ms, max(floor_ms, wait)))


def adapted_step_scale(
    scale: float,
    pass_cost_s: float,
    *,
    target_s: float = STEP_TARGET_S,
    floor: float = MIN_STEP_SCALE,
) -> float:
    """The share of the step budget for the next step, after one at ``scale``
    whose longest pass cost ``pass_cost_s``: halfway to the share that would
    have cost ``target_s`` (a step's cost grows with the characters it
    renders), within ``[floor, 1]``. A fixed character budget cannot bound a
    step's time on every machine; one frame's stall is the step's longest pass
    plus the paint after it."""
    if pass_cost_s <= 0:
        return scale
    wanted = scale * target_s / pass_cost_s
    return min(1.0, max(floor, (scale + wanted) / 2))


class StepSizer:
    """The share of a step budget live steps render, learnt from what steps
    cost (:func:`adapted_step_scale`). One is shared by the message widgets of
    a timeline: the machine's speed is the same for every answer, so a new
    answer's first step — the costliest, it also rebuilds the plain rest —
    starts from what the last answers learnt, not from the full budget."""

    __slots__ = ("scale",)

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    def budget(self, budget: int) -> int:
        """``budget`` characters scaled (at least one)."""
        return max(1, int(budget * self.scale))

    def step_cost(self, pass_cost_s: float) -> None:
        """A step's longest pass cost ``pass_cost_s`` seconds."""
        self.scale = adapted_step_scale(self.scale, pass_cost_s)


class LiveCadence:
    """Tracks when the next live step is due. See the module docstring."""

    def __init__(
        self,
        *,
        share: float = LIVE_SHARE,
        floor_ms: int = FLOOR_MS,
        ceiling_ms: int = CEILING_MS,
        idle_ms: int = IDLE_MS,
        clock: Callable[[], float] = time.perf_counter,
    ):
        self.share, self.idle_ms = share, idle_ms
        self.floor_ms, self.ceiling_ms = floor_ms, ceiling_ms
        self._clock = clock
        self._next = 0.0
        self.last_cost = 0.0

    def due(self) -> bool:
        """A step may run now."""
        return self._clock() >= self._next

    def wait_ms(self) -> int:
        """Milliseconds until a step may run (0 when due)."""
        return max(0, int((self._next - self._clock()) * 1000.0 + 0.999))

    def spent(self, cost_s: float, *, paced: bool) -> None:
        """A step just ended that cost ``cost_s`` seconds; ``paced`` while the
        stream still arrives (the share applies), else the idle pause."""
        self.last_cost = cost_s
        if paced:
            wait = paced_wait_ms(
                cost_s, share=self.share, floor_ms=self.floor_ms, ceiling_ms=self.ceiling_ms
            )
        else:
            wait = self.idle_ms
        self._next = self._clock() + wait / 1000.0

    def release(self) -> None:
        """Make the next step due now (e.g. the stream ended)."""
        self._next = 0.0
