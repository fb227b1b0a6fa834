"""OllamaProvider through real httpx against the loopback server."""

from __future__ import annotations

import asyncio
import json
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
    ProviderError,
    RateLimitError,
    ServerError,
)
from mira_desktop.core.events import (
    StreamDone,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageReported,
    merge_deltas,
)
from mira_desktop.core.models import ModelInfo
from mira_desktop.providers.ollama import OllamaProvider
from tests.support.loopback import (
    Hang,
    LoopbackServer,
    json_reply,
    ndjson,
    ollama_error,
    ollama_stream,
    ollama_tags,
    raw_stream,
)

from .helpers import PNG_B64, closed_port_url, collect, request, rich_request, text, thinking

PATH = "/api/chat"


def line(message: dict[str, Any] | None = None, **extra: Any) -> bytes:
    body = {"role": "assistant", "content": "", **(message or {})}
    return ndjson({"model": "m", "message": body, "done": False, **extra})


@pytest.fixture
async def ollama(loopback: LoopbackServer) -> AsyncIterator[OllamaProvider]:
    provider = OllamaProvider("ollama", loopback.url + "/")
    yield provider
    await provider.aclose()


async def test_text_stream_and_usage(loopback, ollama):
    loopback.enqueue(PATH, ollama_stream(["Hi", " there"], prompt_eval_count=11, eval_count=3))
    events, error = await collect(ollama)
    assert error is None
    assert merge_deltas(events) == [
        TextDelta("Hi there"),
        UsageReported(prompt_tokens=11, completion_tokens=3),
        StreamDone("stop"),
    ]


async def test_no_counts_means_no_usage_event(loopback, ollama):
    loopback.enqueue(PATH, ollama_stream(["x"], done_reason="length"))
    events, _ = await collect(ollama)
    assert events == [TextDelta("x"), StreamDone("length")]


async def test_thinking_field(loopback, ollama):
    loopback.enqueue(PATH, ollama_stream(["4"], thinking_chunks=["2+2", "=4"]))
    events, _ = await collect(ollama)
    assert merge_deltas(events)[:2] == [ThinkingDelta("2+2=4"), TextDelta("4")]


async def test_think_tags_in_content_at_odd_cuts(loopback, ollama):
    pieces = ["<", "think", ">a <", "/b> <", "/", "think", ">", "Plain"]
    loopback.enqueue(PATH, ollama_stream(pieces))
    events, _ = await collect(ollama)
    assert (thinking(events), text(events)) == ("a </b> ", "Plain")


async def test_think_tags_in_content(loopback, ollama):
    loopback.enqueue(PATH, ollama_stream(["  <think>\nwhy", " not</thin", "k>\n\nBecause."]))
    events, _ = await collect(ollama)
    assert (thinking(events), text(events)) == ("\nwhy not", "Because.")


async def test_tool_calls_arguments_serialised(loopback, ollama):
    call = {"function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}
    other = {"id": "call_9", "function": {"name": "now", "arguments": {}}}
    loopback.enqueue(
        PATH,
        raw_stream(
            [line({"tool_calls": [call]}), line({"tool_calls": [other]}), line(done=True)],
            content_type="application/x-ndjson",
        ),
    )
    events, error = await collect(ollama)
    assert error is None
    assert events == [
        ToolCallDelta(0, None, "get_weather", '{"city": "Paris", "days": 2}'),
        ToolCallDelta(1, "call_9", "now", "{}"),
        StreamDone(None),
    ]


async def test_blank_lines_and_crlf_are_tolerated(loopback, ollama):
    pieces = [b"\r\n", line({"content": "a"})[:-1] + b"\r\n", b"\n", line(done=True)]
    loopback.enqueue(PATH, raw_stream(pieces, content_type="application/x-ndjson"))
    events, error = await collect(ollama)
    assert error is None
    assert events == [TextDelta("a"), StreamDone(None)]


async def test_line_split_across_reads(loopback, ollama):
    whole = line({"content": "split"})
    pieces = [whole[:7], whole[7:20], whole[20:], line(done=True)]
    loopback.enqueue(PATH, raw_stream(pieces, delay=0.01))
    events, error = await collect(ollama)
    assert error is None
    assert events == [TextDelta("split"), StreamDone(None)]


async def test_error_line_inside_stream(loopback, ollama):
    loopback.enqueue(
        PATH, raw_stream([line({"content": "par"}), ndjson({"error": "model runner crashed"})])
    )
    events, error = await collect(ollama)
    assert events == [TextDelta("par")]
    assert isinstance(error, ServerError)
    assert str(error) == "model runner crashed"


async def test_context_error_line_inside_stream(loopback, ollama):
    message = "the input length exceeds the context window"
    loopback.enqueue(PATH, raw_stream([ndjson({"error": message})]))
    _, error = await collect(ollama)
    assert isinstance(error, ContextOverflowError)
    assert str(error) == message


async def test_non_json_line_is_malformed(loopback, ollama):
    loopback.enqueue(PATH, raw_stream([line({"content": "ok"}), "<html>oops</html>"]))
    events, error = await collect(ollama)
    assert events == [TextDelta("ok")]
    assert isinstance(error, MalformedStreamError)
    assert "<html>oops</html>" in str(error)


async def test_truncated_stream(loopback, ollama):
    loopback.enqueue(PATH, ollama_stream(["half", " an answer"], done=False))
    events, error = await collect(ollama)
    assert merge_deltas(events) == [TextDelta("half an answer")]
    assert isinstance(error, MalformedStreamError)
    assert str(error) == "The stream ended before the answer was complete"


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (401, "unauthorized", AuthenticationError),
        (404, 'model "nope" not found, try pulling it first', ModelNotFoundError),
        (400, "model 'nope' not found", ModelNotFoundError),
        (400, "input is too long for the context", ContextOverflowError),
        (400, "invalid options: num_ctx", BadRequestError),
        (500, "llama runner process has terminated", ServerError),
    ],
)
async def test_http_errors(loopback, ollama, status, message, kind):
    loopback.enqueue(PATH, ollama_error(status, message))
    events, error = await collect(ollama)
    assert events == []
    assert type(error) is kind
    assert str(error) == message
    assert error.status == status


async def test_429_retry_after_http_date(loopback, ollama):
    loopback.enqueue(
        PATH, json_reply({"error": "busy"}, 429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
    )
    _, error = await collect(ollama)
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 0.0  # a date in the past: retry now


async def test_429_retry_after_seconds(loopback, ollama):
    loopback.enqueue(PATH, json_reply({"error": "busy"}, 429, {"Retry-After": "2.5"}))
    _, error = await collect(ollama)
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 2.5
    assert str(error) == "busy"


async def test_server_gone():
    url = closed_port_url()
    async with OllamaProvider("gone", url) as provider:
        _, error = await collect(provider)
    assert isinstance(error, NetworkError)
    assert f"{url}/api/chat" in str(error)


async def test_request_body(loopback, ollama):
    loopback.enqueue(PATH, ollama_stream(["ok"]))
    req = rich_request(
        temperature=0.7,
        top_p=0.9,
        max_tokens=128,
        extra={"think": True, "keep_alive": "5m", "options": {"num_ctx": 8192}},
    )
    await collect(ollama, req)
    (recorded,) = loopback.requests
    assert recorded.path == "/api/chat"
    assert "authorization" not in recorded.headers
    assert recorded.json == {
        "model": "vision-model",
        "stream": True,
        "think": True,
        "keep_alive": "5m",
        "options": {"temperature": 0.7, "top_p": 0.9, "num_predict": 128, "num_ctx": 8192},
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "system", "content": "Answer in French."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Bonjour"},
            {"role": "user", "content": "What is this?", "images": [PNG_B64]},
        ],
    }


async def test_no_settings_means_no_options(loopback, ollama):
    loopback.enqueue(PATH, ollama_stream(["ok"]))
    await collect(ollama, request())
    assert "options" not in loopback.requests[0].json


async def test_cancel_closes_the_http_request(loopback, ollama):
    loopback.enqueue(PATH, raw_stream([line({"content": "first"}), Hang()]))
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in ollama.stream_chat(request()):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 2.0)
    assert not loopback.disconnected.is_set()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(loopback.wait_for_disconnect, 1.0)


async def test_list_models(loopback, ollama):
    loopback.enqueue("/api/tags", ollama_tags(["qwen3:8b", "gemma3:4b", "llama3.2:latest"]))
    assert await ollama.list_models() == [
        ModelInfo("gemma3:4b"),
        ModelInfo("llama3.2:latest"),
        ModelInfo("qwen3:8b"),
    ]
    assert loopback.requests[0].method == "GET"


async def test_list_models_garbage_is_malformed(loopback, ollama):
    loopback.enqueue("/api/tags", json_reply({"unexpected": True}))
    with pytest.raises(MalformedStreamError):
        await ollama.list_models()


# --------------------------------------------------------------------------- one read, many lines


async def test_many_lines_in_one_read_come_merged_in_order_and_stop_at_done(loopback, ollama):
    body = [line({"thinking": f"r{i} "}) for i in range(20)]
    body += [line({"content": f"t{i} "}) for i in range(60)]
    body += [ndjson({"model": "m", "done": True, "done_reason": "stop", "eval_count": 60})]
    body += [line({"content": "after the end"})]
    loopback.enqueue(PATH, raw_stream([b"".join(body)]))
    events, error = await collect(ollama)
    assert error is None
    assert events == [
        ThinkingDelta("".join(f"r{i} " for i in range(20))),
        TextDelta("".join(f"t{i} " for i in range(60))),
        UsageReported(None, 60),
        StreamDone("stop"),
    ]


@pytest.mark.parametrize(
    "bad",
    [b"{not json}\n", b'{"message": {"content": "x"}} {"done": true}\n', b"[1, 2]\n"],
    ids=["broken", "two-values", "array"],
)
async def test_a_bad_line_in_a_read_fails_after_the_lines_before_it(loopback, ollama, bad):
    good = [line({"content": f"t{i} "}) for i in range(20)]
    loopback.enqueue(PATH, raw_stream([b"".join([*good, bad, *good])]))
    events, error = await collect(ollama)
    assert events == [TextDelta("".join(f"t{i} " for i in range(20)))]
    assert isinstance(error, MalformedStreamError)


async def test_an_error_line_in_a_read_fails_after_the_lines_before_it(loopback, ollama):
    good = [line({"content": f"t{i} "}) for i in range(20)]
    bad = ndjson({"error": "model runner crashed"})
    loopback.enqueue(PATH, raw_stream([b"".join([*good, bad, *good])]))
    events, error = await collect(ollama)
    assert events == [TextDelta("".join(f"t{i} " for i in range(20)))]
    assert isinstance(error, ProviderError) and "model runner crashed" in str(error)


def test_batch_parse_matches_line_by_line_parse():
    # The usual line (plain answer text) takes a short path in feed_batch;
    # every other shape must come out exactly as the one-line parser gives it.
    from mira_desktop.providers.ollama import OllamaStreamParser

    def obj(message=None, **extra):
        return {
            "model": "m",
            "message": {"role": "assistant", **(message or {})},
            "done": False,
            **extra,
        }

    objs = [
        obj({"content": ""}),
        obj({"content": "  <think>"}),
        obj({"content": "why</think>"}),
        obj({"content": "\n\nAn"}),
        obj({"content": "swer"}),
        obj({"content": " with", "thinking": "late"}),
        obj({"content": " 数据", "images": None}),
        obj({"tool_calls": [{"function": {"name": "f", "arguments": {}}}]}),
        {"model": "m", "message": {"content": " no role"}, "done": False},
        obj({"content": " end"}, done=True, done_reason="stop", eval_count=5),
        obj({"content": "after the end"}),
    ]
    lines = [json.dumps(o) for o in objs]
    one = OllamaStreamParser("p")
    expected = []
    for line in lines:
        if not one.done:
            expected += one.feed(line)
    for size in (1, 2, 3, len(lines)):
        batched = OllamaStreamParser("p")
        events = []
        for start in range(0, len(lines), size):
            if batched.done:
                break
            got, error = batched.feed_batch(lines[start : start + size])
            assert error is None
            events += got
        assert merge_deltas(events) == merge_deltas(expected), size
    assert merge_deltas(expected)[:4] == [
        ThinkingDelta("why"),
        TextDelta("Answer"),
        ThinkingDelta("late"),
        TextDelta(" with 数据"),
    ]
