"""Process-wide thread scheduling: how promptly a waiting thread gets the
GIL. Set once by the composition root (``bootstrap.build_services``), which
both front ends and the benchmarks go through."""

from __future__ import annotations

import sys

#: how long a busy thread keeps the GIL while another waits for it (Python's
#: default is 5 ms); see :func:`tune_thread_switching`
SWITCH_INTERVAL_S = 0.001


def tune_thread_switching() -> None:
    """Let the database and worker threads have the GIL promptly.

    A write on the database thread is a few short Python steps between
    SQLite calls that release the GIL; each step waits for the GIL. With the
    default 5 ms switch interval and a busy Qt thread (a fast stream, the
    markdown catching up), each wait can take the whole 5 ms: the outcome of
    an answer was measured taking 28–30 ms to save in half the runs instead
    of 3–4 ms, and "done" came that much later. At 1 ms the waits are short;
    the Qt thread pays a few more switches, each a few microseconds."""
    if sys.getswitchinterval() > SWITCH_INTERVAL_S:
        sys.setswitchinterval(SWITCH_INTERVAL_S)
