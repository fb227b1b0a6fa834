"""Spoken answers (PRODUCT.md §10, TTS): the value types shared by the speech
service, its engine and the window.

An answer read aloud keeps its audio as a message part of kind ``file``
(``audio/wav`` in the media store, so exports, the doctor and the garbage
collector treat it like any attachment) and a summary under the message's
``data["speech"]``, which is what the timeline shows: :class:`SpeechInfo`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from .answer_media import MadeStatus, MadeSummary
from .media_keys import SPEECH_KEY

SPEECH_MIME = "audio/wav"


@dataclass(frozen=True, slots=True)
class SpokenAudio:
    """What a synthesizer made: a WAV file's bytes, its length and the voice."""

    wav: bytes
    duration_ms: int
    voice: str


@dataclass(frozen=True, slots=True)
class SpeechInfo(MadeSummary):
    """An answer's spoken audio as stored in ``data["speech"]``.
    ``truncated``: only the first ``chars`` characters were spoken."""

    key: ClassVar[str] = SPEECH_KEY
    status: MadeStatus
    error: dict[str, Any] | None = None
    sha256: str = ""
    name: str = ""
    size: int = 0
    duration_ms: int = 0
    voice: str = ""
    chars: int = 0
    truncated: bool = False


class SpeechSynthesizer(Protocol):
    """Turns text into speech. Blocking: callers run it off the event loop,
    one call at a time. Raises ``SpeechError`` when it cannot."""

    def synthesize(self, text: str, language: str) -> SpokenAudio:
        """``language``: "en" or "zh" (the text's main script)."""
        ...
