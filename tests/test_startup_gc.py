"""The garbage collector around a window launch (``mira_desktop/startup_gc``):
paused from the program's own launch until the window has settled, then one
collection, start-up's survivors frozen and the collector back on. The
pausing checks run in a fresh interpreter: the test process's collector is
left alone."""

from __future__ import annotations

import gc
import os
import textwrap
from pathlib import Path

from mira_desktop import startup_gc
from mira_desktop.ui import launch
from tests.support.fresh import json_of


def _run(code: str, tmp_path: Path) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "MIRA_DATA_DIR": str(tmp_path / "d")}
    return json_of(textwrap.dedent(code), env=env)


def test_settle_frees_the_cycles_made_while_paused_and_freezes_the_rest(tmp_path: Path) -> None:
    state = _run(
        """
        import gc, json, weakref
        from mira_desktop import startup_gc

        class Node:
            pass

        startup_gc.pause()
        paused = [gc.isenabled(), startup_gc.paused()]
        garbage = Node(); garbage.me = garbage  # a cycle nothing refers to
        dead = weakref.ref(garbage)
        del garbage
        kept = Node(); kept.me = kept
        before = dead() is not None  # no collection ran while paused
        startup_gc.settle()
        after = [gc.isenabled(), startup_gc.paused(), dead() is None, gc.get_freeze_count()]
        startup_gc.settle()  # again: nothing more happens
        print(json.dumps({"paused": paused, "before": before, "after": after,
                          "again": gc.get_freeze_count() == after[3]}))
        """,
        tmp_path,
    )
    assert state["paused"] == [False, True]
    assert state["before"] is True
    enabled, still_paused, freed, frozen = state["after"]
    assert enabled and not still_paused and freed
    assert frozen > 1000  # the interpreter's and the package's objects
    assert state["again"] is True


def test_a_collector_someone_else_turned_off_stays_off(tmp_path: Path) -> None:
    state = _run(
        """
        import gc, json
        from mira_desktop import startup_gc

        gc.disable()
        startup_gc.pause()
        startup_gc.settle()
        print(json.dumps([gc.isenabled(), startup_gc.paused(), gc.get_freeze_count()]))
        """,
        tmp_path,
    )
    assert state == [False, False, 0]


def test_settle_without_collecting_only_turns_the_collector_back_on(tmp_path: Path) -> None:
    state = _run(
        """
        import gc, json
        from mira_desktop import startup_gc

        startup_gc.pause()
        startup_gc.settle(collect=False)
        print(json.dumps([gc.isenabled(), startup_gc.paused(), gc.get_freeze_count()]))
        """,
        tmp_path,
    )
    assert state == [True, False, 0]


def test_settle_without_a_pause_leaves_this_process_alone() -> None:
    frozen = gc.get_freeze_count()
    assert gc.isenabled() and not startup_gc.paused()
    startup_gc.settle()
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_the_settle_comes_after_the_start_up_chores() -> None:
    assert launch.GC_SETTLE_DELAY_S > launch.CHORES_DELAY_S


def test_a_long_thread_shown_is_collected_once_and_frozen(tmp_path: Path) -> None:
    """After a settled launch, a load of a long thread schedules one
    resettle, after the last of loads close together: the young garbage is
    freed and what is left is frozen. A cycle the launch froze and that was
    dropped since — which no ordinary collection frees — waits for a full
    pass, which comes once the frozen objects have grown by FULL_GROWTH. A
    short thread schedules nothing."""
    state = _run(
        """
        import asyncio, gc, json, weakref
        from mira_desktop import startup_gc

        class Node:
            pass

        def cycle():
            node = Node(); node.me = node
            return weakref.ref(node)

        startup_gc.pause()
        frozen_then_dropped = Node(); frozen_then_dropped.me = frozen_then_dropped
        old = weakref.ref(frozen_then_dropped)
        startup_gc.settle()  # frozen with the rest of start-up
        settled = gc.get_freeze_count()
        del frozen_then_dropped  # a cycle no collection looks at while frozen
        ran = []
        real = startup_gc.resettle
        startup_gc.resettle = lambda: (ran.append(1), real())

        async def main():
            startup_gc.after_load(startup_gc.LARGE_LOAD - 1, delay=0.01)
            await asyncio.sleep(0.05)
            short = len(ran)
            gc.collect()  # an ordinary full collection skips the frozen
            before = old() is not None
            # a thread's objects, with garbage of its own, a little fewer than
            # the growth that makes a full pass
            kept = [Node() for _ in range(int(settled * startup_gc.FULL_GROWTH) - 200)]
            young = cycle()
            startup_gc.after_load(startup_gc.LARGE_LOAD, delay=0.2)
            await asyncio.sleep(0.1)
            startup_gc.after_load(startup_gc.LARGE_LOAD + 5, delay=0.2)  # another, soon
            await asyncio.sleep(0.15)
            waiting = len(ran)  # 0.25 s after the first load, 0.15 s after the last
            await asyncio.sleep(0.2)
            first = {"ran": len(ran), "young_freed": young() is None,
                     "old_freed": old() is None, "grown": gc.get_freeze_count() - settled}
            # the next long thread: its objects take the frozen set over the growth
            kept += [Node() for _ in range(400)]
            startup_gc.after_load(startup_gc.LARGE_LOAD, delay=0.01)
            await asyncio.sleep(0.05)
            startup_gc.after_load(startup_gc.LARGE_LOAD, delay=0.01)
            await asyncio.sleep(0.05)
            second = {"ran": len(ran), "old_freed": old() is None}
            # the full pass is the new baseline: the next ones are young again
            again = Node(); again.me = again
            again_ref = weakref.ref(again)
            startup_gc.after_load(startup_gc.LARGE_LOAD, delay=0.01)
            await asyncio.sleep(0.05)
            del again  # frozen, then dropped
            startup_gc.after_load(startup_gc.LARGE_LOAD, delay=0.01)
            await asyncio.sleep(0.05)
            third = {"ran": len(ran), "again_freed": again_ref() is None}
            return short, before, waiting, first, second, third, len(kept)

        short, before, waiting, first, second, third, kept = asyncio.run(main())
        print(json.dumps({"short": short, "before": before, "waiting": waiting,
                          "first": first, "second": second, "third": third, "kept": kept,
                          "frozen": gc.get_freeze_count(), "enabled": gc.isenabled()}))
        """,
        tmp_path,
    )
    assert state["short"] == 0
    assert state["before"] is True
    assert state["waiting"] == 0 and state["first"]["ran"] == 1  # once, after the last load
    assert state["first"]["young_freed"] is True
    assert state["first"]["old_freed"] is False  # frozen garbage waits for a full pass…
    assert state["first"]["grown"] >= state["kept"] - 400  # …and the thread's objects are frozen
    assert state["second"] == {"ran": 3, "old_freed": True}  # the second one is full
    assert state["third"] == {"ran": 5, "again_freed": False}
    assert state["frozen"] > 1000 and state["enabled"]


def test_without_a_settled_launch_a_long_thread_changes_nothing() -> None:
    frozen = gc.get_freeze_count()
    startup_gc.after_load(startup_gc.LARGE_LOAD * 10)  # no loop needed: nothing is scheduled
    startup_gc.resettle()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
