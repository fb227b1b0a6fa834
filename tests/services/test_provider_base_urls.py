"""Base URLs as people paste them, tidied for their kind: OpenAI-compatible
keeps its /v1 but not an endpoint copied with it (/chat/completions,
/models); Ollama's own API and Anthropic's are reached without /v1 (their
adapters add the paths). A 404 that names no model asks to check the base
URL the way that kind wants it. A real data folder, the loopback server
over HTTP."""

from __future__ import annotations

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import BadRequestError
from tests.support.loopback import LoopbackServer, anthropic_models, ollama_tags, openai_models


@pytest.mark.parametrize(
    ("kind", "pasted", "kept", "listing"),
    [
        ("openai", "/v1/chat/completions", "/v1", "/v1/models"),
        ("openai", "/v1/models/", "/v1", "/v1/models"),
        ("openai", "/v1", "/v1", "/v1/models"),
        ("ollama", "/v1", "", "/api/tags"),
        ("ollama", "/api/", "", "/api/tags"),
        ("anthropic", "/v1", "", "/v1/models"),
        ("anthropic", "/v1/messages", "", "/v1/models"),
    ],
)
async def test_a_pasted_base_url_is_tidied_for_its_kind_and_lists_the_models(
    services: Services, loopback: LoopbackServer, kind: str, pasted: str, kept: str, listing: str
) -> None:
    loopback.set_default("/v1/models", openai_models(["m1"]))
    loopback.set_default("/api/tags", ollama_tags(["m1"]))
    if kind == "anthropic":
        loopback.set_default("/v1/models", anthropic_models(["m1"]))
    added = await services.providers.add_provider("p", kind, loopback.url + pasted, "sk-1")
    assert added.base_url == loopback.url + kept
    assert [m.name for m in await services.providers.fetch_models("p")] == ["m1"]
    assert [r.path for r in loopback.requests] == [listing]

    updated = await services.providers.update_provider("p", base_url=loopback.url + pasted + "/")
    assert updated.base_url == loopback.url + kept


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("openai", "OpenAI-compatible servers need /v1"),
        ("ollama", "Ollama's own API is at the server's root, without /v1"),
        ("anthropic", "Anthropic's API is at https://api.anthropic.com, without /v1"),
    ],
)
async def test_an_address_not_found_gets_the_advice_of_its_kind(
    services: Services, loopback: LoopbackServer, kind: str, words: str
) -> None:
    # a path the server does not have: the loopback answers 404, as LM Studio
    # ("Unexpected endpoint") or Ollama ("404 page not found") do
    await services.providers.add_provider("p", kind, loopback.url + "/elsewhere", "sk-1")
    with pytest.raises(BadRequestError) as raised:
        await services.providers.fetch_models("p")
    assert raised.value.status == 404
    assert words in raised.value.hint
    for other in {"OpenAI-compatible", "Ollama's", "Anthropic's"} - {words.split(" ")[0]}:
        assert other not in raised.value.hint
