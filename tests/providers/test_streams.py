"""Unit tests of the shared wire helpers: the ``<think>`` splitter (every cut
point), the SSE parser and the error mapping."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Iterable
from email.utils import formatdate

import httpx
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
from mira_desktop.providers.errormap import (
    ErrorInfo,
    classify_error,
    error_from_stream_obj,
    error_info_from_body,
    network_error,
    parse_retry_after,
)
from mira_desktop.providers.streams import SSEEvent, ThinkSplitter, iter_sse, loads_chunk

# --------------------------------------------------------------------------- ThinkSplitter


def split_all(pieces: Iterable[str]) -> tuple[str, str, list[bool]]:
    splitter = ThinkSplitter()
    out = [p for piece in pieces for p in splitter.feed(piece)] + splitter.flush()
    assert all(text for _, text in out), "no empty pieces"
    think = "".join(t for is_think, t in out if is_think)
    answer = "".join(t for is_think, t in out if not is_think)
    return think, answer, [is_think for is_think, _ in out]


CASES = [
    ("<think>abc</think>\n\nHello", "abc", "Hello"),
    (" \n<think>a<b </thin</think> x", "a<b </thin", "x"),
    ("Hello <think>x</think>", "", "Hello <think>x</think>"),
    ("<thinking>hi", "", "<thinking>hi"),
    ("<think>never closed", "never closed", ""),
    ("<thi", "", "<thi"),
    ("  ", "", "  "),
    ("\n\nPlain answer", "", "\n\nPlain answer"),
]


@pytest.mark.parametrize(("whole", "think", "answer"), CASES)
def test_think_splitter_every_two_cut_points(whole, think, answer):
    for i in range(len(whole) + 1):
        for j in range(i, len(whole) + 1):
            got_think, got_answer, order = split_all([whole[:i], whole[i:j], whole[j:]])
            assert (got_think, got_answer) == (think, answer), (i, j)
            assert order == sorted(order, reverse=True), "thinking comes before text"


def test_think_splitter_char_by_char():
    assert split_all("<think>deep</think>\nok")[:2] == ("deep", "ok")


def test_think_splitter_streams_thinking_without_waiting_for_the_end():
    splitter = ThinkSplitter()
    assert splitter.feed("<think>first part") == [(True, "first part")]
    assert splitter.feed(" and </thi") == [(True, " and ")]
    assert splitter.feed("nk>Answer") == [(False, "Answer")]
    assert splitter.feed(" more") == [(False, " more")]
    assert splitter.flush() == []


# --------------------------------------------------------------------------- SSE


async def lines_of(items: list[str]) -> AsyncIterator[str]:
    for item in items:
        yield item


async def parse(items: list[str]) -> list[SSEEvent]:
    return [event async for event in iter_sse(lines_of(items))]


async def test_sse_comments_events_and_multiline_data():
    events = await parse([
        ": keep-alive", "",
        "event: message_start", "data: {\"a\":", "data: 1}", "",
        "id: 5", "retry: 100", "data:no-space", "",
        "", "",
        "event: ping", "",  # an event without data is not dispatched
        "data: last without blank line",
    ])  # fmt: skip
    assert events == [
        SSEEvent("message_start", '{"a":\n1}'),
        SSEEvent("message", "no-space"),
        SSEEvent("message", "last without blank line"),
    ]


async def test_sse_event_name_resets_after_dispatch():
    events = await parse(["event: error", "data: x", "", "data: y", ""])
    assert events == [SSEEvent("error", "x"), SSEEvent("message", "y")]


def test_loads_chunk_quotes_an_excerpt():
    with pytest.raises(MalformedStreamError) as info:
        loads_chunk("<!DOCTYPE html>" + "x" * 500, provider="p")
    assert "<!DOCTYPE html>" in str(info.value)
    assert len(str(info.value)) < 150


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}',
         ErrorInfo("bad key", "invalid_request_error", "invalid_api_key")),
        (b'{"error":"model \\"x\\" not found"}', ErrorInfo('model "x" not found')),
        (b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
         ErrorInfo("Overloaded", "overloaded_error")),
        (b'{"detail":"Not Found"}', ErrorInfo("Not Found")),
        (b"upstream connect error", ErrorInfo("upstream connect error")),
        (b"", ErrorInfo("HTTP 503 Service Unavailable")),
    ],
)  # fmt: skip
def test_error_info_from_body(body, expected):
    assert error_info_from_body(body, 503, "Service Unavailable") == expected


@pytest.mark.parametrize(
    ("info", "status", "kind"),
    [
        (ErrorInfo("x"), 401, AuthenticationError),
        (ErrorInfo("model 'llama9' not found"), 400, ModelNotFoundError),
        (ErrorInfo("failed to load model: file not found"), 500, ServerError),
        (ErrorInfo("x", code="context_length_exceeded"), 400, ContextOverflowError),
        (ErrorInfo("Prompt is too long"), 413, ContextOverflowError),
        (ErrorInfo("prompt is too long"), 500, ServerError),
        (ErrorInfo("x"), 418, BadRequestError),
        (ErrorInfo("x"), 429, RateLimitError),
        (ErrorInfo("x", type="overloaded_error"), None, ServerError),
        (ErrorInfo("x", type="invalid_request_error"), None, BadRequestError),
        (ErrorInfo("something odd"), None, ServerError),
    ],
)
def test_classify_error(info, status, kind):
    error = classify_error(info, status, provider="p")
    assert type(error) is kind
    assert (error.message, error.status, error.provider) == (info.message, status, "p")


def test_stream_error_with_numeric_code_uses_it_as_status():
    error = error_from_stream_obj({"error": {"message": "busy", "code": 429}})
    assert isinstance(error, RateLimitError)
    assert error.status == 429
    assert error_from_stream_obj({"choices": []}) is None


def test_retry_after_forms():
    assert parse_retry_after(httpx.Headers({"Retry-After": "12"})) == 12.0
    assert parse_retry_after(httpx.Headers({"retry-after-ms": "1500"})) == 1.5
    assert parse_retry_after(httpx.Headers({"Retry-After": "soon"})) is None
    assert parse_retry_after(httpx.Headers({})) is None
    future = formatdate(time.time() + 60, usegmt=True)
    assert 55 <= parse_retry_after(httpx.Headers({"Retry-After": future})) <= 60


def test_network_error_names_the_url():
    error = network_error(httpx.ConnectError("[Errno 111] refused"), "http://h:1/api/chat")
    assert isinstance(error, NetworkError)
    assert str(error) == "Could not connect to http://h:1/api/chat: [Errno 111] refused"
    timeout = network_error(httpx.ReadTimeout("slow"), "http://h:1/x")
    assert str(timeout) == "Timed out waiting for http://h:1/x"
    cut = network_error(httpx.RemoteProtocolError("peer closed"), "http://h:1/x", streaming=True)
    assert isinstance(cut, MalformedStreamError)


# --------------------------------------------------------------------------- bulk splitting

from mira_desktop.providers.streams import LineSplitter, SSEParser  # noqa: E402

WIRE = 'data: {"a": "数据"}\r\n\r\n: keep-alive\n\ndata: x\rdata: y\r\r\nevent: e\ndata: z\n\n'


def _lines_cut_at(raw: bytes, cuts: list[int]) -> list[str]:
    splitter = LineSplitter()
    out: list[str] = []
    bounds = [0, *cuts, len(raw)]
    for start, end in itertools.pairwise(bounds):
        out += splitter.feed(raw[start:end])
    return out + splitter.flush()


def test_line_splitter_every_cut_point_matches_splitlines():
    raw = WIRE.encode()
    expected = WIRE.splitlines()
    for i in range(len(raw) + 1):
        assert _lines_cut_at(raw, [i]) == expected, i
    for i in range(0, len(raw) + 1, 3):
        for j in range(i, len(raw) + 1, 5):
            assert _lines_cut_at(raw, [i, j]) == expected, (i, j)


def test_line_splitter_keeps_an_unterminated_last_line_for_flush():
    splitter = LineSplitter()
    assert splitter.feed(b"data: a\ndata: b") == ["data: a"]
    assert splitter.flush() == ["data: b"]


def test_sse_parser_matches_iter_sse_on_a_batch():
    parser = SSEParser()
    events = parser.feed(WIRE.splitlines()) + parser.flush()
    assert events == [
        SSEEvent("message", '{"a": "数据"}'),
        SSEEvent("message", "x\ny"),
        SSEEvent("e", "z"),
    ]


FAST = "".join(f'data: {{"n": {i}}}\n\n' for i in range(6))


def _datas_by_lines(lines: list[list[str]], fast: bool) -> list[str]:
    parser = SSEParser()
    out: list[str] = []
    for batch in lines:
        out += parser.feed_data(batch) if fast else [e.data for e in parser.feed(batch)]
    return out + [e.data for e in parser.flush()]


def test_sse_feed_data_matches_feed_at_every_read_boundary():
    # the fast stream's shape, the mixed wire, and the two glued together, cut
    # into two and three reads everywhere: the short path and the line-by-line
    # one must give the same data in the same order
    for wire in (FAST, WIRE, FAST + WIRE + FAST):
        raw = wire.encode()
        expected = _datas_by_lines([wire.splitlines()], fast=False)
        for i in range(len(raw) + 1):
            assert _datas_by_lines(_reads(raw, [i]), fast=True) == expected, (wire, i)
        for i in range(0, len(raw) + 1, 7):
            for j in range(i, len(raw) + 1, 11):
                assert _datas_by_lines(_reads(raw, [i, j]), fast=True) == expected, (i, j)


def _reads(raw: bytes, cuts: list[int]) -> list[list[str]]:
    """The line batches a LineSplitter gives for ``raw`` cut at ``cuts``."""
    splitter = LineSplitter()
    bounds = [0, *cuts, len(raw)]
    batches = [splitter.feed(raw[start:end]) for start, end in itertools.pairwise(bounds)]
    return [*batches, splitter.flush()]


def test_loads_chunks_parses_a_read_in_one_go_and_stops_at_the_first_bad_chunk():
    from mira_desktop.providers.streams import loads_chunks

    datas = ['{"a": 1}', '{"b": "数据"}', '{"c": [1, {"d": null}]}']
    assert loads_chunks(datas) == ([{"a": 1}, {"b": "数据"}, {"c": [1, {"d": None}]}], None)
    objs, error = loads_chunks([*datas, '{"x": 1}, {"y": 2}', '{"z": 3}'], provider="p")
    assert objs == [{"a": 1}, {"b": "数据"}, {"c": [1, {"d": None}]}]
    assert isinstance(error, MalformedStreamError) and error.provider == "p"
    objs, error = loads_chunks(['{"a": 1}', "[1, 2]", '{"b": 2}'])  # not all objects
    assert objs == [{"a": 1}, [1, 2], {"b": 2}] and error is None
    objs, error = loads_chunks(['{"a": 1', '"b": 2}'])  # halves never join into one
    assert objs == [] and isinstance(error, MalformedStreamError)
    assert loads_chunks([]) == ([], None)
    # what only the stdlib's parser accepts still parses, chunk by chunk
    big = '{"n": 123456789012345678901234567890}'
    objs, error = loads_chunks(['{"a": 1}', '{"x": NaN}', big])
    assert (
        error is None and objs[0] == {"a": 1} and objs[2] == {"n": 123456789012345678901234567890}
    )
    assert objs[1]["x"] != objs[1]["x"]  # NaN
