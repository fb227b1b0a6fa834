"""AnthropicProvider through real httpx against the loopback server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mira_desktop.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    MalformedStreamError,
    ModelNotFoundError,
    NetworkError,
    RateLimitError,
    ServerError,
)
from mira_desktop.core.events import (
    StreamDone,
    TextDelta,
    ThinkingDelta,
    ThinkingSigned,
    ToolCallDelta,
    UsageReported,
)
from mira_desktop.core.models import ModelInfo, SignedThinking
from mira_desktop.providers.anthropic import AnthropicProvider
from tests.support.loopback import (
    Hang,
    LoopbackServer,
    anthropic_error,
    anthropic_models,
    anthropic_stream,
    json_reply,
    raw_stream,
    sse,
)

from .helpers import PNG_B64, closed_port_url, collect, request, rich_request

PATH = "/v1/messages"


def ev(kind: str, **fields: Any) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


START = ev("message_start", message={"id": "m", "usage": {"input_tokens": 7, "output_tokens": 1}})


@pytest.fixture
async def anthropic(loopback: LoopbackServer) -> AsyncIterator[AnthropicProvider]:
    provider = AnthropicProvider("claude", loopback.url, "sk-ant-test")
    yield provider
    await provider.aclose()


async def test_text_stream_usage_and_stop(loopback, anthropic):
    loopback.enqueue(PATH, anthropic_stream(["Bon", "jour"], input_tokens=42, output_tokens=9))
    events, error = await collect(anthropic)
    assert error is None
    assert events == [
        TextDelta("Bon"),
        TextDelta("jour"),
        UsageReported(prompt_tokens=42, completion_tokens=9),
        StreamDone("end_turn"),
    ]


async def test_thinking_block_then_text(loopback, anthropic):
    loopback.enqueue(
        PATH, anthropic_stream(["4"], thinking_chunks=["Two plus ", "two."], ping=False)
    )
    events, error = await collect(anthropic)
    assert error is None
    assert events[:4] == [
        ThinkingDelta("Two plus "),
        ThinkingDelta("two."),
        ThinkingSigned(SignedThinking("Two plus two.", "c2lnbmF0dXJl")),
        TextDelta("4"),
    ]


async def test_tool_use_block(loopback, anthropic):
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    delta = {"type": "input_json_delta", "partial_json": ""}
    loopback.enqueue(
        PATH,
        raw_stream([
            START,
            ev("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            ev("content_block_delta", index=0, delta={"type": "text_delta", "text": "Checking."}),
            ev("content_block_stop", index=0),
            ev("content_block_start", index=1, content_block=block),
            ev("content_block_delta", index=1, delta=delta),
            ev("content_block_delta", index=1, delta={**delta, "partial_json": '{"city": '}),
            ev("content_block_delta", index=1, delta={**delta, "partial_json": '"Paris"}'}),
            ev("content_block_stop", index=1),
            ev("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 30}),
            ev("message_stop"),
        ]),
    )  # fmt: skip
    events, error = await collect(anthropic)
    assert error is None
    assert events == [
        TextDelta("Checking."),
        ToolCallDelta(0, "toolu_1", "get_weather", ""),
        ToolCallDelta(0, None, None, '{"city": '),
        ToolCallDelta(0, None, None, '"Paris"}'),
        UsageReported(prompt_tokens=7, completion_tokens=30),
        StreamDone("tool_use"),
    ]


async def test_cache_tokens_count_as_prompt(loopback, anthropic):
    usage = {"input_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 20}
    loopback.enqueue(
        PATH,
        raw_stream([
            ev("message_start", message={"usage": usage}),
            ev("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 3}),
            ev("message_stop"),
        ]),
    )  # fmt: skip
    events, _ = await collect(anthropic)
    assert events == [UsageReported(125, 3), StreamDone("end_turn")]


async def test_split_lines_and_crlf(loopback, anthropic):
    whole = b"".join(anthropic_stream(["x", "y"]).chunks).replace(b"\n", b"\r\n")
    pieces = [whole[i : i + 37] for i in range(0, len(whole), 37)]
    loopback.enqueue(PATH, raw_stream(pieces, delay=0.002))
    events, error = await collect(anthropic)
    assert error is None
    assert events == [TextDelta("x"), TextDelta("y"), UsageReported(10, 20), StreamDone("end_turn")]


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ({"type": "overloaded_error", "message": "Overloaded"}, ServerError),
        ({"type": "api_error", "message": "Internal server error"}, ServerError),
        ({"type": "rate_limit_error", "message": "Slow down"}, RateLimitError),
        ({"type": "authentication_error", "message": "invalid x-api-key"}, AuthenticationError),
        ({"type": "not_found_error", "message": "model: claude-nope"}, ModelNotFoundError),
        ({"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > "
          "200000 maximum"}, ContextOverflowError),
        ({"type": "invalid_request_error", "message": "max_tokens: too big"}, BadRequestError),
    ],
    ids=lambda v: v["type"] if isinstance(v, dict) else v.__name__,
)  # fmt: skip
async def test_error_event_inside_stream(loopback, anthropic, error, kind):
    loopback.enqueue(PATH, anthropic_stream(["Par"], error=error))
    events, raised = await collect(anthropic)
    assert events == [TextDelta("Par")]
    assert type(raised) is kind
    assert str(raised) == error["message"]


async def test_non_json_data_is_malformed(loopback, anthropic):
    loopback.enqueue(PATH, raw_stream([START, "event: content_block_delta", "data: ???", ""]))
    _, error = await collect(anthropic)
    assert isinstance(error, MalformedStreamError)
    assert "???" in str(error)


async def test_truncated_stream(loopback, anthropic):
    loopback.enqueue(PATH, anthropic_stream(["never ", "finished"], stop=False))
    events, error = await collect(anthropic)
    assert events == [TextDelta("never "), TextDelta("finished")]
    assert isinstance(error, MalformedStreamError)
    assert str(error) == "The stream ended before the answer was complete"


@pytest.mark.parametrize(
    ("status", "type_", "message", "kind"),
    [
        (401, "authentication_error", "invalid x-api-key", AuthenticationError),
        (403, "permission_error", "Your API key does not have permission", AuthenticationError),
        (404, "not_found_error", "model: claude-nope", ModelNotFoundError),
        (400, "invalid_request_error", "prompt is too long: 300000 tokens > 200000 maximum",
         ContextOverflowError),
        # the thinking budget counts against the window
        (400, "invalid_request_error", "input length and `max_tokens` exceed context limit: "
         "187254 + 20480 > 200000, decrease input length or `max_tokens` and try again",
         ContextOverflowError),
        (413, "request_too_large", "Request exceeds the maximum allowed number of bytes",
         BadRequestError),
        (500, "api_error", "Internal server error", ServerError),
        (529, "overloaded_error", "Overloaded", ServerError),
    ],
)  # fmt: skip
async def test_http_errors(loopback, anthropic, status, type_, message, kind):
    loopback.enqueue(PATH, anthropic_error(status, type_, message))
    _, error = await collect(anthropic)
    assert type(error) is kind
    assert str(error) == message
    assert error.status == status


async def test_429_retry_after(loopback, anthropic):
    loopback.enqueue(
        PATH, anthropic_error(429, "rate_limit_error", "Too many", headers={"retry-after": "30"})
    )
    _, error = await collect(anthropic)
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 30.0
    assert error.to_dict()["retry_after"] == 30.0


async def test_server_gone():
    url = closed_port_url()
    async with AnthropicProvider("gone", url, "k") as provider:
        _, error = await collect(provider)
    assert isinstance(error, NetworkError)
    assert f"{url}/v1/messages" in str(error)


async def test_request_body_and_headers(loopback, anthropic):
    loopback.enqueue(PATH, anthropic_stream(["ok"]))
    thinking = {"type": "enabled", "budget_tokens": 2048}
    await collect(anthropic, rich_request(temperature=1.0, top_p=0.8, extra={"thinking": thinking}))
    (recorded,) = loopback.requests
    assert recorded.headers["x-api-key"] == "sk-ant-test"
    assert recorded.headers["anthropic-version"] == "2023-06-01"
    assert recorded.headers["content-type"] == "application/json"
    assert "authorization" not in recorded.headers
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": PNG_B64}}  # fmt: skip
    assert recorded.json == {
        "model": "vision-model",
        "max_tokens": 4096,
        "stream": True,
        "temperature": 1.0,
        "top_p": 0.8,
        "thinking": thinking,
        "system": "You are terse.\n\nAnswer in French.",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Bonjour"},
            {"role": "user", "content": [image, {"type": "text", "text": "What is this?"}]},
        ],
    }


async def test_minimal_body(loopback, anthropic):
    loopback.enqueue(PATH, anthropic_stream(["ok"]))
    await collect(anthropic, request(max_tokens=50))
    body = loopback.requests[0].json
    assert body["max_tokens"] == 50
    assert "system" not in body and "temperature" not in body and "top_p" not in body


async def test_cancel_closes_the_http_request(loopback, anthropic):
    first_delta = ev("content_block_delta", index=0, delta={"type": "text_delta", "text": "a"})
    loopback.enqueue(PATH, raw_stream([START, first_delta, Hang()]))
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in anthropic.stream_chat(request()):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 2.0)
    assert not loopback.disconnected.is_set()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(loopback.wait_for_disconnect, 1.0)


async def test_list_models(loopback, anthropic):
    loopback.enqueue("/v1/models", anthropic_models(["claude-sonnet-4-5", "claude-haiku-4-5"]))
    assert await anthropic.list_models() == [
        ModelInfo("claude-haiku-4-5"),
        ModelInfo("claude-sonnet-4-5"),
    ]
    (recorded,) = loopback.requests
    assert recorded.headers["x-api-key"] == "sk-ant-test"
    assert recorded.query == "limit=1000"


async def test_list_models_follows_pages(loopback, anthropic):
    page = {"data": [{"id": "claude-b"}], "has_more": True, "last_id": "claude-b"}
    loopback.enqueue("/v1/models", json_reply(page))
    loopback.enqueue("/v1/models", anthropic_models(["claude-a"]))
    assert await anthropic.list_models() == [ModelInfo("claude-a"), ModelInfo("claude-b")]
    assert loopback.requests[1].query == "limit=1000&after_id=claude-b"
