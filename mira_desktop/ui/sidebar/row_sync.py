"""How the sidebar's loaded rows become the rows read again after a change
made elsewhere (``ThreadListModel.sync``), as few row moves as it takes: the
rows that keep their relative order stay where they are (the longest run of
them in the new order), the others leave and come back at their new place.
Pure functions; the model turns the steps into Qt's row signals."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from mira_desktop.core.models import Thread


def staying(old: Sequence[Hashable], new: Sequence[Hashable]) -> list[bool]:
    """For each row of ``old`` (unique keys: thread ids, or the grouped
    list's rows): whether it stays in place — it is in ``new``,
    and on a longest run of ``old`` rows that ``new`` lists in the same order.
    The rows that do not stay are removed; ``new``'s other rows inserted."""
    position = {thread_id: n for n, thread_id in enumerate(new)}
    places = [position.get(thread_id, -1) for thread_id in old]
    # longest increasing subsequence of places (patience sorting), by index
    tails: list[int] = []  # places[...] of the smallest tail of each length
    tail_rows: list[int] = []
    previous = [-1] * len(places)
    for row, place in enumerate(places):
        if place < 0:
            continue
        length = bisect_left(tails, place)
        if length == len(tails):
            tails.append(place)
            tail_rows.append(row)
        else:
            tails[length] = place
            tail_rows[length] = row
        previous[row] = tail_rows[length - 1] if length else -1
    keep = [False] * len(places)
    row = tail_rows[-1] if tail_rows else -1
    while row >= 0:
        keep[row] = True
        row = previous[row]
    return keep


def runs(flags: Sequence[bool]) -> list[tuple[int, int]]:
    """The (first, last) index of each run of True in ``flags``, last run
    first (so removing them one after another keeps the others' indexes)."""
    found: list[tuple[int, int]] = []
    row = len(flags) - 1
    while row >= 0:
        if not flags[row]:
            row -= 1
            continue
        last = row
        while row >= 0 and flags[row]:
            row -= 1
        found.append((row + 1, last))
    return found


@dataclass(frozen=True, slots=True)
class Remove:
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class Insert:
    row: int
    threads: list[Thread]


@dataclass(frozen=True, slots=True)
class Change:
    row: int
    thread: Thread


def steps(old: Sequence[Thread], threads: Sequence[Thread]) -> list[Remove | Insert | Change]:
    """What turns the rows ``old`` into ``threads`` (a repeated id counts
    once), each step's rows counted in the list as the steps before left it:
    removals from the end, then insertions and changes from the top."""
    new = list({t.id: t for t in threads}.values())
    keep = staying([t.id for t in old], [t.id for t in new])
    plan: list[Remove | Insert | Change] = [Remove(a, b) for a, b in runs([not k for k in keep])]
    kept = [t for t, k in zip(old, keep, strict=True) if k]
    held = {t.id for t in kept}
    row = n = 0
    while n < len(new):
        if row < len(kept) and kept[row].id == new[n].id:
            if kept[row] != new[n]:
                plan.append(Change(n, new[n]))
            row, n = row + 1, n + 1
            continue
        end = n  # kept rows are a subsequence of new: new[n] is not one of them
        while end < len(new) and new[end].id not in held:
            end += 1
        plan.append(Insert(n, new[n:end]))
        n = end
    return plan
