"""create_provider, timeouts, client ownership and probe_ollama."""

from __future__ import annotations

import httpx
import pytest

from mira_desktop.core.errors import ConfigError, NetworkError
from mira_desktop.core.events import StreamDone, TextDelta
from mira_desktop.core.models import ProviderKind
from mira_desktop.providers.anthropic import AnthropicProvider
from mira_desktop.providers.ollama import OllamaProvider
from mira_desktop.providers.openai_compat import OpenAIProvider
from mira_desktop.providers.registry import create_provider, probe_ollama
from tests.support.loopback import (
    Pause,
    json_reply,
    ollama_error,
    ollama_tags,
    openai_stream,
    raw_stream,
    sse,
)

from .helpers import closed_port_url, collect


@pytest.mark.parametrize(
    ("kind", "cls"),
    [
        (ProviderKind.OPENAI, OpenAIProvider),
        (ProviderKind.OLLAMA, OllamaProvider),
        ("anthropic", AnthropicProvider),
    ],
)
async def test_create_provider_kinds(kind, cls):
    provider = create_provider(kind, "mine", " http://localhost:1234/v1/ ", None)
    try:
        assert type(provider) is cls
        assert provider.name == "mine"
        assert provider.base_url == "http://localhost:1234/v1"
    finally:
        await provider.aclose()


def test_unknown_kind_and_bad_url_are_config_errors():
    with pytest.raises(ConfigError, match="Unknown provider kind 'gemini'"):
        create_provider("gemini", "g", "http://x", None)
    with pytest.raises(ConfigError, match="invalid base URL"):
        create_provider(ProviderKind.OLLAMA, "o", "localhost:11434", None)


async def test_trailing_slashes_do_not_reach_the_wire(loopback):
    loopback.enqueue("/v1/chat/completions", openai_stream(["ok"]))
    provider = create_provider(ProviderKind.OPENAI, "p", loopback.url + "/v1//", "k")
    events, error = await collect(provider)
    await provider.aclose()
    assert error is None
    assert events == [TextDelta("ok"), StreamDone("stop")]
    assert loopback.requests[0].path == "/v1/chat/completions"


async def test_default_timeouts_and_owned_client_is_closed():
    provider = create_provider(ProviderKind.OLLAMA, "o", "http://127.0.0.1:9", None)
    client = provider._client
    assert client.timeout == httpx.Timeout(300.0, connect=10.0)
    await provider.aclose()
    assert client.is_closed


async def test_injected_client_is_not_closed(loopback):
    loopback.enqueue("/api/chat", json_reply({"message": {"content": "hi"}, "done": True}))
    async with httpx.AsyncClient() as client:
        provider = create_provider(ProviderKind.OLLAMA, "o", loopback.url, None, client=client)
        events, error = await collect(provider)
        await provider.aclose()
        assert not client.is_closed
    assert error is None
    assert events == [TextDelta("hi"), StreamDone(None)]


@pytest.mark.parametrize("inject", [False, True], ids=["owned", "injected"])
async def test_read_timeout_becomes_network_error(loopback, inject):
    first = sse({"choices": [{"index": 0, "delta": {"content": "a"}}]})
    loopback.enqueue("/v1/chat/completions", raw_stream([first, Pause(3.0)]))
    async with httpx.AsyncClient(timeout=30.0) as client:
        provider = create_provider(
            ProviderKind.OPENAI,
            "slow",
            loopback.url + "/v1",
            None,
            client=client if inject else None,
            timeout=0.3,
        )
        events, error = await collect(provider)
        await provider.aclose()
    assert events == [TextDelta("a")]
    assert isinstance(error, NetworkError)
    assert str(error) == f"Timed out waiting for {loopback.url}/v1/chat/completions"


async def test_probe_ollama(loopback):
    loopback.enqueue("/api/tags", ollama_tags(["llama3.2"]))
    loopback.enqueue("/api/tags", ollama_error(404, "not here"))
    assert await probe_ollama(loopback.url + "/") is True
    assert await probe_ollama(loopback.url) is False
    assert await probe_ollama(closed_port_url()) is False
    assert await probe_ollama("not a url") is False
