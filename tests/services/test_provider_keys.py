"""API keys as people paste them: surrounding white space is dropped, a key
with a line break, a space or an invisible character inside is refused in
words that never quote it, and no error or log line repeats a header value
(a key saved before keys were checked is not sent). A real data folder, the
loopback server over HTTP."""

from __future__ import annotations

import logging

import httpx
import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.api_keys import BAD_KEY_MESSAGE
from mira_desktop.core.errors import ConfigError
from mira_desktop.providers.errormap import network_error
from tests.support.loopback import LoopbackServer, openai_models

BAD_KEYS = [
    "sk-SECRET\n789",  # a line break inside
    "sk-SECRET\u200b789",  # a zero-width space from a web page
    "sk-SECRET\u00a0789",  # a non-breaking space
    "sk-SECRET 789",  # a space inside
    "sk-SECRET\x01789",  # a control character
]


async def test_a_pasted_key_loses_its_surrounding_white_space(
    services: Services, loopback: LoopbackServer
) -> None:
    loopback.set_default("/v1/models", openai_models(["m1"]))
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "  sk-abc\n")
    await services.providers.fetch_models("loop")
    assert loopback.requests[-1].headers["authorization"] == "Bearer sk-abc"
    await services.providers.update_provider("loop", api_key="\tsk-new \r\n")
    await services.providers.fetch_models("loop")
    assert loopback.requests[-1].headers["authorization"] == "Bearer sk-new"


@pytest.mark.parametrize("key", BAD_KEYS)
async def test_a_key_with_characters_a_key_cannot_have_is_refused_unquoted(
    services: Services, loopback: LoopbackServer, key: str
) -> None:
    with pytest.raises(ConfigError) as added:
        await services.providers.add_provider("loop", "openai", loopback.url + "/v1", key)
    assert added.value.message == BAD_KEY_MESSAGE
    assert "SECRET" not in str(added.value) and "SECRET" not in added.value.hint
    assert await services.providers.list_providers() == []

    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "sk-good")
    with pytest.raises(ConfigError, match="paste it again"):
        await services.providers.update_provider("loop", api_key=key)
    assert services.secrets.get((await services.providers.get_provider("loop")).id) == "sk-good"


async def test_a_bad_key_saved_before_keys_were_checked_is_never_sent_nor_quoted(
    services: Services, loopback: LoopbackServer, caplog: pytest.LogCaptureFixture
) -> None:
    loopback.set_default("/v1/models", openai_models(["m1"]))
    config = await services.providers.add_provider(
        "loop", "openai", loopback.url + "/v1", "sk-good"
    )
    services.secrets.set(config.id, "sk-SECRET\u200b789")  # as an older Mira saved it
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ConfigError) as raised:
        await services.providers.fetch_models("loop")
    assert raised.value.message == BAD_KEY_MESSAGE
    assert loopback.requests == []
    assert "SECRET" not in caplog.text


def test_a_transport_error_quoting_a_header_value_is_scrubbed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    refused = httpx.LocalProtocolError("Illegal header value b'Bearer sk-SECRET789\\n'")
    error = network_error(refused, "https://example.com/v1/models", provider="remote")
    assert "SECRET" not in error.message and "SECRET" not in caplog.text
    assert error.message == (
        "The connection to https://example.com/v1/models failed: Illegal header value (not shown)"
    )
    echoed = httpx.ReadError("sent authorization: Bearer sk-SECRET789 and x-api-key=sk-SECRET")
    assert "SECRET" not in network_error(echoed, "https://example.com/v1").message
