"""Speech to text (voice input, audio files) on a real data folder: the model
chosen in Settings is kept in the database, a request may name another, the
loopback server is the speech-to-text server. Every refusal is said in words
(with its template, for the interface's translation) and sends nothing."""

from __future__ import annotations

import math
import struct
import wave
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.audio_formats import MAX_AUDIO_BYTES
from mira_desktop.core.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigError,
    ModelNotFoundError,
    NotFoundError,
    TranscriptionError,
)
from mira_desktop.services.transcription import Transcript
from mira_desktop.services.voice_clip import wav_bytes
from tests.support.loopback import LoopbackServer, json_reply, openai_json_error

TRANSCRIPTIONS = "/v1/audio/transcriptions"
NO_MODEL_HINT = (
    "Choose a speech-to-text model in Settings → Chat & data (an OpenAI-compatible provider), "
    "or with `mira-desktop provider transcription-model PROVIDER MODEL`."
)


def tone(seconds: float = 0.25, rate: int = 16_000) -> bytes:
    """A 440 Hz sine as 16-bit mono PCM."""
    count = int(seconds * rate)
    samples = (int(12_000 * math.sin(2 * math.pi * 440 * i / rate)) for i in range(count))
    return struct.pack(f"<{count}h", *samples)


def heard(text: str) -> object:
    return json_reply({"text": text})


def sent_to_server(loopback: LoopbackServer) -> list[str]:
    return [r.path for r in loopback.requests if r.path == TRANSCRIPTIONS]


@pytest.fixture
async def whisper(services: Services, loop_provider: str) -> str:
    """The loopback provider's "whisper-1" chosen as the speech-to-text model."""
    await services.transcription.set_transcription_model(loop_provider, "whisper-1")
    return loop_provider


async def test_the_chosen_model_survives_a_restart_and_can_be_cleared(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    first = build_services(data_dir)
    try:
        assert await first.transcription.transcription_model() is None
        await first.providers.add_provider("loop", "openai", loopback.url + "/v1")
        await first.transcription.set_transcription_model("loop", "  whisper-1 ")
    finally:
        await first.aclose()
    again = build_services(data_dir)
    try:
        assert await again.transcription.transcription_model() == ("loop", "whisper-1")
        await again.transcription.set_transcription_model(None, None)
        assert await again.transcription.transcription_model() is None
    finally:
        await again.aclose()


async def test_only_an_existing_openai_compatible_provider_can_be_chosen(
    services: Services, loopback: LoopbackServer, whisper: str
) -> None:
    with pytest.raises(NotFoundError):
        await services.transcription.set_transcription_model("nope", "whisper-1")
    await services.providers.add_provider("local", "ollama", loopback.url)
    with pytest.raises(ConfigError) as caught:
        await services.transcription.set_transcription_model("local", "whisper-1")
    assert caught.value.message == '"local" cannot transcribe speech.'
    assert caught.value.hint
    assert caught.value.template == '"{provider}" cannot transcribe speech.'
    assert await services.transcription.transcription_model() == (whisper, "whisper-1")


async def test_a_recording_is_transcribed_by_the_chosen_model(
    services: Services, loopback: LoopbackServer, whisper: str
) -> None:
    loopback.enqueue(TRANSCRIPTIONS, heard("  Remind me to water the plants.\n"))
    clip = wav_bytes(tone(), 16_000, 1)
    transcript = await services.transcription.transcribe(clip, "dictation.wav", language=" EN ")
    assert transcript == Transcript("Remind me to water the plants.", whisper, "whisper-1")
    [request] = loopback.requests
    assert request.path == TRANSCRIPTIONS
    assert request.headers["authorization"] == "Bearer sk-secret-123"
    body = request.body
    assert clip in body and b'filename="dictation.wav"' in body
    assert b"Content-Type: audio/wav" in body
    assert b'name="language"\r\n\r\nen\r\n' in body


async def test_a_provider_and_model_named_replace_the_chosen_ones(
    services: Services, loopback: LoopbackServer, whisper: str
) -> None:
    await services.providers.add_provider("groq", "openai", loopback.url + "/v1")
    loopback.enqueue(TRANSCRIPTIONS, heard("Hola."))
    transcript = await services.transcription.transcribe(
        b"ID3 mp3", "voice.MP3", provider="groq", model="whisper-large-v3"
    )
    assert transcript == Transcript("Hola.", "groq", "whisper-large-v3")
    [request] = loopback.requests
    assert "authorization" not in request.headers  # groq's (missing) key, not loop's
    assert b'name="model"\r\n\r\nwhisper-large-v3\r\n' in request.body
    assert b"Content-Type: audio/mpeg" in request.body
    assert b'name="language"' not in request.body
    for half in ({"provider": "groq"}, {"model": "whisper-large-v3"}):
        with pytest.raises(ConfigError, match="Name both the provider"):
            await services.transcription.transcribe(b"ID3", "voice.mp3", **half)  # type: ignore[arg-type]
    assert len(loopback.requests) == 1


async def test_an_unknown_provider_named_for_one_request_is_not_found(
    services: Services, whisper: str
) -> None:
    with pytest.raises(NotFoundError, match='No provider named "nope"'):
        await services.transcription.transcribe(b"x", "a.wav", provider="nope", model="m")


@pytest.mark.parametrize(
    ("audio", "filename", "message", "template"),
    [
        (b"", "clip.wav", "The recording is empty.", None),
        (
            b"\0" * (MAX_AUDIO_BYTES + 1),
            "meeting.wav",
            "The recording is 25.1 MB; speech-to-text takes at most 25 MB.",
            "The recording is {size}; speech-to-text takes at most {limit}.",
        ),
        (
            b"%PDF-1.7",
            "minutes.pdf",
            '"minutes.pdf" is not an audio file that speech-to-text takes.',
            '"{name}" is not an audio file that speech-to-text takes.',
        ),
        (b"RIFF", "clip", '"clip" is not an audio file that speech-to-text takes.', None),
    ],
)
async def test_a_recording_that_cannot_be_sent_is_refused_in_words(
    services: Services,
    loopback: LoopbackServer,
    whisper: str,
    audio: bytes,
    filename: str,
    message: str,
    template: str | None,
) -> None:
    with pytest.raises(TranscriptionError) as caught:
        await services.transcription.transcribe(audio, filename)
    assert caught.value.message == message and caught.value.hint
    if template is not None:
        assert caught.value.template == template
    assert sent_to_server(loopback) == []


async def test_the_size_limit_says_to_record_shorter_or_split(
    services: Services, whisper: str
) -> None:
    with pytest.raises(TranscriptionError) as caught:
        await services.transcription.transcribe(b"\0" * (MAX_AUDIO_BYTES + 1), "long.m4a")
    assert "shorter" in caught.value.hint and "split" in caught.value.hint
    assert caught.value.params == {"size": "25.1 MB", "limit": "25 MB"}


async def test_a_file_of_another_format_is_told_which_formats_are_taken(
    services: Services, whisper: str
) -> None:
    with pytest.raises(TranscriptionError) as caught:
        await services.transcription.transcribe(b"x", "talk.aac")
    assert caught.value.hint == (
        "Use one of these formats: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm."
    )
    assert caught.value.hint_template == "Use one of these formats: {formats}."


async def test_without_a_chosen_model_nothing_is_sent(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        await services.transcription.transcribe(b"RIFF", "clip.wav")
    assert caught.value.message == "No speech-to-text model is chosen."
    assert caught.value.hint == NO_MODEL_HINT
    assert loopback.requests == []


async def test_a_chosen_provider_that_is_gone_is_said_to_be_gone(
    services: Services, whisper: str
) -> None:
    await services.providers.remove_provider(whisper)
    with pytest.raises(ConfigError) as caught:
        await services.transcription.transcribe(b"RIFF", "clip.wav")
    assert caught.value.message == 'The speech-to-text model\'s provider "loop" is gone.'
    assert caught.value.hint == NO_MODEL_HINT
    assert isinstance(caught.value.__cause__, NotFoundError)


async def test_a_provider_that_cannot_transcribe_is_refused(
    services: Services, loopback: LoopbackServer, whisper: str
) -> None:
    await services.providers.update_provider(whisper, kind="ollama", base_url=loopback.url)
    with pytest.raises(ConfigError) as caught:
        await services.transcription.transcribe(b"RIFF", "clip.wav")
    assert caught.value.message == '"loop" cannot transcribe speech.'
    assert caught.value.hint == NO_MODEL_HINT
    assert loopback.requests == []


async def test_a_server_without_the_endpoint_names_the_provider_and_the_model(
    services: Services, loopback: LoopbackServer, whisper: str
) -> None:
    loopback.enqueue(TRANSCRIPTIONS, openai_json_error(404, "404 page not found"))
    with pytest.raises(ModelNotFoundError) as caught:
        await services.transcription.transcribe(b"RIFF", "clip.wav")
    error = caught.value
    assert error.message == (
        'The server of "loop" has no speech-to-text endpoint, or does not know the model '
        '"whisper-1".'
    )
    assert error.params == {"provider": "loop", "model": "whisper-1"}
    assert (error.status, error.provider) == (404, "loop") and error.hint
    assert isinstance(error.__cause__, BadRequestError)  # no model named: no endpoint
    assert error.__cause__.message == "404 page not found"


async def test_other_refusals_keep_the_servers_words(
    services: Services, loopback: LoopbackServer, whisper: str
) -> None:
    loopback.enqueue(TRANSCRIPTIONS, openai_json_error(401, "Invalid API key"))
    with pytest.raises(AuthenticationError, match="Invalid API key"):
        await services.transcription.transcribe(b"RIFF", "clip.wav")


@pytest.mark.parametrize("text", ["", "  \n\t "])
async def test_a_recording_with_no_words_says_nothing_was_heard(
    services: Services, loopback: LoopbackServer, whisper: str, text: str
) -> None:
    loopback.enqueue(TRANSCRIPTIONS, heard(text))
    with pytest.raises(TranscriptionError) as caught:
        await services.transcription.transcribe(b"RIFF", "clip.wav")
    assert caught.value.message == "Nothing was heard in the recording." and caught.value.hint


async def test_a_wav_file_is_read_and_transcribed(
    services: Services, loopback: LoopbackServer, whisper: str, tmp_path: Path
) -> None:
    path = tmp_path / "Memo.WAV"
    path.write_bytes(wav_bytes(tone(0.5, 8_000), 8_000, 1))
    with wave.open(str(path)) as check:
        assert check.getnframes() == 4_000
    loopback.enqueue(TRANSCRIPTIONS, heard("Buy milk."))
    transcript = await services.transcription.transcribe_file(path, language="en")
    assert transcript == Transcript("Buy milk.", whisper, "whisper-1")
    [request] = loopback.requests
    assert path.read_bytes() in request.body
    assert b'filename="Memo.WAV"' in request.body and b"Content-Type: audio/wav" in request.body


async def test_a_file_too_large_or_of_another_format_is_refused_before_reading(
    services: Services, loopback: LoopbackServer, whisper: str, tmp_path: Path
) -> None:
    big = tmp_path / "lecture.mp3"
    with big.open("wb") as sparse:
        sparse.truncate(40 * 1024 * 1024)
    with pytest.raises(TranscriptionError, match="The recording is 40 MB"):
        await services.transcription.transcribe_file(big)
    empty = tmp_path / "empty.ogg"
    empty.write_bytes(b"")
    with pytest.raises(TranscriptionError, match="The recording is empty"):
        await services.transcription.transcribe_file(empty)
    text = tmp_path / "notes.txt"
    text.write_text("not audio")
    with pytest.raises(TranscriptionError, match=r'"notes\.txt" is not an audio file'):
        await services.transcription.transcribe_file(text)
    assert loopback.requests == []


@pytest.mark.parametrize("kind", ["missing", "a folder"])
async def test_an_unreadable_file_is_named(
    services: Services, loopback: LoopbackServer, whisper: str, tmp_path: Path, kind: str
) -> None:
    path = tmp_path / "voice.wav"
    if kind == "a folder":  # not empty: a folder's size is never 0, whatever the file system
        path.mkdir()
        (path / "take-1.wav").write_bytes(b"RIFF")
    with pytest.raises(TranscriptionError) as caught:
        await services.transcription.transcribe_file(path)
    error = caught.value
    assert error.message.startswith(f'Cannot read "{path}": ')
    assert error.template == 'Cannot read "{path}": {detail}.' and error.hint
    assert isinstance(error.__cause__, OSError)
    assert loopback.requests == []
