"""``row_sync.steps``: the steps that turn the sidebar's loaded rows into the
rows read again after an outside change give exactly the new rows, and touch
only what changed (a removal, a thread moved to the top, a rename)."""

from __future__ import annotations

import random
from dataclasses import replace

from mira_desktop.core.models import Thread
from mira_desktop.ui.sidebar.row_sync import Change, Insert, Remove, steps


def thread(n: int, title: str = "") -> Thread:
    return Thread(f"t{n}", title or f"thread {n}", "w", "2026-01-01", f"2026-01-{n:02d}")


def applied(old: list[Thread], new: list[Thread]) -> list[Thread]:
    rows = list(old)
    for step in steps(old, new):
        if isinstance(step, Remove):
            del rows[step.first : step.last + 1]
        elif isinstance(step, Insert):
            rows[step.row : step.row] = step.threads
        else:
            rows[step.row] = step.thread
    return rows


def test_steps_give_the_new_rows_whatever_changed() -> None:
    rng = random.Random(7)
    for _ in range(500):
        pool = [thread(n) for n in range(30)]
        old = rng.sample(pool, rng.randint(0, 20))
        new = rng.sample(pool, rng.randint(0, 20))
        new = [replace(t, title="renamed") if rng.random() < 0.2 else t for t in new]
        assert applied(old, new) == new


def test_steps_touch_only_what_changed() -> None:
    old = [thread(n) for n in range(1, 8)]
    assert steps(old, old) == []
    assert steps(old, old[:2] + old[3:]) == [Remove(2, 2)]
    moved = [old[4], *old[:4], *old[5:]]
    assert steps(old, moved) == [Remove(4, 4), Insert(0, [old[4]])]
    renamed = replace(old[1], title="Renamed")
    assert steps(old, [old[0], renamed, *old[2:]]) == [Change(1, renamed)]
    fresh = thread(20)
    assert steps(old, [fresh, *old]) == [Insert(0, [fresh])]
