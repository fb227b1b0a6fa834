"""``Approvals``: what a run of the agent waits for from the user (PRODUCT.md
§11): a decision on a call that changes files (manual mode: True or False),
or the answers to its questions (a list of strings, or None when dismissed).
The window or the CLI answers with :meth:`Approvals.decide`; a run that ends
before anyone did expires what it still waited for."""

from __future__ import annotations

import asyncio


class Approvals:
    def __init__(self) -> None:
        self._waiting: dict[str, asyncio.Future[object]] = {}

    async def ask(self, call_id: str) -> object:
        """Wait for the user's word on ``call_id`` (True = approved; or the
        answers). Cancelling the waiting task (a Stop) leaves it undecided."""
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        try:
            return await future
        finally:
            self._waiting.pop(call_id, None)

    def decide(self, call_id: str, approved: object) -> bool:
        """Answer a waiting call; False when none waits under that id."""
        future = self._waiting.get(call_id)
        if future is None or future.done():
            return False
        future.set_result(approved)
        return True

    def waiting(self) -> list[str]:
        """The calls waiting for a decision, oldest first."""
        return [call_id for call_id, f in self._waiting.items() if not f.done()]
