"""Ctrl+C in ``mira-desktop chat`` (``chat_cmd.py``), whatever the command is
doing: before the message is sent (names resolved, the attachments read — a
recording written down by a speech-to-text model can take a minute) the
command's task is cancelled, the requests under way dropped, and nothing is
sent;
while the send is prepared or the answer streams, the run is stopped
(``ChatService.stop``: it ends ``stopped``); while the command waits for the
answer's audio or picture, making them is stopped for real (their requests
dropped) and the command ends — the answer itself is saved. Each case exits
with 130."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from ..bootstrap import Services
from .thread_media import stop_made


class ChatInterrupt:
    """Installed for the whole command, before anything is read (``task``:
    the command's, cancelled by a Ctrl+C before the send); ``run_key`` is set
    once the send begins, from when a Ctrl+C stops the run instead."""

    def __init__(self, services: Services, task: asyncio.Task[object] | None) -> None:
        self._services = services
        self._task = task
        self._waiting: asyncio.Future[None] | None = None
        #: the run a Ctrl+C stops (None: the send has not begun)
        self.run_key: str | None = None
        #: Ctrl+C was pressed (at least once)
        self.pressed = False
        #: a Ctrl+C before the send cancelled the command's task
        self.cancelled_early = False

    def press(self) -> None:
        """The SIGINT handler."""
        self.pressed = True
        if self.run_key is None:
            if self._task is not None and not self.cancelled_early:
                self.cancelled_early = True
                self._task.cancel()
            return
        self._services.chat.stop(self.run_key)
        if self._waiting is not None:
            self._waiting.cancel()

    async def wait_for_media(self, waiting: Awaitable[None], message_id: str) -> list[str]:
        """Await ``waiting`` (the report of the answer's media); on Ctrl+C
        stop making them instead. The kinds stopped (none: it went through)."""
        task = asyncio.ensure_future(waiting)
        if not self.pressed:
            self._waiting = task
            try:
                await task
                return []
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if not self.pressed or (current is not None and current.cancelling()):
                    raise
            finally:
                self._waiting = None
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return await stop_made(self._services, message_id)
