"""The audio files speech-to-text takes (OpenAI's ``/audio/transcriptions`` and
the servers copying it): their extensions with MIME types, and the upload
limit. Constants only, here in ``core`` so that the transcription service and
the window's file picker read them without the providers package;
``providers/transcription.py`` hands them on with the wire format."""

from __future__ import annotations

#: the largest file the endpoint takes (OpenAI: 25 MB)
MAX_AUDIO_BYTES = 25 * 1024 * 1024

#: extension (lower-case, with the dot) → the MIME type the file is sent with
AUDIO_TYPES: dict[str, str] = {
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".mp3": "audio/mpeg",
    ".mp4": "audio/mp4",
    ".mpeg": "audio/mpeg",
    ".mpga": "audio/mpeg",
    ".oga": "audio/ogg",
    ".ogg": "audio/ogg",
    ".wav": "audio/wav",
    ".webm": "audio/webm",
}

#: why a knowledge base skips audio found while walking a folder (a music
#: collection is not sent off to be transcribed unasked); in ``IngestReport.skipped``
AUDIO_SKIPPED = "audio: add the file itself to have it written down"
