"""How hard a model reasons, as each vendor is told (``ChatRequest.reasoning``),
seen in the bodies the loopback server received over real HTTP: Anthropic's
extended thinking with its budget (and what thinking does not accept left
out), Ollama's ``think``, an OpenAI-compatible server's ``reasoning_effort``;
and no level at all sends nothing."""

from __future__ import annotations

from typing import Any

import pytest

from mira_desktop.core.errors import AuthenticationError, BadRequestError
from mira_desktop.core.models import ChatRequest, Reasoning
from mira_desktop.providers.anthropic import AnthropicProvider, thinking_style
from mira_desktop.providers.errormap import REASONING_REFUSED_HINT
from mira_desktop.providers.ollama import OllamaProvider, think_value
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import (
    LoopbackServer,
    anthropic_error,
    anthropic_stream,
    json_reply,
    ollama_error,
    ollama_stream,
    openai_json_error,
    openai_stream,
)

from .helpers import collect, request, text, thinking


async def _body(loopback: LoopbackServer, kind: str, req: ChatRequest) -> dict[str, Any]:
    """The JSON body ``req`` reaches the server with, through the real adapter."""
    if kind == "anthropic":
        provider: Any = AnthropicProvider("a", loopback.url, "sk-ant")
        path, reply = "/v1/messages", anthropic_stream(["ok"])
    elif kind == "ollama":
        provider, path, reply = (
            OllamaProvider("o", loopback.url),
            "/api/chat",
            ollama_stream(["ok"]),
        )
    else:
        provider = OpenAIProvider("p", loopback.url + "/v1", "sk")
        path, reply = "/v1/chat/completions", openai_stream(["ok"])
    loopback.enqueue(path, reply)
    try:
        _, error = await collect(provider, req)
    finally:
        await provider.aclose()
    assert error is None
    return [r for r in loopback.requests if r.path == path][-1].json


@pytest.mark.parametrize(
    ("level", "budget"),
    [(Reasoning.LOW, 2_048), (Reasoning.MEDIUM, 8_192), (Reasoning.HIGH, 16_384)],
)
async def test_anthropic_thinking_budget_adds_to_the_answers_room(
    loopback: LoopbackServer, level: Reasoning, budget: int
) -> None:
    body = await _body(loopback, "anthropic", request(reasoning=level, max_tokens=1_000))
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == budget + 1_000  # thinking counts against max_tokens


async def test_anthropic_thinking_leaves_out_what_it_refuses(loopback: LoopbackServer) -> None:
    """With thinking on the API refuses a temperature and a top_p under 0.95:
    a role's values are left out instead of failing every answer."""
    body = await _body(
        loopback, "anthropic", request(reasoning=Reasoning.LOW, temperature=0.2, top_p=0.5)
    )
    assert "temperature" not in body and "top_p" not in body
    assert body["max_tokens"] == 2_048 + 4_096  # no role's room: the default
    kept = await _body(loopback, "anthropic", request(reasoning=Reasoning.LOW, top_p=0.97))
    assert kept["top_p"] == 0.97


@pytest.mark.parametrize("level", [None, Reasoning.OFF])
async def test_anthropic_without_a_level_or_off_sends_no_thinking(
    loopback: LoopbackServer, level: Reasoning | None
) -> None:
    body = await _body(loopback, "anthropic", request(reasoning=level, temperature=0.2))
    assert "thinking" not in body
    assert body["temperature"] == 0.2 and body["max_tokens"] == 4_096


@pytest.mark.parametrize(
    ("model", "level", "think"),
    [
        ("qwen3:8b", Reasoning.OFF, False),
        ("qwen3:8b", Reasoning.HIGH, True),
        ("deepseek-r1", Reasoning.LOW, True),
        ("gpt-oss:20b", Reasoning.LOW, "low"),
        ("library/gpt-oss:120b", Reasoning.HIGH, "high"),
        ("gpt-oss:20b", Reasoning.OFF, "low"),  # it cannot stop thinking: the least
    ],
)
async def test_ollama_think(
    loopback: LoopbackServer, model: str, level: Reasoning, think: bool | str
) -> None:
    assert think_value(model, level) == think
    body = await _body(loopback, "ollama", request(model=model, reasoning=level))
    assert body["think"] == think


async def test_ollama_without_a_level_sends_no_think(loopback: LoopbackServer) -> None:
    body = await _body(loopback, "ollama", request(model="qwen3:8b"))
    assert "think" not in body


@pytest.mark.parametrize("level", [Reasoning.LOW, Reasoning.MEDIUM, Reasoning.HIGH])
async def test_openai_reasoning_effort(loopback: LoopbackServer, level: Reasoning) -> None:
    body = await _body(loopback, "openai", request(model="gpt-oss-20b", reasoning=level))
    assert body["reasoning_effort"] == str(level)


async def test_openai_no_level_sends_nothing_and_off_the_least(loopback: LoopbackServer) -> None:
    """These servers share no way to turn reasoning off: "off" asks for the
    least they all take."""
    body = await _body(loopback, "openai", request())
    assert "reasoning_effort" not in body
    off = await _body(loopback, "openai", request(reasoning=Reasoning.OFF))
    assert off["reasoning_effort"] == "low"


async def test_a_request_s_extra_fields_still_win(loopback: LoopbackServer) -> None:
    req = request(reasoning=Reasoning.LOW, extra={"reasoning_effort": "minimal"})
    body = await _body(loopback, "openai", req)
    assert body["reasoning_effort"] == "minimal"


async def test_a_refusal_of_a_request_with_a_level_says_how_to_stop_sending_it(
    loopback: LoopbackServer,
) -> None:
    """Ollama refuses ``think`` for a model that does not think: the error keeps
    the server's words and its hint names the setting to change; the same
    refusal without a level keeps the general hint."""
    provider = OllamaProvider("o", loopback.url)
    refusal = '"llama3.2" does not support thinking'
    try:
        for level in (Reasoning.HIGH, None):
            loopback.enqueue("/api/chat", ollama_error(400, refusal))
            _, error = await collect(provider, request(model="llama3.2", reasoning=level))
            assert isinstance(error, BadRequestError) and refusal in str(error)
            if level is not None:
                assert error.hint == REASONING_REFUSED_HINT
            else:
                assert error.hint == BadRequestError.default_hint
    finally:
        await provider.aclose()


@pytest.mark.parametrize(
    ("refusal", "blamed"),
    [
        ("Unrecognized request argument supplied: reasoning_effort", True),
        ("Unsupported value: 'reasoning_effort' does not support 'high' with this model.", True),
        ("Invalid content type. image_url is only supported by certain models.", False),
        (
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            False,
        ),
    ],
    ids=["unknown-field", "unsupported-level", "image-refused", "max-tokens-refused"],
)
async def test_only_a_refusal_about_reasoning_blames_the_level(
    loopback: LoopbackServer, refusal: str, blamed: bool
) -> None:
    """An unrelated refusal of a request that carried a level (an image for a
    text-only model, a parameter the model does not take) keeps the general
    hint: setting the level to the server's default would not help."""
    loopback.enqueue("/v1/chat/completions", openai_json_error(400, refusal))
    async with OpenAIProvider("p", loopback.url + "/v1", "sk") as provider:
        _, error = await collect(provider, request(reasoning=Reasoning.HIGH))
    assert type(error) is BadRequestError and str(error) == refusal
    expected = REASONING_REFUSED_HINT if blamed else BadRequestError.default_hint
    assert error.hint == expected


async def test_a_refused_key_is_not_blamed_on_the_level(loopback: LoopbackServer) -> None:
    provider = AnthropicProvider("a", loopback.url, "sk-wrong")
    loopback.enqueue(
        "/v1/messages", anthropic_error(401, "authentication_error", "invalid x-api-key")
    )
    try:
        _, error = await collect(provider, request(reasoning=Reasoning.HIGH))
    finally:
        await provider.aclose()
    assert isinstance(error, AuthenticationError) and error.hint != REASONING_REFUSED_HINT


async def test_a_refusal_with_its_own_hint_keeps_it(loopback: LoopbackServer) -> None:
    """A moved server is not blamed on the level: its hint still says to
    update the base URL."""
    provider = OpenAIProvider("p", loopback.url + "/v1", "sk")
    moved = json_reply({}, status=308, headers={"location": "https://elsewhere.example/v1"})
    loopback.enqueue("/v1/chat/completions", moved)
    try:
        _, error = await collect(provider, request(reasoning=Reasoning.HIGH))
    finally:
        await provider.aclose()
    assert isinstance(error, BadRequestError) and "base URL" in error.hint


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("claude-opus-4-7", "adaptive"),
        ("claude-sonnet-4-6", "adaptive"),
        ("claude-sonnet-4-6@20260101", "adaptive"),
        ("claude-opus-5", "adaptive"),
        ("claude-sonnet-4-5-20250929", "budgeted"),
        ("claude-opus-4-1-20250805", "budgeted"),
        ("claude-opus-4-20250514", "budgeted"),  # 4.0: the date is no minor version
        ("claude-3-7-sonnet-20250219", "budgeted"),
        ("my-local-model", "budgeted"),
    ],
)
def test_the_thinking_shape_follows_the_claude_version(model: str, style: str) -> None:
    assert thinking_style(model) == style


async def test_newer_claude_gets_adaptive_thinking_with_the_level_as_effort(
    loopback: LoopbackServer,
) -> None:
    body = await _body(
        loopback, "anthropic", request(model="claude-opus-4-7", reasoning=Reasoning.MEDIUM)
    )
    assert body["thinking"] == {"type": "adaptive"}
    assert body["output_config"] == {"effort": "medium"}
    assert body["max_tokens"] == 8_192 + 4_096


REFUSED_SHAPE = "thinking.type.enabled is not supported for this model. Use thinking.type.adaptive."


async def test_a_refused_thinking_shape_is_tried_once_in_the_other(
    loopback: LoopbackServer,
) -> None:
    """An id that misleads (a future model, a proxy's alias) is answered with
    the other shape, before anything was shown."""
    provider = AnthropicProvider("a", loopback.url, "sk-ant")
    loopback.enqueue("/v1/messages", anthropic_error(400, "invalid_request_error", REFUSED_SHAPE))
    loopback.enqueue("/v1/messages", anthropic_stream(["ok"], thinking_chunks=["Hm."]))
    try:
        events, error = await collect(provider, request(model="claude-x", reasoning=Reasoning.HIGH))
    finally:
        await provider.aclose()
    assert error is None and text(events) == "ok" and thinking(events) == "Hm."
    first, second = (r.json for r in loopback.requests if r.path == "/v1/messages")
    assert first["thinking"]["type"] == "enabled" and second["thinking"] == {"type": "adaptive"}


async def test_refused_in_both_shapes_reports_the_first_refusal(loopback: LoopbackServer) -> None:
    provider = AnthropicProvider("a", loopback.url, "sk-ant")
    loopback.enqueue("/v1/messages", anthropic_error(400, "invalid_request_error", REFUSED_SHAPE))
    loopback.enqueue(
        "/v1/messages",
        anthropic_error(400, "invalid_request_error", "adaptive thinking is not supported"),
    )
    try:
        _, error = await collect(provider, request(model="claude-x", reasoning=Reasoning.LOW))
    finally:
        await provider.aclose()
    assert isinstance(error, BadRequestError) and str(error) == REFUSED_SHAPE
    assert error.hint == REASONING_REFUSED_HINT
    assert len([r for r in loopback.requests if r.path == "/v1/messages"]) == 2


async def test_other_refusals_are_not_tried_again(loopback: LoopbackServer) -> None:
    provider = AnthropicProvider("a", loopback.url, "sk-ant")
    loopback.enqueue(
        "/v1/messages", anthropic_error(400, "invalid_request_error", "messages: text too long")
    )
    try:
        _, error = await collect(provider, request(model="claude-x", reasoning=Reasoning.LOW))
    finally:
        await provider.aclose()
    assert isinstance(error, BadRequestError)
    assert len([r for r in loopback.requests if r.path == "/v1/messages"]) == 1


async def test_the_shape_that_worked_is_asked_at_once_next_time(loopback: LoopbackServer) -> None:
    provider = AnthropicProvider("a", loopback.url, "sk-ant")
    loopback.enqueue("/v1/messages", anthropic_error(400, "invalid_request_error", REFUSED_SHAPE))
    loopback.enqueue("/v1/messages", anthropic_stream(["one"]))
    loopback.enqueue("/v1/messages", anthropic_stream(["two"]))
    try:
        for _ in range(2):
            _, error = await collect(provider, request(model="claude-x", reasoning=Reasoning.HIGH))
            assert error is None
    finally:
        await provider.aclose()
    shapes = [r.json["thinking"]["type"] for r in loopback.requests if r.path == "/v1/messages"]
    assert shapes == ["enabled", "adaptive", "adaptive"]  # no refused request the second time


@pytest.mark.parametrize("model", ["o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "openai/o3"])
async def test_openais_reasoning_models_get_the_fields_they_take(
    loopback: LoopbackServer, model: str
) -> None:
    """OpenAI's reasoning models refuse 'max_tokens' ("use
    'max_completion_tokens' instead") and any temperature or top_p but the
    default: a role with a length limit and a temperature made every send to
    them fail. They get max_completion_tokens and no sampling fields."""
    req = request(model=model, max_tokens=800, temperature=0.7, top_p=0.9)
    body = await _body(loopback, "openai", req)
    assert body["max_completion_tokens"] == 800
    assert not {"max_tokens", "temperature", "top_p"} & set(body)


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-5-chat-latest", "qwen3:8b", "llama-o3-tune"])
async def test_other_models_keep_max_tokens_and_their_sampling(
    loopback: LoopbackServer, model: str
) -> None:
    body = await _body(loopback, "openai", request(model=model, max_tokens=800, temperature=0.7))
    assert body["max_tokens"] == 800 and body["temperature"] == 0.7
    assert "max_completion_tokens" not in body
