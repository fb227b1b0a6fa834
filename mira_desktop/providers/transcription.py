"""Wire format of speech-to-text: OpenAI-compatible ``POST
{base}/audio/transcriptions`` (OpenAI whisper-1 / gpt-4o-transcribe, Groq,
LocalAI, speaches, vLLM) as a multipart form — the audio ``file``, ``model``,
``response_format=json`` and ``language`` only when given — and the parsing of
its answer ``{"text": "..."}``, with anything else raised as
``MalformedStreamError``. The accepted files and the upload limit live in
``core/audio_formats.py`` (the service checks them before sending) and are
handed on here."""

from __future__ import annotations

from typing import Any

from mira_desktop.core.audio_formats import AUDIO_TYPES, MAX_AUDIO_BYTES
from mira_desktop.core.errors import MalformedStreamError

__all__ = [
    "AUDIO_TYPES",
    "MAX_AUDIO_BYTES",
    "TRANSCRIPTION_PATH",
    "TRANSCRIPTION_TIMEOUT_S",
    "parse_transcription",
    "transcription_fields",
    "transcription_files",
]

TRANSCRIPTION_PATH = "/audio/transcriptions"
#: a long recording takes minutes on a slow local server
TRANSCRIPTION_TIMEOUT_S = 300.0


def transcription_fields(model: str, language: str | None = None) -> dict[str, str]:
    """The form's text fields; ``language`` (ISO-639-1) only when given."""
    fields = {"model": model, "response_format": "json"}
    if language:
        fields["language"] = language
    return fields


def transcription_files(
    audio: bytes, filename: str, mime: str
) -> dict[str, tuple[str, bytes, str]]:
    """The form's file part: its name, bytes and content type."""
    return {"file": (filename, audio, mime)}


def parse_transcription(data: Any, provider: str) -> str:
    """The transcript of ``{"text": "..."}``, as the server wrote it."""
    text = data.get("text") if isinstance(data, dict) else None
    if not isinstance(text, str):
        raise MalformedStreamError("The server sent no transcript", provider=provider)
    return text
