"""OpenAIProvider against what real OpenAI-compatible servers send beyond the
happy path (llama.cpp's ``error:`` field line, a stream ended cleanly after
its finish, keep-alives, refusals…), through real httpx and the loopback
server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from mira_desktop.core.errors import ContextOverflowError, MalformedStreamError, ServerError
from mira_desktop.core.events import StreamDone, TextDelta, UsageReported, merge_deltas
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import LoopbackServer, Pause, raw_stream, sse

from .helpers import collect

PATH = "/v1/chat/completions"

#: llama.cpp's server: a failure while streaming is an ``error:`` field line
#: (not ``data:``), then ``data: [DONE]``
LLAMACPP_OVERFLOW = (
    b'error: {"code":400,"message":"the request exceeds the available context size, '
    b'try increasing it","type":"exceed_context_size_error"}\n\n'
)
LLAMACPP_DECODE_FAILED = (
    b'error: {"code":500,"message":"Failed to decode the batch","type":"server_error"}\n\n'
)


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c", "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": delta, "finish_reason": finish}
    ]}  # fmt: skip


@pytest.fixture
async def openai(loopback: LoopbackServer) -> AsyncIterator[OpenAIProvider]:
    provider = OpenAIProvider("local", loopback.url + "/v1", "sk-test")
    yield provider
    await provider.aclose()


async def test_llamacpp_error_field_overflow_is_context_overflow(loopback, openai):
    loopback.enqueue(PATH, raw_stream([LLAMACPP_OVERFLOW, b"data: [DONE]\n\n"]))
    events, error = await collect(openai)
    assert events == []
    assert isinstance(error, ContextOverflowError)
    assert str(error) == "the request exceeds the available context size, try increasing it"
    assert error.status == 400


async def test_llamacpp_error_field_after_text_keeps_it_and_fails(loopback, openai):
    body = [sse(chunk({"content": "Partial"})), LLAMACPP_DECODE_FAILED, b"data: [DONE]\n\n"]
    loopback.enqueue(PATH, raw_stream(body))
    events, error = await collect(openai)
    assert events == [TextDelta("Partial")]
    assert isinstance(error, ServerError)
    assert str(error) == "Failed to decode the batch"


async def test_llamacpp_error_field_in_one_read_with_text_and_done(loopback, openai):
    body = sse(chunk({"content": "Par"})) + LLAMACPP_DECODE_FAILED + b"data: [DONE]\n\n"
    loopback.enqueue(PATH, raw_stream([body]))
    events, error = await collect(openai)
    assert merge_deltas(events) == [TextDelta("Par")]
    assert isinstance(error, ServerError)
    assert not any(isinstance(e, StreamDone) for e in events)


async def test_plain_text_error_field_is_a_server_error(loopback, openai):
    loopback.enqueue(PATH, raw_stream([b"error: the model crashed\n\n", b"data: [DONE]\n\n"]))
    _, error = await collect(openai)
    assert isinstance(error, ServerError)
    assert str(error) == "the model crashed"


# --------------------------------------------------------------------------- no [DONE]


@pytest.mark.parametrize("framing", ["auto", "close"])
async def test_clean_end_after_a_finish_reason_completes_without_done(loopback, openai, framing):
    """ik_llama.cpp and some proxies end the body after the last chunk, with
    no ``data: [DONE]``: the finish_reason already said the answer is whole."""
    usage = {"prompt_tokens": 5, "completion_tokens": 7}
    last = {**chunk({}, finish="stop"), "usage": usage}
    body = [sse(chunk({"content": "The capital is Paris."})), sse(last)]
    loopback.enqueue(PATH, raw_stream(body, framing=framing))
    events, error = await collect(openai)
    assert error is None
    assert merge_deltas(events) == [
        TextDelta("The capital is Paris."),
        UsageReported(5, 7, None),
        StreamDone("stop"),
    ]


async def test_cut_after_a_finish_reason_is_still_truncated(loopback, openai):
    """A connection dropped mid-body is no clean end, finish_reason or not."""
    body = [sse(chunk({"content": "x"}, finish="stop")), Pause(0.05)]
    loopback.enqueue(PATH, raw_stream(body, close_after=True))
    events, error = await collect(openai)
    assert events == [TextDelta("x")]
    assert isinstance(error, MalformedStreamError)
