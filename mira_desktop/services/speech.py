"""``SpeechService``: answers read aloud with the system voice (PRODUCT.md §10).

A thread with its TTS switch on (``Thread.tts_enabled``) has each non-empty
completed answer spoken after it ends (:meth:`after_answer`, called by the
chat service): the answer's words (``speech_text.speakable``) become a WAV
file in the media store, saved on the message as a ``file`` part and a
summary under ``data["speech"]`` (``core/speech.py``). Any answer can also be
read aloud on request (:meth:`speak`: the answer's menu, ``mira-desktop
thread speak``). The answer itself is never touched: a voice that fails
leaves the text as it is and records why on the message, so the timeline
shows it with a way to try again (``answer_media.py`` holds what this shares
with illustrated answers).

Synthesis is blocking and the engine is not thread-safe: it runs on one
thread of its own, one answer at a time."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.answer_media import MadePart
from ..core.errors import SpeechError
from ..core.models import Message, Thread
from ..core.speech import SPEECH_KEY, SPEECH_MIME, SpeechInfo, SpeechSynthesizer
from .answer_media import AnswerMediaMaker, Made, ended_answer
from .speech_text import MAX_SPOKEN_CHARS, speakable

if TYPE_CHECKING:
    from ..storage.media_store import MediaStore
    from ..storage.store import Store

log = logging.getLogger(__name__)


class SpeechService(AnswerMediaMaker):
    key = SPEECH_KEY
    ended_only = "Only an answer that has ended can be read aloud."
    gone = "The audio of this answer is gone from the data folder."
    gone_hint = "Read the answer aloud again."

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
        super().__init__(store, media)
        if voice is None:
            from .speech_engine import SystemVoice

            voice = SystemVoice()
        self._voice = voice
        self._limit = limit
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mira-speech")

    def after_answer(self, thread: Thread, message: Message | None) -> bool:
        """An answer ended: read it aloud in the background when the thread's
        switch is on and it is a non-empty completed answer. True if started."""
        if not thread.tts_enabled or message is None or not ended_answer(message):
            return False
        self.start(message)
        return True

    async def speak(self, message_id: str) -> Message:
        """Read one answer aloud now (``AnswerMediaMaker.make_now``)."""
        return await self.make_now(message_id)

    async def copy_audio(self, info: SpeechInfo, target: Path) -> Path:
        return await self.copy_made(info.sha256, info.size, target)

    async def aclose(self) -> None:
        await super().aclose()
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _make(self, message: Message) -> Made:
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
        info = SpeechInfo(
            "ready",
            sha256=sha256,
            name=f"answer-{message.id[:8]}.wav",
            size=len(audio.wav),
            duration_ms=audio.duration_ms,
            voice=audio.voice,
            chars=len(words.text),
            truncated=words.truncated,
        )
        return info.to_dict(), MadePart("file", sha256, info.name, SPEECH_MIME, info.size)
