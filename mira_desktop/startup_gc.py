"""The cyclic garbage collector around a window launch.

Before its first frame a launch creates ~50,000 container objects that live
as long as the process: modules, classes, functions, enum members, the
window's wrappers. Each time 700 new ones accumulate, the collector walks
the youngest of them again, and now and then the middle generation:
~85 collections, 12-15 ms of the Qt thread before the first frame (measured
with ``gc.callbacks`` on the 20,000-thread benchmark folder), and every
later full collection walks all of them once more, a pause of ~16 ms at a
moment nobody chose (mid-stream, mid-scroll).

So the program's own window launch (``app.main``) calls :func:`pause` before
it imports the window, and the launch calls :func:`settle` once the window
has settled (``ui/launch.py``, ``GC_SETTLE_DELAY_S`` after it shows, with the
other deferred start-up work). ``settle`` collects once — the few hundred
objects of start-up's reference cycles are freed, not kept; ~16 ms, when
nobody waits — then freezes what is left (``gc.freeze``: later collections
skip it) and turns the collector back on. Only a process that paused
settles: a test calling the launch in-process keeps its collector as it
was. Qt-free (the CLI and the window share it).

A long thread shown in the window is the same story at a later moment: the
objects of its 5,000 messages live while it is open, and every full
collection walks them again — 18–28 ms holding the GIL, which during a send
(many short-lived objects: the request, the stream) came every few sends, in
whichever thread allocated, the window waiting. So once such a thread is
shown (:func:`after_load`), :func:`resettle` collects the young objects —
the load's own garbage — and freezes what is left, shortly after the first
paint (after the last of several long threads gone through): 5–11 ms, where
collecting everything took 17–55 ms. What was frozen before and has become
garbage in a reference cycle since waits for a full pass (everything
unfrozen, collected, frozen again), which runs when the frozen objects have
grown by :data:`FULL_GROWTH` since the last one. (The timeline's dropped
rows were such cycles, ~130 objects a thread switch; they are freed at once
now, so a full pass finds next to nothing.)"""

from __future__ import annotations

import gc
import logging
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asyncio import TimerHandle

log = logging.getLogger(__name__)

_paused = False
_settled = False  # a launch's settle collected and froze (see resettle)
_pending: TimerHandle | None = None  # the scheduled resettle
_full_count = 0  # objects frozen by the last full pass (settle's included)

#: messages of a thread, shown at once, that make it worth a resettle
LARGE_LOAD = 2_000
#: after the load, when the resettle runs (after the first paint)
RESETTLE_DELAY_S = 0.1
#: growth of the frozen objects since the last full pass that makes a
#: resettle a full pass (frozen garbage is bounded by about this share)
FULL_GROWTH = 0.1


def pause() -> None:
    """Turn the collector off until :func:`settle` (once; a collector that was
    already off is left to whoever turned it off)."""
    global _paused
    if _paused or not gc.isenabled():
        return
    gc.disable()
    _paused = True


def paused() -> bool:
    return _paused


def settle(collect: bool = True) -> None:
    """Collect start-up's garbage, freeze the survivors and turn the collector
    back on; ``collect=False`` only turns it back on (a launch that is ending).
    Does nothing when :func:`pause` did not turn it off, so it is safe to call
    again."""
    global _paused, _settled, _full_count
    if not _paused:
        return
    _paused = False
    if not collect:
        gc.enable()
        return
    started = time.perf_counter()
    freed = gc.collect()
    gc.freeze()
    gc.enable()
    _settled = True
    _full_count = gc.get_freeze_count()
    log.debug(
        "start-up collection: %d objects freed, %d frozen, %.1f ms",
        freed,
        gc.get_freeze_count(),
        (time.perf_counter() - started) * 1000,
    )


def after_load(count: int, delay: float = RESETTLE_DELAY_S) -> None:
    """``count`` messages were just shown: when that is a long thread,
    :func:`resettle` ``delay`` seconds after the last such load (someone
    going through several long threads gets one pause, when they stop).
    Only in a process whose launch settled its collector."""
    global _pending
    if count < LARGE_LOAD or not _settled:
        return
    import asyncio  # the launch imports this module before asyncio

    if _pending is not None:
        _pending.cancel()
    _pending = asyncio.get_running_loop().call_later(delay, resettle)


def resettle() -> None:
    """Collect the young objects and freeze what is left: later full
    collections skip it (5–11 ms with a 3,000-message thread open). When the
    frozen objects have grown by :data:`FULL_GROWTH` since the last full
    pass, collect everything, the frozen objects included (17–55 ms), so
    frozen garbage stays bounded. Does nothing unless the launch settled
    and the collector is on."""
    global _pending, _full_count
    _pending = None
    if not _settled or not gc.isenabled():
        return
    started = time.perf_counter()
    full = gc.get_freeze_count() > _full_count * (1.0 + FULL_GROWTH)
    if full:
        gc.unfreeze()
        freed = gc.collect()
    else:
        freed = gc.collect(1)
    gc.freeze()
    if full:
        _full_count = gc.get_freeze_count()
    log.debug(
        "collection after a long thread (%s): %d objects freed, %d frozen, %.1f ms",
        "full" if full else "young",
        freed,
        gc.get_freeze_count(),
        (time.perf_counter() - started) * 1000,
    )
