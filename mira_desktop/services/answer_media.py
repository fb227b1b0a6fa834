"""``AnswerMediaMaker``: what the services that make media after an answer
(PRODUCT.md §10: ``speech.py`` reads it aloud, ``illustration.py`` draws it)
share — one background task per answer, listeners told when it starts
(``status: pending``, never stored) and when it is saved, the outcome saved
on the answer (``Store.save_answer_media``: a part marked with the maker's
``key`` and ``data[key]``), a failure recorded without touching the answer,
and copies of what was made for other programs.

A maker says how to make its media for one answer (:meth:`_make`) and what a
failure looks like (:meth:`_failed`)."""

from __future__ import annotations

import asyncio
import logging
import shutil
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.answer_media import MadePart
from ..core.errors import ConfigError, MiraError, StorageError, worded
from ..core.models import Message, MessageRole, MessageStatus

if TYPE_CHECKING:
    from ..storage.media_store import MediaStore
    from ..storage.store import Store

log = logging.getLogger(__name__)

Listener = Callable[[Message], None]
#: what a maker made: the summary for ``data[key]`` and the part to keep
Made = tuple[dict[str, Any], MadePart]


class AnswerMediaMaker(ABC):
    #: the answer's ``data`` key and its part's ``made_for`` mark
    key: ClassVar[str]
    #: "Only an answer that has ended can be …" (for :meth:`make_now`)
    ended_only: ClassVar[str]
    #: a copy asked for when the file is gone from the media store
    gone: ClassVar[str]
    gone_hint: ClassVar[str]

    def __init__(self, store: Store, media: MediaStore) -> None:
        self._store = store
        self._media = media
        self._running: dict[str, asyncio.Task[Message]] = {}
        self._listeners: list[Listener] = []

    def add_listener(self, callback: Listener) -> None:
        self._listeners.append(callback)

    def is_busy(self, message_id: str) -> bool:
        task = self._running.get(message_id)
        return task is not None and not task.done()

    async def make_now(self, message_id: str) -> Message:
        """Make the media of one ended answer now (again, if it had some);
        returns the message with its outcome — made, or failed with the error
        (expected problems never raise, except an id that is not an ended
        answer)."""
        running = self._running.get(message_id)
        if running is not None and not running.done():
            return await asyncio.shield(running)
        message = await self._store.get_message(message_id)
        if message.role is not MessageRole.ASSISTANT or message.status is MessageStatus.STREAMING:
            raise ConfigError(
                self.ended_only, hint="Wait for the answer to finish, then try again."
            )
        return await asyncio.shield(self.start(message))

    async def finished(self, message_id: str) -> Message | None:
        """The message once its media (if being made) is done; None when
        nothing was being made."""
        task = self._running.get(message_id)
        if task is None:
            return None
        return await asyncio.shield(task)

    async def copy_made(self, sha256: str, size: int, target: Path) -> Path:
        """What was made (``sha256``) copied to ``target`` (to open it with
        another program, or to keep it); a copy already there whole is kept."""
        return await asyncio.to_thread(self._copy, sha256, size, target)

    def _copy(self, sha256: str, size: int, target: Path) -> Path:
        source = self._media.path(sha256)
        if not sha256 or not source.is_file():
            raise StorageError(self.gone, hint=self.gone_hint)
        try:
            if target.is_file() and target.stat().st_size == size:
                return target
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        except OSError as exc:
            raise worded(
                StorageError,
                "Could not write {name}: {reason}",
                {"name": target.name, "reason": exc.strerror or exc},
            ) from exc
        return target

    async def cancel(self, message_id: str) -> bool:
        """Stop making the media of one answer (its request is dropped, nothing
        is saved; the answer itself is untouched) and wait until it has
        stopped. True when something was being made."""
        task = self._running.get(message_id)
        if task is None or task.done():
            return False
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return True

    async def drain(self) -> None:
        """Wait for the media being made (tests, the CLI, closing)."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def aclose(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    # ---- one answer -----------------------------------------------------------------
    def start(self, message: Message) -> asyncio.Task[Message]:
        """Make the media of ``message`` in the background."""
        task = asyncio.get_running_loop().create_task(self._run(message))
        self._running[message.id] = task
        task.add_done_callback(lambda t: self._forget(message.id, t))
        return task

    def _forget(self, message_id: str, task: asyncio.Task[Message]) -> None:
        if self._running.get(message_id) is task:
            del self._running[message_id]

    async def _run(self, message: Message) -> Message:
        self._tell(self._with(message, {"status": "pending"}))
        summary: dict[str, Any]
        part: MadePart | None = None
        try:
            summary, part = await self._make(message)
        except MiraError as exc:
            log.info("%s of answer %s not made: %s", self.key, message.id, exc)
            summary = self._failed(exc)
        try:
            saved = await self._store.save_answer_media(message.id, self.key, summary, part)
        except MiraError as exc:  # the answer went, or the disk is full
            log.warning("%s of answer %s not saved: %s", self.key, message.id, exc)
            saved = self._with(message, summary if part is None else self._failed(exc))
        self._tell(saved)
        return saved

    @abstractmethod
    async def _make(self, message: Message) -> Made:
        """Make and store the media of one answer; raise a ``MiraError``."""

    def _failed(self, error: MiraError) -> dict[str, Any]:
        return {"status": "failed", "error": error.to_dict()}

    def _with(self, message: Message, summary: dict[str, Any]) -> Message:
        return replace(message, data={**(message.data or {}), self.key: summary})

    def _tell(self, message: Message) -> None:
        for listener in list(self._listeners):
            try:
                listener(message)
            except Exception:
                log.exception("a %s listener failed", self.key)


def ended_answer(message: Message | None) -> bool:
    """A non-empty completed answer: the only kind that gets media by itself."""
    return (
        message is not None
        and message.status is MessageStatus.COMPLETE
        and bool(message.text.strip())
    )
