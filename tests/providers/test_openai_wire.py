"""OpenAIProvider against what real OpenAI-compatible servers send beyond the
happy path (llama.cpp's ``error:`` field line, a stream ended cleanly after
its finish, keep-alives, refusals…), through real httpx and the loopback
server."""

from __future__ import annotations

import re

import httpx
import pytest

from mira_desktop.core.errors import (
    BadRequestError,
    ContextOverflowError,
    MalformedStreamError,
    ModelNotFoundError,
    RateLimitError,
    ServerError,
)
from mira_desktop.core.events import StreamDone, TextDelta, UsageReported, merge_deltas
from mira_desktop.core.models import Reasoning
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import (
    Pause,
    Reply,
    Reset,
    json_reply,
    openai_json_error,
    raw_stream,
    sse,
    text_reply,
)

from .helpers import chunk, collect, request

PATH = "/v1/chat/completions"
ENDPOINT_NOT_FOUND_HINT = (
    "Check the provider's base URL: the server has no such address "
    "(OpenAI-compatible servers need /v1 at its end, e.g. http://localhost:11434/v1)."
)

#: llama.cpp's server: a failure while streaming is an ``error:`` field line
#: (not ``data:``), then ``data: [DONE]``
LLAMACPP_OVERFLOW = (
    b'error: {"code":400,"message":"the request exceeds the available context size, '
    b'try increasing it","type":"exceed_context_size_error"}\n\n'
)
LLAMACPP_DECODE_FAILED = (
    b'error: {"code":500,"message":"Failed to decode the batch","type":"server_error"}\n\n'
)


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


# --------------------------------------------------------------------------- 404s


@pytest.mark.parametrize(
    "reply",
    [
        # LM Studio, asked at an address it does not serve
        json_reply({"error": "Unexpected endpoint or method. (POST /chat/completions)"}, 404),
        # Ollama's root without /v1
        text_reply(404, "404 page not found"),
    ],
    ids=["lm-studio", "ollama-without-v1"],
)
async def test_a_404_naming_no_model_points_at_the_base_url(loopback, reply):
    loopback.enqueue("/chat/completions", reply)
    async with OpenAIProvider("local", loopback.url, "sk-test") as provider:  # no /v1
        events, error = await collect(provider)
    assert events == []
    assert type(error) is BadRequestError
    assert error.status == 404
    assert error.hint == ENDPOINT_NOT_FOUND_HINT
    assert "/v1" in error.hint and "ollama pull" not in error.hint


async def test_a_404_with_a_reasoning_level_keeps_the_base_url_hint(loopback):
    loopback.enqueue("/chat/completions", text_reply(404, "404 page not found"))
    async with OpenAIProvider("local", loopback.url) as provider:
        _, error = await collect(provider, request(reasoning=Reasoning.HIGH))
    assert error is not None and error.hint == ENDPOINT_NOT_FOUND_HINT


@pytest.mark.parametrize(
    "reply",
    [
        openai_json_error(404, "The model `nope` does not exist.", code="model_not_found"),
        json_reply({"error": 'model "nope" not found, try pulling it first'}, 404),
        json_reply({"error": {"type": "not_found_error", "message": "model: nope"}}, 404),
        json_reply({"error": "No such model: nope"}, 404),
    ],
    ids=["openai-code", "ollama-words", "anthropic-type", "model-word"],
)
async def test_a_404_naming_the_model_is_model_not_found(loopback, openai, reply):
    loopback.enqueue(PATH, reply)
    _, error = await collect(openai)
    assert type(error) is ModelNotFoundError
    assert "ollama pull" in error.hint


async def test_listing_models_at_a_wrong_base_url_points_at_it(loopback):
    loopback.enqueue(
        "/models", json_reply({"error": "Unexpected endpoint or method. (GET /models)"}, 404)
    )
    async with OpenAIProvider("local", loopback.url) as provider:
        with pytest.raises(BadRequestError) as caught:
            await provider.list_models()
    assert caught.value.hint == ENDPOINT_NOT_FOUND_HINT


# --------------------------------------------------------------------------- web pages

CLOUDFLARE_502 = (
    '<!DOCTYPE html>\n<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->\n'
    '<html lang="en-US">\n<head>\n<title>example.com | 502: Bad gateway</title>\n'
    "<style>body{font-family:sans-serif}</style></head><body><h1>Bad gateway</h1>"
    "<p>The web server reported a bad gateway error.</p></body></html>"
)


def html_reply(status: int, page: str) -> Reply:
    return Reply(
        status=status, headers={"content-type": "text/html; charset=UTF-8"}, chunks=[page.encode()]
    )


@pytest.mark.parametrize(
    ("reply", "kind", "message"),
    [
        (html_reply(502, CLOUDFLARE_502), ServerError, "example.com | 502: Bad gateway"),
        (
            html_reply(413, "<html>\r\n<head><title>413 Request Entity Too Large</title></head>"
                       "\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>"
                       "\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>"),
            BadRequestError,
            "413 Request Entity Too Large",
        ),
        (html_reply(504, "<html><body><h1>Gateway Timeout &amp; more</h1></body></html>"),
         ServerError, "HTTP 504 Gateway Timeout"),
        (html_reply(502, "<HTML><HEAD><TITLE>Bad &amp; Gateway</TITLE></HEAD></HTML>"),
         ServerError, "Bad & Gateway"),
    ],
    ids=["cloudflare-502", "nginx-413", "untitled-504", "upper-case"],
)  # fmt: skip
async def test_an_html_error_page_is_told_by_its_title(loopback, openai, reply, kind, message):
    loopback.enqueue(PATH, reply)
    _, error = await collect(openai)
    assert type(error) is kind
    assert str(error) == message
    assert error.status == reply.status


# --------------------------------------------------------------------------- resets


@pytest.mark.parametrize("transport", ["local", "httpx"])
async def test_a_connection_reset_mid_stream_is_a_truncated_answer(loopback, transport):
    """A reset while the answer streams (a remote provider's connection
    dropped) is a truncated answer, through aiohttp (local servers) and
    httpx's own transport (remote ones) alike, not a "start Ollama" failure."""
    body = [sse(chunk({"content": "Partial answer"})), Pause(0.1), Reset()]
    loopback.enqueue(PATH, raw_stream(body))
    client = httpx.AsyncClient() if transport == "httpx" else None
    try:
        async with OpenAIProvider("remote", loopback.url + "/v1", client=client) as provider:
            events, error = await collect(provider)
    finally:
        if client is not None:
            await client.aclose()
    assert events == [TextDelta("Partial answer")]
    assert type(error) is MalformedStreamError
    assert str(error) == "The stream ended before the answer was complete"
    assert error.hint == MalformedStreamError.default_hint


# --------------------------------------------------------------------------- 429s


async def test_a_used_up_quota_says_so_instead_of_wait(loopback, openai):
    message = "You exceeded your current quota, please check your plan and billing details."
    reply = openai_json_error(429, message, type="insufficient_quota", code="insufficient_quota")
    loopback.enqueue(PATH, reply)
    _, error = await collect(openai)
    assert type(error) is RateLimitError and str(error) == message
    assert error.hint == (
        "The account's quota or credit is used up: check the plan and billing with the "
        "provider (waiting will not help)."
    )


@pytest.mark.parametrize(
    ("headers", "hint"),
    [
        ({"retry-after-ms": "29646.9"}, "Wait 30 s and retry."),
        ({"Retry-After": "0.2"}, "Wait 1 s and retry."),
        ({"Retry-After": "119"}, "Wait 119 s and retry."),
        ({"Retry-After": "300"}, "Wait 5 min and retry."),
        ({"Retry-After": "7200"}, "Wait 2 h and retry."),
        ({"Retry-After": "Wed, 21 Oct 2099 07:28:00 GMT"}, None),
        ({}, "Wait a moment and retry."),
    ],
    ids=["ms", "fraction", "seconds", "minutes", "hours", "far-date", "none"],
)
async def test_a_rate_limits_wait_is_whole_and_readable(loopback, openai, headers, hint):
    loopback.enqueue(PATH, openai_json_error(429, "slow down", headers=headers))
    _, error = await collect(openai)
    assert type(error) is RateLimitError
    if hint is None:  # decades away: in days, a whole number
        assert re.fullmatch(r"Wait \d+ days and retry\.", error.hint), error.hint
    else:
        assert error.hint == hint


# --------------------------------------------------------------------------- odd events


async def test_an_empty_data_keep_alive_is_skipped(loopback, openai):
    body = [sse(chunk({"content": "Hello"})), b"data: \n\n", b"data:\n\n", b"data:   \n\n",
            sse(chunk({"content": " world"}, finish="stop")), b"data: [DONE]\n\n"]  # fmt: skip
    loopback.enqueue(PATH, raw_stream(body))
    events, error = await collect(openai)
    assert error is None
    assert merge_deltas(events) == [TextDelta("Hello world"), StreamDone("stop")]


async def test_empty_keep_alives_in_one_read_are_skipped(loopback, openai):
    one = sse(chunk({"content": "a"})) + b"data: \n\n" + sse(chunk({"content": "b"}, "stop"))
    loopback.enqueue(PATH, raw_stream([one + b"data: \n\ndata: [DONE]\n\n"]))
    events, error = await collect(openai)
    assert error is None
    assert merge_deltas(events) == [TextDelta("ab"), StreamDone("stop")]


async def test_a_refusal_is_the_answer(loopback, openai):
    """OpenAI streams a refusal in ``delta.refusal`` with ``content`` null."""
    body = [sse(chunk({"role": "assistant", "content": None, "refusal": ""})),
            sse(chunk({"refusal": "I can't help "})), sse(chunk({"refusal": "with that."})),
            sse(chunk({}, finish="stop")), b"data: [DONE]\n\n"]  # fmt: skip
    loopback.enqueue(PATH, raw_stream(body))
    events, error = await collect(openai)
    assert error is None
    assert merge_deltas(events) == [TextDelta("I can't help with that."), StreamDone("stop")]


async def test_a_whole_json_refusal_is_the_answer(loopback, openai):
    answer = {"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": None, "refusal": "I can't help with that."}}]}  # fmt: skip
    loopback.enqueue(PATH, json_reply(answer))
    events, error = await collect(openai)
    assert error is None
    assert events == [TextDelta("I can't help with that."), StreamDone("stop")]


@pytest.mark.parametrize("lead", [b"", b"\n", b"d"], ids=["plain", "newline-first", "split"])
async def test_an_sse_stream_labelled_json_is_read_as_sse(loopback, openai, lead):
    """A server that streams SSE under ``Content-Type: application/json``:
    read as the stream it is, its text as it comes."""
    first = sse(chunk({"content": "Hi"}))
    # "split": the "data:" itself cut across network reads
    pieces = [b"d", Pause(0.02), first[1:]] if lead == b"d" else [lead + first]
    body = [*pieces, sse(chunk({"content": " there"}, finish="stop")), b"data: [DONE]\n\n"]
    loopback.enqueue(PATH, raw_stream(body, content_type="application/json"))
    events, error = await collect(openai)
    assert error is None
    assert merge_deltas(events) == [TextDelta("Hi there"), StreamDone("stop")]


async def test_a_json_answer_in_several_reads_is_still_one_answer(loopback, openai):
    answer = b'{"choices":[{"index":0,"finish_reason":"stop","message":{"content":"Whole"}}]}'
    loopback.enqueue(
        PATH, raw_stream([answer[:3], Pause(0.02), answer[3:]], content_type="application/json")
    )
    events, error = await collect(openai)
    assert error is None
    assert events == [TextDelta("Whole"), StreamDone("stop")]
