"""``SpeechService``: answers read aloud with the system voice (PRODUCT.md §10).

A thread with its TTS switch on (``Thread.tts_enabled``) has each non-empty
completed answer spoken after it ends (:meth:`after_answer`, called by the
chat service): the answer's words (``speech_text.speakable``) become a WAV
file in the media store, saved on the message as a ``file`` part and a
summary under ``data["speech"]`` (``core/speech.py``). Any answer can also be
read aloud on request (:meth:`speak`: the answer's menu, ``mira-desktop
speak``). The answer itself is never touched: a voice that fails leaves the
text as it is and records why on the message, so the timeline shows it with a
way to try again.

Synthesis is blocking and the engine is not thread-safe: it runs on one
thread of its own, one answer at a time. Listeners (:meth:`add_listener`)
hear the message when its speech starts (``status: pending``, never stored)
and when it is saved."""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.attachments import MadePart
from ..core.errors import ConfigError, MiraError, SpeechError, StorageError, worded
from ..core.models import Message, MessageRole, MessageStatus, Thread
from ..core.speech import SPEECH_KEY, SPEECH_MIME, SpeechInfo, SpeechSynthesizer
from .speech_text import MAX_SPOKEN_CHARS, speakable

if TYPE_CHECKING:
    from ..storage.media_store import MediaStore
    from ..storage.store import Store

log = logging.getLogger(__name__)

Listener = Callable[[Message], None]


class SpeechService:
    def __init__(
        self,
        store: Store,
        media: MediaStore,
        voice: SpeechSynthesizer | None = None,
        *,
        limit: int = MAX_SPOKEN_CHARS,
    ) -> None:
        """``voice``: the synthesizer (default: the system's, ``SystemVoice``);
        ``limit``: characters spoken at most per answer."""
        if voice is None:
            from .speech_engine import SystemVoice

            voice = SystemVoice()
        self._store = store
        self._media = media
        self._voice = voice
        self._limit = limit
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mira-speech")
        self._running: dict[str, asyncio.Task[Message]] = {}
        self._listeners: list[Listener] = []

    def add_listener(self, callback: Listener) -> None:
        self._listeners.append(callback)

    def is_speaking(self, message_id: str) -> bool:
        task = self._running.get(message_id)
        return task is not None and not task.done()

    def after_answer(self, thread: Thread, message: Message | None) -> bool:
        """An answer ended: read it aloud in the background when the thread's
        switch is on and it is a non-empty completed answer. True if started."""
        if message is None or not thread.tts_enabled:
            return False
        if message.status is not MessageStatus.COMPLETE or not message.text.strip():
            return False
        self._start(message)
        return True

    async def speak(self, message_id: str) -> Message:
        """Read one answer aloud now (again, if it was); returns the message
        with its speech — ``ready``, or ``failed`` with the error (expected
        problems never raise, except an id that is not an ended answer)."""
        running = self._running.get(message_id)
        if running is not None and not running.done():
            return await asyncio.shield(running)
        message = await self._store.get_message(message_id)
        if message.role is not MessageRole.ASSISTANT or message.status is MessageStatus.STREAMING:
            raise ConfigError(
                "Only an answer that has ended can be read aloud.",
                hint="Wait for the answer to finish, then try again.",
            )
        return await asyncio.shield(self._start(message))

    async def finished(self, message_id: str) -> Message | None:
        """The message once its reading aloud (if one runs) has ended; None when
        none was running."""
        task = self._running.get(message_id)
        if task is None:
            return None
        return await asyncio.shield(task)

    async def copy_audio(self, info: SpeechInfo, target: Path) -> Path:
        """An answer's audio copied to ``target`` (to play it with another
        program, or to keep it); a copy already there whole is kept."""
        return await asyncio.to_thread(self._copy, info, target)

    def _copy(self, info: SpeechInfo, target: Path) -> Path:
        source = self._media.path(info.sha256)
        if not info.sha256 or not source.is_file():
            raise StorageError(
                "The audio of this answer is gone from the data folder.",
                hint="Read the answer aloud again.",
            )
        try:
            if target.is_file() and target.stat().st_size == info.size:
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

    async def drain(self) -> None:
        """Wait for the answers being read aloud (tests, closing)."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def aclose(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)
        self._executor.shutdown(wait=False, cancel_futures=True)

    # ---- one answer -----------------------------------------------------------------
    def _start(self, message: Message) -> asyncio.Task[Message]:
        task = asyncio.get_running_loop().create_task(self._read_aloud(message))
        self._running[message.id] = task
        task.add_done_callback(lambda t: self._forget(message.id, t))
        return task

    def _forget(self, message_id: str, task: asyncio.Task[Message]) -> None:
        if self._running.get(message_id) is task:
            del self._running[message_id]

    async def _read_aloud(self, message: Message) -> Message:
        self._tell(_with_speech(message, SpeechInfo("pending")))
        try:
            info = await self._synthesize(message)
        except MiraError as exc:
            log.info("answer %s not read aloud: %s", message.id, exc)
            info = SpeechInfo("failed", error=exc.to_dict())
        part = None
        if info.status == "ready":
            part = MadePart("file", info.sha256, info.name, SPEECH_MIME, info.size)
        try:
            saved = await self._store.save_answer_media(
                message.id, SPEECH_KEY, info.to_dict(), part
            )
        except MiraError as exc:  # the answer went, or the disk is full
            log.warning("speech of answer %s not saved: %s", message.id, exc)
            failed = info if info.status == "failed" else SpeechInfo("failed", error=exc.to_dict())
            saved = _with_speech(message, failed)
        self._tell(saved)
        return saved

    async def _synthesize(self, message: Message) -> SpeechInfo:
        words = speakable(message.text, limit=self._limit)
        if not words.text:
            raise SpeechError(
                "This answer has nothing to read aloud.",
                hint="Only its text is read; code, links and tables' rules are left out.",
            )
        loop = asyncio.get_running_loop()
        audio = await loop.run_in_executor(
            self._executor, self._voice.synthesize, words.text, words.language
        )
        sha256 = await self._media.put(audio.wav, SPEECH_MIME)
        return SpeechInfo(
            "ready",
            sha256=sha256,
            name=f"answer-{message.id[:8]}.wav",
            size=len(audio.wav),
            duration_ms=audio.duration_ms,
            voice=audio.voice,
            chars=len(words.text),
            truncated=words.truncated,
        )

    def _tell(self, message: Message) -> None:
        for listener in list(self._listeners):
            try:
                listener(message)
            except Exception:
                log.exception("a speech listener failed")


def _with_speech(message: Message, info: SpeechInfo) -> Message:
    return replace(message, data={**(message.data or {}), SPEECH_KEY: info.to_dict()})
