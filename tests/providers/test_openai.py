"""OpenAIProvider through real httpx against the loopback server."""

from __future__ import annotations

import asyncio
import json

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
    UsageReported,
    merge_deltas,
)
from mira_desktop.core.models import ModelInfo
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import (
    Gate,
    Hang,
    json_reply,
    openai_json_error,
    openai_models,
    openai_stream,
    raw_stream,
    sse,
    text_reply,
)

from .helpers import PNG_B64, chunk, closed_port_url, collect, request, rich_request, text, thinking

PATH = "/v1/chat/completions"


# --------------------------------------------------------------------------- streaming


async def test_text_stream_yields_deltas_in_order_then_done(loopback, openai):
    loopback.enqueue(PATH, openai_stream(["Hel", "lo", " world"], finish_reason="length"))
    events, error = await collect(openai)
    assert error is None
    # how the chunks fall into network reads is up to the socket; within a read
    # adjacent deltas come merged, so compare the merged sequence
    assert merge_deltas(events) == [TextDelta("Hello world"), StreamDone("length")]


async def test_usage_chunk_is_reported_before_done(loopback, openai):
    usage = {
        "prompt_tokens": 12,
        "completion_tokens": 34,
        "total_tokens": 46,
        "completion_tokens_details": {"reasoning_tokens": 20},
    }
    loopback.enqueue(PATH, openai_stream(["ok"], usage=usage))
    events, error = await collect(openai)
    assert error is None
    assert events[-2:] == [UsageReported(12, 34, 20), StreamDone("stop")]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_fields_become_thinking(loopback, openai, field):
    loopback.enqueue(
        PATH,
        openai_stream(["Answer"], thinking_chunks=["Step 1. ", "Step 2."], reasoning_field=field),
    )
    events, error = await collect(openai)
    assert error is None
    assert merge_deltas(events)[:2] == [ThinkingDelta("Step 1. Step 2."), TextDelta("Answer")]


async def test_think_tags_split_across_chunks(loopback, openai):
    pieces = ["<thi", "nk>Let me ", "think.</th", "ink", ">\n", "\nThe answer", " is 4."]
    loopback.enqueue(PATH, openai_stream(pieces))
    events, error = await collect(openai)
    assert error is None
    assert thinking(events) == "Let me think."
    assert text(events) == "The answer is 4."
    assert isinstance(events[0], ThinkingDelta)


async def test_think_tag_after_leading_whitespace_is_reasoning(loopback, openai):
    loopback.enqueue(PATH, openai_stream(["\n ", "<think>", "hmm", "</think>", "Hi"]))
    events, _ = await collect(openai)
    assert (thinking(events), text(events)) == ("hmm", "Hi")


async def test_think_tag_in_middle_of_answer_is_plain_text(loopback, openai):
    loopback.enqueue(PATH, openai_stream(["Use ", "<think>", " tags</think> like this"]))
    events, _ = await collect(openai)
    assert thinking(events) == ""
    assert text(events) == "Use <think> tags</think> like this"


async def test_tool_call_deltas(loopback, openai):
    first = {"index": 0, "id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": ""}}  # fmt: skip
    second = {"index": 1, "id": "call_2", "type": "function",
              "function": {"name": "get_time", "arguments": "{}"}}  # fmt: skip
    loopback.enqueue(
        PATH,
        raw_stream([
            sse(chunk({"role": "assistant", "content": None, "tool_calls": [first]})),
            sse(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]})),
            sse(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]})),
            sse(chunk({"tool_calls": [second]})),
            sse(chunk({}, "tool_calls")),
            sse("[DONE]"),
        ]),
    )  # fmt: skip
    events, error = await collect(openai)
    assert error is None
    calls = [(e.index, e.call_id, e.name, e.arguments) for e in events[:-1]]
    assert calls == [
        (0, "call_1", "get_weather", ""),
        (0, None, None, '{"city":'),
        (0, None, None, '"Paris"}'),
        (1, "call_2", "get_time", "{}"),
    ]
    assert events[-1] == StreamDone("tool_calls")


@pytest.mark.parametrize(
    "options",
    [
        {"keepalive": True},
        {"crlf": True},
        {"split_lines": True},
        {"split_lines": True, "crlf": True, "keepalive": True},
    ],
    ids=["keepalive", "crlf", "split", "all"],
)
async def test_wire_variants_parse_identically(loopback, openai, options):
    usage = {"prompt_tokens": 5, "completion_tokens": 6}
    loopback.enqueue(PATH, openai_stream(["A", "B"], thinking_chunks=["t"], usage=usage, **options))
    events, error = await collect(openai)
    assert error is None
    assert merge_deltas(events) == [
        ThinkingDelta("t"),
        TextDelta("AB"),
        UsageReported(5, 6, None),
        StreamDone("stop"),
    ]


async def test_multiline_data_fields_are_joined(loopback, openai):
    payload = json.dumps(chunk({"content": "joined"}), indent=1)  # JSON over several lines
    lines = ["data: " + line for line in payload.split("\n")]
    loopback.enqueue(PATH, raw_stream([*lines, "", "data: [DONE]", ""]))
    events, error = await collect(openai)
    assert error is None
    assert events == [TextDelta("joined"), StreamDone(None)]


# --------------------------------------------------------------------------- broken streams


async def test_error_object_inside_stream_is_typed(loopback, openai):
    err = {"message": "This model's maximum context length is 8192 tokens.",
           "type": "invalid_request_error", "code": "context_length_exceeded"}  # fmt: skip
    loopback.enqueue(PATH, raw_stream([sse(chunk({"content": "Par"})), sse({"error": err})]))
    events, error = await collect(openai)
    assert events == [TextDelta("Par")]
    assert isinstance(error, ContextOverflowError)
    assert str(error) == "This model's maximum context length is 8192 tokens."


async def test_server_error_object_inside_stream(loopback, openai):
    err = {"message": "upstream crashed", "type": "server_error", "code": None}
    loopback.enqueue(PATH, raw_stream([sse({"error": err})]))
    _, error = await collect(openai)
    assert isinstance(error, ServerError)
    assert str(error) == "upstream crashed"


async def test_non_json_data_line_is_malformed(loopback, openai):
    loopback.enqueue(
        PATH, raw_stream([sse(chunk({"content": "ok"})), "data: {not json at all", ""])
    )
    events, error = await collect(openai)
    assert events == [TextDelta("ok")]
    assert isinstance(error, MalformedStreamError)
    assert "{not json at all" in str(error)


async def test_truncated_stream_keeps_deltas_then_fails(loopback, openai):
    loopback.enqueue(PATH, openai_stream(["partial ", "answer"], done=False))
    events, error = await collect(openai)
    assert merge_deltas(events) == [TextDelta("partial answer")]
    assert isinstance(error, MalformedStreamError)
    assert str(error) == "The stream ended before the answer was complete"


async def test_clean_eof_without_done_is_malformed(loopback, openai):
    loopback.enqueue(PATH, raw_stream([sse(chunk({"content": "x"}))], framing="close"))
    events, error = await collect(openai)
    assert events == [TextDelta("x")]
    assert isinstance(error, MalformedStreamError)
    assert str(error) == "The stream ended before the answer was complete"


async def test_non_streamed_json_answer_is_accepted(loopback, openai):
    answer = {"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": "<think>hm</think>Whole", "reasoning_content": None}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2}}  # fmt: skip
    loopback.enqueue(PATH, json_reply(answer))
    events, error = await collect(openai)
    assert error is None
    assert events == [
        ThinkingDelta("hm"),
        TextDelta("Whole"),
        UsageReported(1, 2, None),
        StreamDone("stop"),
    ]


async def test_error_object_with_status_200(loopback, openai):
    loopback.enqueue(PATH, json_reply({"error": {"message": "Invalid API key", "code": 401}}))
    _, error = await collect(openai)
    assert isinstance(error, AuthenticationError)
    assert str(error) == "Invalid API key"


async def test_web_page_instead_of_stream_points_at_base_url(loopback, openai):
    html = text_reply(200, "<!doctype html><title>Open WebUI</title>")
    html.headers["content-type"] = "text/html; charset=utf-8"
    loopback.enqueue(PATH, html)
    _, error = await collect(openai)
    assert isinstance(error, MalformedStreamError)
    assert (
        str(error)
        == f"{loopback.url}/v1/chat/completions answered with a web page, not a model stream"
    )
    assert error.hint == "Check the provider's base URL."


async def test_redirect_is_reported_with_its_target(loopback, openai):
    loopback.enqueue(PATH, text_reply(301, "", {"location": "https://example.test/v1/chat"}))
    _, error = await collect(openai)
    assert isinstance(error, BadRequestError)
    assert (
        str(error)
        == f"{loopback.url}/v1/chat/completions redirected to https://example.test/v1/chat"
    )
    assert error.status == 301


# --------------------------------------------------------------------------- HTTP errors

#: LM Studio's answer to a prompt longer than the loaded context (its wording)
LM_STUDIO_OVERFLOW = (
    "Trying to keep the first 5120 tokens when context the overflows. However, the model is "
    "loaded with context length of only 4096 tokens, which is not enough. Try to load the "
    "model with a larger context length, or provide a shorter input"
)


@pytest.mark.parametrize(
    ("reply", "kind", "message"),
    [
        (openai_json_error(401, "Incorrect API key provided: sk-test.", code="invalid_api_key"),
         AuthenticationError, "Incorrect API key provided: sk-test."),
        (openai_json_error(403, "Project has no access."), AuthenticationError,
         "Project has no access."),
        (openai_json_error(404, "The model `nope` does not exist.", code="model_not_found"),
         ModelNotFoundError, "The model `nope` does not exist."),
        (openai_json_error(400, "This model's maximum context length is 4096 tokens. "
                           "However, your messages resulted in 5000 tokens.",
                           code="context_length_exceeded"),
         ContextOverflowError, "This model's maximum context length is 4096 tokens. "
         "However, your messages resulted in 5000 tokens."),
        (openai_json_error(400, "the request exceeds the available context size, try "
                           "increasing it", type="exceed_context_size_error"),
         ContextOverflowError, "the request exceeds the available context size, try "
         "increasing it"),
        (json_reply({"error": LM_STUDIO_OVERFLOW}, 400), ContextOverflowError,
         LM_STUDIO_OVERFLOW),
        (openai_json_error(500, "Context size has been exceeded.", type="server_error"),
         ContextOverflowError, "Context size has been exceeded."),
        (json_reply({"error": LM_STUDIO_OVERFLOW}, 500), ContextOverflowError,
         LM_STUDIO_OVERFLOW),
        (openai_json_error(400, "temperature must be <= 2"), BadRequestError,
         "temperature must be <= 2"),
        (openai_json_error(500, "The server had an error.", type="server_error"), ServerError,
         "The server had an error."),
        (openai_json_error(500, "Could not allocate the context window: out of memory",
                           type="server_error"),
         ServerError, "Could not allocate the context window: out of memory"),
        (text_reply(502, "Bad Gateway from nginx"), ServerError, "Bad Gateway from nginx"),
    ],
    ids=["401", "403", "404", "ctx-openai", "ctx-llamacpp", "ctx-lmstudio", "ctx-llamacpp-500",
         "ctx-lmstudio-500", "400", "500", "500-context-words", "502-text"],
)  # fmt: skip
async def test_http_errors_map_to_typed_errors(loopback, openai, reply, kind, message):
    loopback.enqueue(PATH, reply)
    events, error = await collect(openai)
    assert events == []
    assert type(error) is kind
    assert str(error) == message
    assert error.status == reply.status
    assert error.provider == "local"


async def test_429_carries_retry_after(loopback, openai):
    loopback.enqueue(
        PATH,
        openai_json_error(429, "Rate limit reached.", code="rate_limit_exceeded",
                          headers={"Retry-After": "7"}),
    )  # fmt: skip
    _, error = await collect(openai)
    assert isinstance(error, RateLimitError)
    assert error.retry_after == 7.0
    assert str(error) == "Rate limit reached."


async def test_server_gone_is_network_error():
    url = closed_port_url() + "/v1"
    async with OpenAIProvider("gone", url) as provider:
        _, error = await collect(provider)
    assert isinstance(error, NetworkError)
    assert url + "/chat/completions" in str(error)


# --------------------------------------------------------------------------- request


async def test_request_body_and_headers(loopback, openai):
    loopback.enqueue(PATH, openai_stream(["ok"]))
    req = rich_request(temperature=0.2, max_tokens=99, extra={"seed": 7, "temperature": 0.3})
    await collect(openai, req)
    (recorded,) = loopback.requests
    assert recorded.method == "POST"
    assert recorded.headers["authorization"] == "Bearer sk-test"
    assert recorded.headers["content-type"] == "application/json"
    assert recorded.json == {
        "model": "vision-model",
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.3,
        "max_tokens": 99,
        "seed": 7,
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "system", "content": "Answer in French."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Bonjour"},
            {"role": "user", "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64," + PNG_B64}},
            ]},
        ],
    }  # fmt: skip


async def test_no_key_means_no_authorization_header(loopback):
    loopback.enqueue(PATH, openai_stream(["ok"]))
    async with OpenAIProvider("keyless", loopback.url + "/v1", None) as provider:
        await collect(provider, request(top_p=0.5))
    (recorded,) = loopback.requests
    assert "authorization" not in recorded.headers
    assert recorded.json["top_p"] == 0.5
    assert "temperature" not in recorded.json and "max_tokens" not in recorded.json


# --------------------------------------------------------------------------- cancellation


async def test_cancelling_the_consumer_closes_the_http_request(loopback, openai):
    loopback.enqueue(PATH, raw_stream([sse(chunk({"content": "first"})), Hang()]))
    first = asyncio.Event()

    async def consume() -> None:
        async for _ in openai.stream_chat(request()):
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 2.0)
    await asyncio.sleep(0.1)
    assert not loopback.disconnected.is_set()  # the server is still holding the stream
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(loopback.wait_for_disconnect, 1.0)
    assert loopback.disconnects == 1


async def test_closing_the_generator_closes_the_http_request(loopback, openai):
    loopback.enqueue(PATH, raw_stream([sse(chunk({"content": "first"})), Hang()]))
    stream = openai.stream_chat(request())
    assert await anext(stream) == TextDelta("first")
    await stream.aclose()
    assert await asyncio.to_thread(loopback.wait_for_disconnect, 1.0)


async def test_closing_the_provider_mid_stream_lets_the_stream_finish(loopback):
    """A provider replaced in Settings is closed while an answer streams
    through it: the answer still arrives whole, and the retired provider
    still answers a later request of the run that holds it (an agent's next
    round) on a client of its own."""
    gate = Gate()
    loopback.enqueue(PATH, raw_stream([sse(chunk({"content": "first "})), gate,
                                       sse(chunk({"content": "second"}, "stop")),
                                       "data: [DONE]\n"]))  # fmt: skip
    provider = OpenAIProvider("local", loopback.url + "/v1", None)
    stream = provider.stream_chat(request())
    assert await anext(stream) == TextDelta("first ")
    await provider.aclose()  # returns at once: the stream still uses the client
    gate.open()
    rest = [event async for event in stream]
    assert text(rest) == "second" and isinstance(rest[-1], StreamDone)
    loopback.enqueue(PATH, openai_stream(["again"]))
    events, error = await collect(provider)
    assert error is None and text(events) == "again"


# --------------------------------------------------------------------------- models


async def test_list_models_sorted(loopback, openai):
    loopback.enqueue("/v1/models", openai_models(["qwen3:8b", "llama3.2", "gemma3"]))
    models = await openai.list_models()
    assert models == [ModelInfo("gemma3"), ModelInfo("llama3.2"), ModelInfo("qwen3:8b")]
    assert loopback.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_list_models_unauthorised(loopback, openai):
    loopback.enqueue("/v1/models", openai_json_error(401, "Missing bearer token"))
    with pytest.raises(AuthenticationError, match=r"^Missing bearer token$"):
        await openai.list_models()


# --------------------------------------------------------------------------- one read, many chunks


def _one_read(*pieces: bytes) -> list[bytes]:
    """Everything in one write: the client gets it in one network read."""
    return [b"".join(pieces)]


async def test_many_chunks_in_one_read_come_merged_in_order_and_kind(loopback, openai):
    body = [sse(chunk({"reasoning_content": f"r{i} "})) for i in range(30)]
    body += [sse(chunk({"content": f"t{i} "})) for i in range(60)]
    body += [sse(chunk({}, finish="stop")), b"data: [DONE]\n\n"]
    loopback.enqueue(PATH, raw_stream(_one_read(*body)))
    events, error = await collect(openai)
    assert error is None
    assert events == [
        ThinkingDelta("".join(f"r{i} " for i in range(30))),
        TextDelta("".join(f"t{i} " for i in range(60))),
        StreamDone("stop"),
    ]


@pytest.mark.parametrize(
    "bad",
    [
        b"data: {not json}\n\n",  # looks like an object, is not JSON
        b'data: {"a": 1}, {"b": 2}\n\n',  # two values in one chunk
        b"data: [1, 2]\n\n",  # JSON, but not a chunk object
    ],
    ids=["broken", "two-values", "array"],
)
async def test_a_bad_chunk_in_a_read_fails_after_the_chunks_before_it(loopback, openai, bad):
    good = [sse(chunk({"content": f"t{i} "})) for i in range(20)]
    after = [sse(chunk({"content": "never"})), b"data: [DONE]\n\n"]
    loopback.enqueue(PATH, raw_stream(_one_read(*good, bad, *after)))
    events, error = await collect(openai)
    assert events == [TextDelta("".join(f"t{i} " for i in range(20)))]
    assert isinstance(error, MalformedStreamError)


async def test_an_error_object_in_a_read_fails_after_the_chunks_before_it(loopback, openai):
    err = {"message": "upstream crashed", "type": "server_error", "code": None}
    good = [sse(chunk({"content": f"t{i} "})) for i in range(20)]
    loopback.enqueue(PATH, raw_stream(_one_read(*good, sse({"error": err}), *good)))
    events, error = await collect(openai)
    assert events == [TextDelta("".join(f"t{i} " for i in range(20)))]
    assert isinstance(error, ServerError) and str(error) == "upstream crashed"


async def test_nothing_after_done_in_the_same_read_is_read_as_answer(loopback, openai):
    tail = sse(chunk({"content": "after the end"}))
    loopback.enqueue(
        PATH, raw_stream(_one_read(sse(chunk({"content": "x"})), b"data: [DONE]\n\n", tail))
    )
    events, error = await collect(openai)
    assert error is None
    assert events == [TextDelta("x"), StreamDone(None)]


def test_batch_parse_matches_chunk_by_chunk_parse():
    # The usual chunk (plain answer text) takes a short path in feed_batch;
    # every other shape must come out exactly as the one-chunk parser gives it.
    from mira_desktop.providers.openai_stream import OpenAIStreamParser
    from mira_desktop.providers.streams import SSEEvent

    call = {"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "<think>"}),
        chunk({"content": "why"}),
        chunk({"content": "</think>An"}),
        chunk({"content": "swer"}),
        {**chunk({"content": " with"}), "usage": None, "system_fingerprint": "x"},
        chunk({"content": " reasoning", "reasoning_content": None}),
        chunk({"reasoning_content": "late thought"}),
        chunk({"content": " 数据"}),
        {"choices": [{"index": 1, "delta": {"content": "other choice"}}]},
        {"choices": [{"delta": {"content": " no index"}}]},
        chunk({"tool_calls": [call]}),
        chunk({"content": " end"}, finish="stop"),
        {**chunk({}), "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
    ]
    datas = [json.dumps(c) for c in chunks] + ["[DONE]"]
    one = OpenAIStreamParser("p")
    expected = [e for data in datas for e in one.feed(SSEEvent("message", data))]
    for size in (1, 2, 3, len(datas)):
        batched = OpenAIStreamParser("p")
        events = []
        for start in range(0, len(datas), size):
            got, error = batched.feed_batch(datas[start : start + size])
            assert error is None
            events += got
        assert merge_deltas(events) == merge_deltas(expected), size
    assert merge_deltas(expected)[:2] == [ThinkingDelta("why"), TextDelta("Answer with reasoning")]
