"""Speech to text over real HTTP: OpenAI-compatible ``/audio/transcriptions``
as a multipart form (the file's name, bytes and type, the model, JSON asked
for, the language only when given, the key), through both transports (the
local one for servers on this machine, httpx's own for remote ones), and
typed errors for refusals and answers without a transcript."""

from __future__ import annotations

import email.parser
import email.policy
from collections.abc import AsyncIterator
from email.message import EmailMessage

import httpx
import pytest

from mira_desktop.core.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedStreamError,
    ModelNotFoundError,
    ServerError,
)
from mira_desktop.core.ports import TranscriptionProvider
from mira_desktop.providers.anthropic import AnthropicProvider
from mira_desktop.providers.ollama import OllamaProvider
from mira_desktop.providers.openai_compat import OpenAIProvider
from mira_desktop.providers.transcription import AUDIO_TYPES, parse_transcription
from tests.support.loopback import (
    LoopbackServer,
    RecordedRequest,
    json_reply,
    openai_json_error,
    text_reply,
)

TRANSCRIPTIONS = "/v1/audio/transcriptions"
AUDIO = b"RIFF\x00\x01fake-wave\xff\xfe\r\n--not-a-boundary\r\n" * 50


def form_parts(request: RecordedRequest) -> dict[str, EmailMessage]:
    """The parts of a recorded multipart body, by their form name (read with
    the standard library's MIME parser)."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    parser = email.parser.BytesParser(policy=email.policy.HTTP)
    message = parser.parsebytes(head + request.body)
    assert isinstance(message, EmailMessage) and message.is_multipart()
    parts: dict[str, EmailMessage] = {}
    for part in message.iter_parts():
        assert isinstance(part, EmailMessage)
        name = part.get_param("name", header="content-disposition")
        assert isinstance(name, str)
        parts[name] = part
    return parts


def text_fields(parts: dict[str, EmailMessage]) -> dict[str, str]:
    return {name: part.get_content() for name, part in parts.items() if name != "file"}


@pytest.fixture(params=["local", "httpx"])
async def provider(
    request: pytest.FixtureRequest, loopback: LoopbackServer
) -> AsyncIterator[OpenAIProvider]:
    """An OpenAI-compatible adapter with a key, over the local transport (the
    default for 127.0.0.1) or over httpx's own, as for a remote server."""
    client = httpx.AsyncClient() if request.param == "httpx" else None
    async with OpenAIProvider("o", loopback.url + "/v1", "sk-t", client=client) as adapter:
        yield adapter
    if client is not None:
        await client.aclose()


async def test_audio_is_sent_as_a_form_and_the_text_returned(
    loopback: LoopbackServer, provider: OpenAIProvider
) -> None:
    loopback.enqueue(TRANSCRIPTIONS, json_reply({"text": " Hello there. "}))
    text = await provider.transcribe(AUDIO, "clip.wav", "audio/wav", "whisper-1")
    assert text == " Hello there. "  # as the server wrote it: the service strips
    [request] = loopback.requests
    assert (request.method, request.path) == ("POST", TRANSCRIPTIONS)
    assert request.headers["authorization"] == "Bearer sk-t"
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    parts = form_parts(request)
    assert text_fields(parts) == {"model": "whisper-1", "response_format": "json"}
    sent = parts["file"]
    assert sent.get_filename() == "clip.wav"
    assert sent.get_content_type() == "audio/wav"
    assert sent.get_content() == AUDIO


async def test_the_language_is_sent_only_when_given(
    loopback: LoopbackServer, provider: OpenAIProvider
) -> None:
    loopback.enqueue(TRANSCRIPTIONS, json_reply({"text": "Bonjour."}))
    text = await provider.transcribe(b"OggS...", "note.ogg", "audio/ogg", "large-v3", "fr")
    assert text == "Bonjour."
    parts = form_parts(loopback.requests[0])
    assert text_fields(parts) == {"model": "large-v3", "response_format": "json", "language": "fr"}
    assert parts["file"].get_filename() == "note.ogg"
    assert parts["file"].get_content_type() == "audio/ogg"


async def test_no_key_sends_no_authorization(loopback: LoopbackServer) -> None:
    loopback.enqueue(TRANSCRIPTIONS, json_reply({"text": "ok"}))
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:
        assert await provider.transcribe(b"x", "a.mp3", "audio/mpeg", "m") == "ok"
    assert "authorization" not in loopback.requests[0].headers


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        (openai_json_error(401, "Incorrect API key provided"), AuthenticationError, "API key"),
        (openai_json_error(404, "Not Found"), BadRequestError, "Not Found"),
        (openai_json_error(404, "The model 'w' does not exist"), ModelNotFoundError, "model"),
        (
            openai_json_error(500, "The decoder crashed", type="server_error"),
            ServerError,
            "crashed",
        ),
        (text_reply(200, "<html>speech</html>"), MalformedStreamError, "did not answer JSON"),
        (json_reply({"transcript": "hi"}), MalformedStreamError, "The server sent no transcript"),
        (json_reply({"text": None}), MalformedStreamError, "The server sent no transcript"),
    ],
)
async def test_failures_are_typed(
    loopback: LoopbackServer, reply: object, error: type[Exception], message: str
) -> None:
    loopback.enqueue(TRANSCRIPTIONS, reply)  # type: ignore[arg-type]
    async with OpenAIProvider("o", loopback.url + "/v1", "sk-t") as provider:
        with pytest.raises(error, match=message) as caught:
            await provider.transcribe(b"x", "a.wav", "audio/wav", "whisper-1")
    assert getattr(caught.value, "provider", None) == "o"


async def test_a_404_keeps_its_status(loopback: LoopbackServer) -> None:
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:  # nothing queued: 404
        with pytest.raises(BadRequestError) as caught:
            await provider.transcribe(b"x", "a.wav", "audio/wav", "whisper-1")
    assert caught.value.status == 404


def test_the_answer_must_carry_text() -> None:
    assert parse_transcription({"text": ""}, "o") == ""
    for data in (None, [], "text", {"text": 3}, {"segments": []}):
        with pytest.raises(MalformedStreamError, match="The server sent no transcript"):
            parse_transcription(data, "o")


def test_the_accepted_formats_have_lower_case_extensions_and_audio_types() -> None:
    assert set(AUDIO_TYPES) == {
        ".flac",
        ".m4a",
        ".mp3",
        ".mp4",
        ".mpeg",
        ".mpga",
        ".oga",
        ".ogg",
        ".wav",
        ".webm",
    }
    assert all(mime.startswith("audio/") for mime in AUDIO_TYPES.values())


async def test_only_openai_compatible_servers_transcribe() -> None:
    openai = OpenAIProvider("o", "http://127.0.0.1:9/v1")
    ollama = OllamaProvider("l", "http://127.0.0.1:9")
    anthropic = AnthropicProvider("a", "http://127.0.0.1:9")
    assert isinstance(openai, TranscriptionProvider)
    assert not isinstance(ollama, TranscriptionProvider)
    assert not isinstance(anthropic, TranscriptionProvider)
    for adapter in (openai, ollama, anthropic):
        await adapter.aclose()
