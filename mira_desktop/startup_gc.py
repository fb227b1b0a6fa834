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
was. Qt-free (the CLI and the window share it)."""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)

_paused = False


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
    global _paused
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
    log.debug(
        "start-up collection: %d objects freed, %d frozen, %.1f ms",
        freed,
        gc.get_freeze_count(),
        (time.perf_counter() - started) * 1000,
    )
