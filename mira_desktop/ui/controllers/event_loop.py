"""The asyncio loop of the window: qasync's QEventLoop running on Qt's loop.

qasync (0.28, on Python 3.11) never installs asyncio's async-generator hooks,
so an async generator left suspended (an httpx stream closed early, say) is
finalised by the garbage collector outside any loop, where its cleanup fails
("no running event loop"). ``new_event_loop`` installs the hooks, so such
generators are closed on the loop, and ``shutdown_asyncgens()`` finds them."""

from __future__ import annotations

import sys

import qasync
from PySide6.QtWidgets import QApplication


def new_event_loop(app: QApplication) -> qasync.QEventLoop:
    loop = qasync.QEventLoop(app)
    sys.set_asyncgen_hooks(
        firstiter=loop._asyncgen_firstiter_hook,
        finalizer=loop._asyncgen_finalizer_hook,
    )
    return loop
