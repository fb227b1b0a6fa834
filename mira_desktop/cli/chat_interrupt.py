"""Ctrl+C in ``mira-desktop chat`` (``chat_cmd.py``), whatever the command is
doing: before the message is sent (the attachment check) nothing is sent;
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
    def __init__(self, services: Services, run_key: str) -> None:
        self._services = services
        self._run_key = run_key
        self._waiting: asyncio.Future[None] | None = None
        #: Ctrl+C was pressed (at least once)
        self.pressed = False

    def press(self) -> None:
        """The SIGINT handler."""
        self.pressed = True
        self._services.chat.stop(self._run_key)
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
