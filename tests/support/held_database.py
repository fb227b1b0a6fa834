"""Stopping the database thread in the middle of a widget's reads.

``stopped_at(services, n)`` installs SQLite's trace callback on the one
database connection (on its worker thread): the ``n``-th statement run from
then on waits, on the worker, until the test releases it. The call that ran
it — a dialog's read of its settings, say — is then still awaited by the
dialog, and the test can close (and delete) the dialog at exactly that await;
every later call queues behind it. ``n`` counts from 1, so sweeping ``n`` over
all the statements of a load closes the dialog at each of its awaits in turn.
The window's periodic ``PRAGMA data_version`` (``OutsideChanges``) is not
counted. No code of the app is replaced: the statements are its own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent

from mira_desktop.bootstrap import Services

HOLD_S = 10
NOT_COUNTED = ("PRAGMA data_version",)


class Stop:
    def __init__(self) -> None:
        self.statements: list[str] = []  # those counted, the one stopped at last
        self.reached = asyncio.Event()
        self._release = threading.Event()

    async def wait(self, timeout: float = HOLD_S) -> str:
        """Wait until the worker stopped; the statement it stopped at."""
        await asyncio.wait_for(self.reached.wait(), timeout)
        return self.statements[-1]

    def release(self) -> None:
        self._release.set()


@asynccontextmanager
async def stopped_at(services: Services, n: int) -> AsyncIterator[Stop]:
    """The database thread stops before its ``n``-th statement from now (see
    the module docstring); released at the latest on leaving the block."""
    loop = asyncio.get_running_loop()
    stop = Stop()

    def trace(sql: str) -> None:  # on the database thread
        if sql.startswith(NOT_COUNTED) or stop.reached.is_set():
            return
        stop.statements.append(sql)
        if len(stop.statements) == n:
            loop.call_soon_threadsafe(stop.reached.set)
            stop._release.wait(HOLD_S)

    worker = services.store.worker
    await worker.run(lambda db: db.conn.set_trace_callback(trace))
    try:
        yield stop
    finally:
        stop.release()
        await worker.run(lambda db: db.conn.set_trace_callback(None))


def delete_now() -> None:
    """Run the deletions ``deleteLater()`` (WA_DeleteOnClose) asked for."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def other_tasks() -> set[asyncio.Task[Any]]:
    return asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]


async def settled(before: set[asyncio.Task[Any]], timeout: float = HOLD_S) -> None:
    """Wait until every task started since ``before`` was taken has ended,
    the tasks those started included."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    await asyncio.sleep(0.05)  # a zero timer's slot (a dialog's first load) ran
    while pending := {t for t in other_tasks() - before if not t.done()}:
        left = deadline - loop.time()
        assert left > 0, f"still running: {pending}"
        await asyncio.wait(pending, timeout=left)
        await asyncio.sleep(0.02)  # a task's done callback may start another
