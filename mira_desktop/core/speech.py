"""Spoken answers (PRODUCT.md §10, TTS): the value types shared by the speech
service, its engine and the window.

An answer read aloud keeps its audio as a message part of kind ``file``
(``audio/wav`` in the media store, so exports, the doctor and the garbage
collector treat it like any attachment) and a summary under the message's
``data["speech"]``, which is what the timeline shows: :class:`SpeechInfo`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from .media_keys import SPEECH_KEY

SPEECH_MIME = "audio/wav"

SpeechStatus = Literal["pending", "ready", "failed"]


@dataclass(frozen=True, slots=True)
class SpokenAudio:
    """What a synthesizer made: a WAV file's bytes, its length and the voice."""

    wav: bytes
    duration_ms: int
    voice: str


@dataclass(frozen=True, slots=True)
class SpeechInfo:
    """An answer's spoken audio as stored in ``data["speech"]``: being made
    (never stored), made (``sha256``…) or failed (``error``, a MiraError's
    dict). ``truncated``: only the first ``chars`` characters were spoken."""

    status: SpeechStatus
    sha256: str = ""
    name: str = ""
    size: int = 0
    duration_ms: int = 0
    voice: str = ""
    chars: int = 0
    truncated: bool = False
    error: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.status == "failed":
            return {"status": self.status, "error": dict(self.error or {})}
        if self.status == "pending":
            return {"status": self.status}
        return {
            "status": self.status,
            "sha256": self.sha256,
            "name": self.name,
            "size": self.size,
            "duration_ms": self.duration_ms,
            "voice": self.voice,
            "chars": self.chars,
            "truncated": self.truncated,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any] | None) -> SpeechInfo | None:
        """The speech of a message's ``data`` (None when it has none)."""
        raw = (data or {}).get(SPEECH_KEY)
        if not isinstance(raw, dict) or raw.get("status") not in ("pending", "ready", "failed"):
            return None
        if raw["status"] == "failed":
            error = raw.get("error")
            return cls("failed", error=error if isinstance(error, dict) else {})
        if raw["status"] == "pending":
            return cls("pending")
        return cls(
            "ready",
            sha256=str(raw.get("sha256") or ""),
            name=str(raw.get("name") or ""),
            size=int(raw.get("size") or 0),
            duration_ms=int(raw.get("duration_ms") or 0),
            voice=str(raw.get("voice") or ""),
            chars=int(raw.get("chars") or 0),
            truncated=bool(raw.get("truncated")),
        )


class SpeechSynthesizer(Protocol):
    """Turns text into speech. Blocking: callers run it off the event loop,
    one call at a time. Raises ``SpeechError`` when it cannot."""

    def synthesize(self, text: str, language: str) -> SpokenAudio:
        """``language``: "en" or "zh" (the text's main script)."""
        ...
