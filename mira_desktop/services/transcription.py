"""``TranscriptionService``: speech to text for voice input and audio files.

A recording (the composer's microphone makes a WAV, see ``voice_clip.py``) or
an audio file is sent to the speech-to-text model chosen in Settings
(``media.transcription_model``: an OpenAI-compatible provider and a model,
e.g. ``whisper-1``, ``gpt-4o-transcribe`` or a local faster-whisper server's)
through the provider's ``/audio/transcriptions``; a caller may name another
provider and model for one request. What cannot work is refused in words
before anything is sent: an empty recording, a file over the upload limit or
in a format the endpoint does not take, no model chosen, a provider that is
gone or cannot transcribe. A server without the endpoint, and an answer with
no words in it, are said plainly too. Qt-free; the service holds nothing to
close (the adapters belong to the provider service)."""

from __future__ import annotations

import asyncio
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.audio_formats import AUDIO_TYPES, MAX_AUDIO_BYTES
from ..core.errors import (
    BadRequestError,
    ConfigError,
    ModelNotFoundError,
    NotFoundError,
    TranscriptionError,
    worded,
)
from ..core.media_keys import TRANSCRIPTION_MODEL_KEY
from ..core.models import ProviderKind
from ..core.ports import TranscriptionProvider

if TYPE_CHECKING:
    from .providers import ProviderService
    from .settings import SettingsService

log = logging.getLogger(__name__)

_NO_MODEL_HINT = (
    "Choose a speech-to-text model in Settings → Chat & data (an OpenAI-compatible provider), "
    "or with `mira-desktop provider transcription-model PROVIDER MODEL`."
)
_MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Transcript:
    """The words heard in a recording, and who heard them."""

    text: str
    provider: str
    model: str


class TranscriptionService:
    def __init__(self, providers: ProviderService, settings: SettingsService) -> None:
        self._providers = providers
        self._settings = settings

    async def transcription_model(self) -> tuple[str, str] | None:
        """The (provider, model) speech is sent to, None until chosen."""
        return await self._settings.model_choice(TRANSCRIPTION_MODEL_KEY)

    async def set_transcription_model(self, provider: str | None, model: str | None) -> None:
        """Choose the speech-to-text model (both empty: none). The provider
        must exist (``NotFoundError``) and be OpenAI-compatible."""
        model = (model or "").strip()
        if not provider or not model:
            await self._settings.set(TRANSCRIPTION_MODEL_KEY, None)
            return
        config = await self._providers.get_provider(provider)
        if config.kind is not ProviderKind.OPENAI:
            raise worded(
                ConfigError,
                '"{provider}" cannot transcribe speech.',
                {"provider": provider},
                hint="Choose an OpenAI-compatible provider.",
            )
        await self._settings.set(TRANSCRIPTION_MODEL_KEY, {"provider": provider, "model": model})

    async def transcribe(
        self,
        audio: bytes,
        filename: str,
        *,
        language: str | None = None,
        provider: str | None = None,
        model: str | None = None,
    ) -> Transcript:
        """The words spoken in ``audio`` (the bytes of a file named
        ``filename``, whose extension gives its format). ``language``: an
        ISO-639-1 code, or None to let the model tell. ``provider`` and
        ``model`` (both or neither) replace the chosen model for this once."""
        mime = audio_type(filename)
        check_size(len(audio))
        provider_name, model_name = await self._model(provider, model)
        adapter = await self._adapter(provider_name, chosen=provider is None)
        code = (language or "").strip().lower() or None
        try:
            text = await adapter.transcribe(audio, filename, mime, model_name, code)
        except (ModelNotFoundError, BadRequestError) as exc:  # a 404: no model, or no endpoint
            if exc.status != 404:
                raise
            raise worded(
                ModelNotFoundError,
                'The server of "{provider}" has no speech-to-text endpoint, '
                'or does not know the model "{model}".',
                {"provider": provider_name, "model": model_name},
                hint="Check the model's name, or choose a server that transcribes speech.",
                status=exc.status,
                provider=provider_name,
            ) from exc
        text = text.strip()
        if not text:
            raise TranscriptionError(
                "Nothing was heard in the recording.",
                hint="Check the microphone and speak again, or choose another file.",
            )
        return Transcript(text, provider_name, model_name)

    async def transcribe_file(
        self,
        path: Path,
        *,
        language: str | None = None,
        provider: str | None = None,
        model: str | None = None,
    ) -> Transcript:
        """:meth:`transcribe` of an audio file, its format and size checked
        before it is read (off the event loop)."""
        audio_type(path.name)
        try:
            size = (await asyncio.to_thread(path.stat)).st_size
            check_size(size)
            audio = await asyncio.to_thread(path.read_bytes)
        except OSError as exc:
            raise worded(
                TranscriptionError,
                'Cannot read "{path}": {detail}.',
                {"path": path, "detail": exc.strerror or type(exc).__name__},
                hint="Check that the file exists and can be read.",
            ) from exc
        log.debug("transcribing %s (%d bytes)", path, len(audio))
        return await self.transcribe(
            audio, path.name, language=language, provider=provider, model=model
        )

    async def _model(self, provider: str | None, model: str | None) -> tuple[str, str]:
        """The (provider, model) of a request: both named, or the chosen one."""
        model = (model or "").strip() or None
        if provider and model:
            return provider, model
        if provider or model:
            raise ConfigError(
                "Name both the provider and the speech-to-text model, or neither.",
                hint="Without them the model chosen in Settings is used.",
            )
        chosen = await self.transcription_model()
        if chosen is None:
            raise ConfigError("No speech-to-text model is chosen.", hint=_NO_MODEL_HINT)
        return chosen

    async def _adapter(self, name: str, *, chosen: bool) -> TranscriptionProvider:
        """The live adapter of ``name``; ``chosen``: it comes from the setting
        (a provider removed since is said to be gone)."""
        try:
            _config, provider = await self._providers.chat_provider(name)
        except NotFoundError as exc:
            if not chosen:
                raise
            raise worded(
                ConfigError,
                'The speech-to-text model\'s provider "{provider}" is gone.',
                {"provider": name},
                hint=_NO_MODEL_HINT,
            ) from exc
        if not isinstance(provider, TranscriptionProvider):
            raise worded(
                ConfigError,
                '"{provider}" cannot transcribe speech.',
                {"provider": name},
                hint=_NO_MODEL_HINT,
            )
        return provider


def audio_type(filename: str) -> str:
    """The MIME type of an audio file by its extension; any other file is
    refused, naming the formats taken."""
    mime = AUDIO_TYPES.get(Path(filename).suffix.lower())
    if mime is None:
        formats = ", ".join(extension.lstrip(".") for extension in AUDIO_TYPES)
        raise worded(
            TranscriptionError,
            '"{name}" is not an audio file that speech-to-text takes.',
            {"name": filename, "formats": formats},
            hint_template="Use one of these formats: {formats}.",
        )
    return mime


def check_size(size: int) -> None:
    """Refuse an empty recording, or one over the upload limit."""
    if size <= 0:
        raise TranscriptionError(
            "The recording is empty.", hint="Record again, or choose another file."
        )
    if size > MAX_AUDIO_BYTES:
        raise worded(
            TranscriptionError,
            "The recording is {size}; speech-to-text takes at most {limit}.",
            {"size": megabytes(size), "limit": megabytes(MAX_AUDIO_BYTES)},
            hint="Record a shorter clip, or split the file into smaller parts.",
        )


def megabytes(size: int) -> str:
    """``size`` bytes in MB, rounded up to a tenth ("25 MB", "25.1 MB"): a file
    just over the limit does not read as the limit itself."""
    tenths = math.ceil(size * 10 / _MB)
    return f"{tenths / 10:.1f}".removesuffix(".0") + " MB"
