"""The sidebar's flat rows (``GroupedRows``) after live changes: random moves,
removals, insertions, replacements and pages, with pins, threads without a
group, groups met again further down and collapsed groups, always equal the
rows built afresh; and a change near the top builds only the rows near the
top, however many are loaded."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from mira_desktop.core.history import ThreadGroup
from mira_desktop.core.models import Thread
from mira_desktop.ui.sidebar.grouped_rows import Change, GroupedRows, same_at_end


def thread(n: int, group: str) -> Thread:
    """A thread whose group is its ``title`` (empty: no group)."""
    return Thread(id=f"t{n}", title=group, workspace_id="w", created_at="", updated_at="")


class CountingGroups:
    """``group_of`` by title, counting its calls (the rows it built)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, t: Thread) -> ThreadGroup | None:
        self.calls += 1
        return ThreadGroup(t.title, t.title.upper()) if t.title else None


def fresh(threads: list[Thread], collapsed: set[str]) -> GroupedRows:
    rows = GroupedRows(CountingGroups(), collapsed)
    rows.rebuild(threads)
    return rows


def check(rows: GroupedRows, threads: list[Thread], change: Change | None = None) -> None:
    expected = fresh(threads, rows.collapsed)
    assert rows.entries == expected.entries
    assert rows.row_of == expected.row_of
    assert rows.groups == expected.groups
    assert rows.threads == expected.threads
    assert rows.thread_count() == len(threads)
    # the bookkeeping the next change starts from
    assert rows._starts == expected._starts
    assert rows._last_row == expected._last_row
    if change is not None:  # the kept rows are really kept
        old, new, prefix, suffix = change.old, change.new, change.prefix, change.suffix
        assert prefix + suffix <= min(len(old), len(new))
        assert old[:prefix] == new[:prefix]
        assert old[len(old) - suffix :] == new[len(new) - suffix :]


@pytest.mark.parametrize("seed", range(6))
def test_random_live_changes_give_the_rows_built_afresh(seed: int) -> None:
    rng = random.Random(seed)
    # mostly in order (runs of a group), some pins on top, some without a
    # group, and now and then a group met again further down
    names = ["pinned", "today", "yesterday", "week", "m10", "m09", "m08", ""]

    def random_group(position: float) -> str:
        if rng.random() < 0.15:
            return rng.choice(names)
        return names[min(int(position * len(names)), len(names) - 1)]

    threads = [thread(n, random_group(n / 80)) for n in range(80)]
    collapsed = {"yesterday"} if seed % 2 else set()
    rows = GroupedRows(CountingGroups(), collapsed)
    rows.rebuild(threads[:40])
    rows.extend(rows.build_after(threads[40:]))
    check(rows, threads)
    serial = 1000
    for _step in range(400):
        choice = rng.random()
        if choice < 0.35 and threads:  # moved (to the top, most often), maybe regrouped
            old = threads.pop(rng.randrange(len(threads)))
            group = old.title if rng.random() < 0.5 else rng.choice(names)
            where = 0 if rng.random() < 0.5 else rng.randrange(len(threads) + 1)
            threads.insert(where, replace(old, title=group))
        elif choice < 0.5 and threads:  # replaced where it stands
            at = rng.randrange(len(threads))
            threads[at] = replace(threads[at], title=rng.choice(names))
        elif choice < 0.65 and threads:
            del threads[rng.randrange(len(threads))]
        elif choice < 0.8:
            serial += 1
            threads.insert(rng.randrange(len(threads) + 1), thread(serial, rng.choice(names)))
        elif choice < 0.9:  # a page
            page = [thread(serial + k, random_group(1.0)) for k in range(1, rng.randrange(1, 6))]
            serial += len(page)
            threads.extend(page)
            rows.extend(rows.build_after(page))
            check(rows, threads)
            continue
        elif choice < 0.95:  # retitled in place, same group
            at = rng.randrange(len(threads)) if threads else -1
            if at >= 0:
                threads[at] = replace(threads[at], workspace_id="v")
                rows.replaced(at, threads[at])
                check(rows, threads)
            continue
        else:
            collapsed.symmetric_difference_update({rng.choice(names)})
            check(rows, threads, rows.rebuild(threads))
            continue
        check(rows, threads, rows.update(threads))


def test_a_change_near_the_top_builds_the_rows_near_the_top() -> None:
    """12,000 threads loaded in 40 groups: bumping the fourth thread to the
    top, or removing the tenth, builds a handful of rows; a thread bumped from
    row 6,000 builds about 6,000."""
    threads = [thread(n, f"g{n // 300:02d}") for n in range(12_000)]
    groups = CountingGroups()
    rows = GroupedRows(groups, set())
    rows.rebuild(threads)
    groups.calls = 0
    threads.insert(0, threads.pop(3))  # the same group: no header moves
    check(rows, threads, rows.update(threads))
    assert groups.calls <= 12
    groups.calls = 0
    del threads[10]
    rows.update(threads)
    assert groups.calls <= 20
    groups.calls = 0
    threads.insert(0, replace(threads.pop(6_000), title="g00"))  # a group's header moves
    rows.update(threads)
    assert 6_000 <= groups.calls <= 6_020
    check(rows, threads)


def test_a_change_near_the_end_builds_the_rows_near_the_end() -> None:
    """12,000 threads loaded in 40 groups: removing the last thread (or the
    last of its group), or replacing the last one, builds no more than a
    handful of rows (it rebuilt all 12,000: nothing was kept at the end)."""
    threads = [thread(n, f"g{n // 300:02d}") for n in range(12_000)]
    groups = CountingGroups()
    rows = GroupedRows(groups, set())
    rows.rebuild(threads)
    groups.calls = 0
    del threads[-1]
    check(rows, threads, rows.update(threads))
    assert groups.calls <= 4
    groups.calls = 0
    del threads[-299:]  # the rest of the last group: its header goes
    check(rows, threads, rows.update(threads))
    assert groups.calls <= 4
    groups.calls = 0
    threads[-1] = replace(threads[-1], title="g00")  # a group met again: no header
    check(rows, threads, rows.update(threads))
    assert groups.calls <= 4


def test_a_group_left_empty_above_the_kept_rows_loses_its_header() -> None:
    """The only thread of a group moves to another: its header goes, and the
    rows below (kept) move up."""
    threads = [thread(0, "a"), thread(1, "b"), thread(2, "c"), thread(3, "c")]
    rows = fresh(threads, set())
    threads[1] = replace(threads[1], title="a")
    change = rows.update(threads)
    check(rows, threads, change)
    assert rows.entries == [
        ("h", "a"),
        ("t", "t0"),
        ("t", "t1"),
        ("h", "c"),
        ("t", "t2"),
        ("t", "t3"),
    ]
    assert "b" not in rows.groups


def test_a_group_met_again_below_keeps_a_single_header() -> None:
    """A group whose first run is above the change and which comes again below
    it: moving its first thread to the top moves the header, and the later run
    still gets none."""
    threads = [thread(0, "x"), thread(1, "a"), thread(2, "x"), thread(3, "b"), thread(4, "x")]
    rows = fresh(threads, set())
    threads.insert(0, threads.pop(1))  # "a" to the top, then "x", "x", "b", "x"
    check(rows, threads, rows.update(threads))
    assert [key for kind, key in rows.entries if kind == "h"] == ["a", "x", "b"]


def test_same_at_end_counts_the_common_end() -> None:
    rng = random.Random(7)
    for _ in range(500):
        items = [object() for _ in range(rng.randrange(0, 40))]
        old, new = list(items), list(items)
        if old and rng.random() < 0.8:
            at = rng.randrange(len(old))
            old[at] = object()  # one item differs (or more below)
        if rng.random() < 0.5:
            new[0:0] = [object() for _ in range(rng.randrange(1, 4))]
        if rng.random() < 0.3 and old:
            del old[0]
        expected = 0
        while (
            expected < min(len(old), len(new))
            and old[len(old) - 1 - expected] is new[len(new) - 1 - expected]
        ):
            expected += 1
        assert same_at_end(old, new) == expected
