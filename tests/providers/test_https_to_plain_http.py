"""A base URL typed with https:// for a server that speaks plain HTTP (LM
Studio at https://localhost:1234, Ollama at https://127.0.0.1:11434): the
TLS handshake meets an HTTP answer. The error must say so and tell the user
to use http:// — not quote the TLS error's number as if it were the system's
(it read "Operation not permitted"). Real loopback plain-HTTP server reached
by an https URL, through the real provider clients and both transports (the
local one for localhost / 127.0.0.1, httpx's own for other hosts)."""

from __future__ import annotations

import httpx
import pytest

from mira_desktop.core.errors import NetworkError
from mira_desktop.providers.ollama import OllamaProvider
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import LoopbackServer, ollama_tags, openai_models

from .helpers import collect


def _https(loopback: LoopbackServer, host: str) -> tuple[str, str]:
    """The loopback's address under ``host``, and its https root URL."""
    port = loopback.url.rsplit(":", 1)[1]
    address = f"{host}:{port}"
    return address, f"https://{address}"


def _says_use_http(error: NetworkError, address: str) -> None:
    assert "Operation not permitted" not in error.message
    assert (
        error.message == f"The server at {address} does not speak HTTPS: it answers in plain HTTP."
    )
    assert error.hint == (
        f"Start the provider's base URL with http://{address} instead of https://{address}."
    )
    assert error.template is not None and error.hint_template is not None  # translatable


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
async def test_https_to_a_local_plain_http_server_says_to_use_http(loopback, host):
    loopback.set_default("/v1/models", openai_models(["m"]))
    address, root = _https(loopback, host)
    async with OpenAIProvider("LM Studio", root + "/v1", None) as provider:
        with pytest.raises(NetworkError) as caught:
            await provider.list_models()
        _says_use_http(caught.value, address)
        # a chat says the same
        _events, error = await collect(provider)
        assert isinstance(error, NetworkError)
        _says_use_http(error, address)
    assert loopback.requests == []  # nothing readable ever reached the server


async def test_https_to_a_plain_ollama_says_to_use_http(loopback):
    loopback.set_default("/api/tags", ollama_tags(["llama3"]))
    address, root = _https(loopback, "127.0.0.1")
    async with OllamaProvider("Ollama", root, None) as provider:
        with pytest.raises(NetworkError) as caught:
            await provider.list_models()
    _says_use_http(caught.value, address)


async def test_https_to_a_plain_http_server_through_httpx_transport(loopback):
    """A server elsewhere on the network goes through httpx's own transport:
    the same words (the client here is httpx's, with no local mounts)."""
    loopback.set_default("/v1/models", openai_models(["m"]))
    address, root = _https(loopback, "127.0.0.1")
    async with httpx.AsyncClient(timeout=5.0) as client:
        provider = OpenAIProvider("LAN", root + "/v1", "sk-x", client=client)
        with pytest.raises(NetworkError) as caught:
            await provider.list_models()
    _says_use_http(caught.value, address)


async def test_a_refused_connection_still_names_the_system_reason():
    """The errno of a real OS error is still read as one."""
    from .helpers import closed_port_url

    async with OpenAIProvider("gone", closed_port_url() + "/v1", None) as provider:
        with pytest.raises(NetworkError) as caught:
            await provider.list_models()
    assert "Connection refused" in caught.value.message
