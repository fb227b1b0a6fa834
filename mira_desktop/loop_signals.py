"""Signal handlers on an asyncio loop, where the platform has them: the
window's clean shut-down on SIGTERM/SIGINT (``ui/launch.py``) and Ctrl+C in
the CLI's long commands (``cli/chat_cmd.py``, ``cli/kb_cmd.py``)."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def add_handler(
    loop: asyncio.AbstractEventLoop, sig: signal.Signals, callback: Callable[..., Any], *args: Any
) -> bool:
    """``loop.add_signal_handler(sig, callback, *args)``; False where that
    cannot be: on Windows (asyncio has no signal handlers there) and off the
    main thread."""
    try:
        loop.add_signal_handler(sig, callback, *args)
    except (NotImplementedError, RuntimeError, ValueError):
        log.debug("no handler for %s here", sig.name)
        return False
    return True
