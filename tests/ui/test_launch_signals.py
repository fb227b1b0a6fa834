"""The window launch's signal handling (``ui/launch.py``,
``_close_on_signals``): SIGTERM or SIGINT closes the launch as the close
button does, once; after that the signals have their default action again,
so a second one ends a shut-down that hangs. The real launch ended by
SIGTERM mid-answer is in ``tests/test_window_launch.py``."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import pytest
from PySide6.QtWidgets import QApplication

from mira_desktop.ui import launch

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no asyncio signal handlers")


def test_a_signal_closes_the_launch_once_then_signals_act_as_default(qapp: QApplication) -> None:
    signals = (signal.SIGTERM, signal.SIGINT)
    previous = {sig: signal.getsignal(sig) for sig in signals}
    loop = asyncio.new_event_loop()
    closing = asyncio.Event()
    try:
        launch._close_on_signals(qapp, loop, closing)
        # asyncio's own handler is in place (else the kill below would end pytest)
        assert all(signal.getsignal(sig) not in (signal.SIG_DFL, previous[sig]) for sig in signals)

        async def terminated() -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.wait_for(closing.wait(), timeout=5)

        loop.run_until_complete(terminated())
        assert closing.is_set()
        assert [signal.getsignal(sig) for sig in signals] == [signal.SIG_DFL, signal.SIG_DFL]
    finally:
        loop.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
