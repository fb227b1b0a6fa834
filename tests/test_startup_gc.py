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
