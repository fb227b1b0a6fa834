"""Canned replies for the loopback server (:mod:`tests.support.loopback`, which
re-exports everything here): the :class:`Reply`, :class:`Pause`, :class:`Hang`
and :class:`Gate` types and builders that produce replies in the three wire
formats Mira speaks:
OpenAI-compatible SSE, Ollama NDJSON and Anthropic named SSE events (answers
of text, or ending in tool calls), plus their error and model-list answers and
:func:`raw_stream` for malformed cases."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

log = logging.getLogger(__name__)

SPLIT_PAUSE = 0.005  # between the halves of a split line, so they arrive as separate reads


@dataclass(frozen=True, slots=True)
class Pause:
    """Sleep ``seconds`` between two body chunks."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Hang:
    """Block until the client disconnects (counted in ``server.disconnects``) or
    the server stops. Nothing after a ``Hang`` is sent."""


@dataclass(frozen=True, slots=True, eq=False)
class Gate:
    """Hold the rest of the reply until the test opens the gate
    (``gate.open()``, from any thread) or the server stops: a stream that
    stalls exactly as long as the test needs, with no timing."""

    opened: threading.Event = field(default_factory=threading.Event)

    def open(self) -> None:
        self.opened.set()


@dataclass(frozen=True, slots=True)
class Reset:
    """Reset the connection (TCP RST: "connection reset by peer" on the
    client) instead of sending the rest. Put a ``Pause`` before it so the
    client has read what came before (a reset may discard unread data)."""


Chunk = bytes | Pause | Hang | Gate | Reset


@dataclass(slots=True)
class Reply:
    """One HTTP answer. ``chunks`` are written and flushed one by one.

    ``framing``: ``"auto"`` sends a single-chunk body with Content-Length and
    anything else with chunked transfer; ``"close"`` sends no length and ends the
    body by closing the connection; ``"length"``/``"chunked"`` force one.
    ``close_after=True`` drops the connection after the chunks without ending the
    body properly (no terminating chunk: a truncated stream)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[Chunk] = field(default_factory=list)
    close_after: bool = False
    framing: Literal["auto", "chunked", "close", "length"] = "auto"


# --------------------------------------------------------------------------- generic


def json_reply(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    """A JSON answer with Content-Length."""
    return Reply(
        status=status,
        headers={"content-type": "application/json", **(headers or {})},
        chunks=[json.dumps(obj).encode()],
    )


def text_reply(status: int, text: str, headers: dict[str, str] | None = None) -> Reply:
    """A plain-text answer."""
    return Reply(
        status=status,
        headers={"content-type": "text/plain; charset=utf-8", **(headers or {})},
        chunks=[text.encode()],
    )


def sse(data: Any, *, event: str | None = None) -> bytes:
    """One complete SSE event (``data`` JSON-encoded unless it is a str)."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def ndjson(obj: Any) -> bytes:
    """One NDJSON line."""
    return (json.dumps(obj) + "\n").encode()


def raw_stream(
    lines_or_bytes: Iterable[str | bytes | Pause | Hang | Gate | Reset],
    *,
    status: int = 200,
    content_type: str = "text/event-stream",
    delay: float = 0.0,
    close_after: bool = False,
    framing: Literal["auto", "chunked", "close", "length"] = "chunked",
    headers: dict[str, str] | None = None,
) -> Reply:
    """A streamed reply from raw pieces: a ``str`` is a line (``"\\n"`` appended),
    ``bytes`` are sent verbatim, ``Pause``/``Hang``/``Gate``/``Reset`` pass through. ``delay`` adds a
    pause between pieces."""
    chunks: list[Chunk] = []
    for item in lines_or_bytes:
        if delay and chunks:
            chunks.append(Pause(delay))
        chunks.append((item + "\n").encode() if isinstance(item, str) else item)
    return Reply(
        status=status,
        headers={"content-type": content_type, **(headers or {})},
        chunks=chunks,
        close_after=close_after,
        framing=framing,
    )


def _paced(pieces: Sequence[Chunk], delay: float) -> list[Chunk]:
    chunks: list[Chunk] = []
    for piece in pieces:
        if delay and chunks:
            chunks.append(Pause(delay))
        chunks.append(piece)
    return chunks


# --------------------------------------------------------------------------- OpenAI


def _openai_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _sse_events(events: list[str], *, crlf: bool, keepalive: bool, split: bool) -> list[Chunk]:
    """Encode SSE event texts (lines joined by ``\\n``) as network chunks: one per
    event, or with ``split`` every line cut in two with a short pause between."""
    eol = "\r\n" if crlf else "\n"
    texts = (
        [": keep-alive", *[x for e in events for x in (e, ": keep-alive")]] if keepalive else events
    )
    pieces: list[Chunk] = []
    for text in texts:
        raw = "".join(line + eol for line in [*text.split("\n"), ""]).encode()
        if not split:
            pieces.append(raw)
            continue
        for line in [*text.split("\n"), ""]:
            data = (line + eol).encode()
            cut = len(data) // 2
            pieces += [data[:cut], Pause(SPLIT_PAUSE), data[cut:]] if cut else [data]
    return pieces


def openai_stream(
    text_chunks: Sequence[str],
    *,
    thinking_chunks: Sequence[str] = (),
    reasoning_field: str = "reasoning_content",
    usage: dict[str, Any] | None = None,
    delay: float = 0.0,
    finish_reason: str | None = "stop",
    done: bool = True,
    crlf: bool = False,
    keepalive: bool = False,
    split_lines: bool = False,
) -> Reply:
    """An OpenAI ``chat.completion.chunk`` SSE stream: a role chunk, reasoning
    chunks in ``reasoning_field``, content chunks, a ``finish_reason`` chunk, a
    usage chunk (``choices: []``) when ``usage`` is given, then ``[DONE]``.
    ``done=False`` omits ``[DONE]`` and drops the connection; ``split_lines``
    cuts every line in two network chunks; ``keepalive`` adds ``: keep-alive``
    comments before and after every event; ``delay`` pauses between chunks."""
    payloads = [_openai_chunk({"role": "assistant", "content": ""})]
    payloads += [_openai_chunk({reasoning_field: t}) for t in thinking_chunks]
    payloads += [_openai_chunk({"content": t}) for t in text_chunks]
    payloads.append(_openai_chunk({}, finish_reason))
    if usage is not None:
        payloads.append({**_openai_chunk({}), "choices": [], "usage": usage})
    events = [f"data: {json.dumps(p)}" for p in payloads]
    if done:
        events.append("data: [DONE]")
    pieces = _sse_events(events, crlf=crlf, keepalive=keepalive, split=split_lines)
    return Reply(
        headers={"content-type": "text/event-stream"},
        chunks=_paced(pieces, delay),
        close_after=not done,
    )


#: the usage the tool-call builders report
TOOL_USAGE = {"prompt_tokens": 42, "completion_tokens": 17, "total_tokens": 59}

#: a tool call for the builders: ``(call_id, name, arguments)``; arguments
#: given as a ``str`` are sent as that JSON text (to send malformed ones)
CallSpec = tuple[str, str, dict[str, Any] | str]


def _arguments_json(arguments: dict[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _pieces(text: str, parts: int = 3) -> list[str]:
    """``text`` cut in up to ``parts`` pieces (a character apart at least)."""
    size = max(1, -(-len(text) // parts))
    return [text[at : at + size] for at in range(0, len(text), size)] or [""]


def openai_tool_stream(
    calls: Sequence[CallSpec],
    text: str = "",
    *,
    split_arguments: bool = True,
    usage: dict[str, Any] | None = None,
) -> Reply:
    """An OpenAI stream that ends in tool calls, as real servers send them: a
    role chunk, the ``text`` (if any), then per call a chunk with its
    ``index``, ``id`` and name (empty arguments) followed by its arguments'
    JSON in several pieces (one with ``split_arguments=False``), a
    ``finish_reason: "tool_calls"`` chunk, a usage chunk and ``[DONE]``."""
    payloads = [_openai_chunk({"role": "assistant", "content": "" if text else None})]
    if text:
        payloads.append(_openai_chunk({"content": text}))
    for index, (call_id, name, arguments) in enumerate(calls):
        start = {"index": index, "id": call_id, "type": "function"}
        start["function"] = {"name": name, "arguments": ""}
        payloads.append(_openai_chunk({"tool_calls": [start]}))
        encoded = _arguments_json(arguments)
        for piece in _pieces(encoded) if split_arguments else [encoded]:
            fragment = {"index": index, "function": {"arguments": piece}}
            payloads.append(_openai_chunk({"tool_calls": [fragment]}))
    payloads.append(_openai_chunk({}, "tool_calls"))
    payloads.append({**_openai_chunk({}), "choices": [], "usage": usage or TOOL_USAGE})
    events = [f"data: {json.dumps(p)}" for p in payloads] + ["data: [DONE]"]
    pieces = _sse_events(events, crlf=False, keepalive=False, split=False)
    return Reply(headers={"content-type": "text/event-stream"}, chunks=pieces)


def openai_json_error(
    status: int,
    message: str,
    *,
    type: str = "invalid_request_error",
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An OpenAI error answer ``{"error": {"message", "type", "param", "code"}}``."""
    error = {"message": message, "type": type, "param": None, "code": code}
    return json_reply({"error": error}, status, headers)


def openai_models(names: Sequence[str]) -> Reply:
    """A ``GET /v1/models`` answer."""
    data = [{"id": n, "object": "model", "created": 0, "owned_by": "loopback"} for n in names]
    return json_reply({"object": "list", "data": data})


# --------------------------------------------------------------------------- Ollama


def _ollama_line(message: dict[str, Any], **extra: Any) -> bytes:
    obj = {
        "model": "test-model",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "", **message},
        "done": False,
        **extra,
    }
    return ndjson(obj)


def ollama_stream(
    text_chunks: Sequence[str],
    *,
    thinking_chunks: Sequence[str] = (),
    prompt_eval_count: int | None = None,
    eval_count: int | None = None,
    delay: float = 0.0,
    done: bool = True,
    done_reason: str = "stop",
) -> Reply:
    """An Ollama ``/api/chat`` NDJSON stream ending with a ``done: true`` line
    (with the counts that are not ``None``). ``done=False`` omits that line and
    drops the connection."""
    pieces = [_ollama_line({"thinking": t}) for t in thinking_chunks]
    pieces += [_ollama_line({"content": t}) for t in text_chunks]
    if done:
        counts = {"prompt_eval_count": prompt_eval_count, "eval_count": eval_count}
        final = {k: v for k, v in counts.items() if v is not None}
        pieces.append(
            _ollama_line({}, done=True, done_reason=done_reason, total_duration=1000, **final)
        )
    return Reply(
        headers={"content-type": "application/x-ndjson"},
        chunks=_paced(pieces, delay),
        close_after=not done,
    )


def ollama_tool_stream(calls: Sequence[CallSpec], text: str = "") -> Reply:
    """An Ollama ``/api/chat`` stream that ends in tool calls, as Ollama sends
    them: the ``text`` (if any), then one message holding every call whole
    (``arguments`` as an object, or the text given; the ids are not sent,
    Ollama has none), then
    the ``done: true`` line with ``done_reason: "stop"``."""
    pieces = [_ollama_line({"content": text})] if text else []
    tool_calls = [
        {"function": {"name": name, "arguments": arguments}} for _id, name, arguments in calls
    ]
    pieces.append(_ollama_line({"tool_calls": tool_calls}))
    final = {"prompt_eval_count": 42, "eval_count": 17}
    pieces.append(_ollama_line({}, done=True, done_reason="stop", total_duration=1000, **final))
    return Reply(headers={"content-type": "application/x-ndjson"}, chunks=pieces)


def ollama_tags(names: Sequence[str]) -> Reply:
    """A ``GET /api/tags`` answer."""
    models = [
        {"name": n, "model": n, "modified_at": "2025-01-01T00:00:00Z", "size": 1, "details": {}}
        for n in names
    ]
    return json_reply({"models": models})


def ollama_error(status: int, message: str) -> Reply:
    """An Ollama error answer ``{"error": "..."}``."""
    return json_reply({"error": message}, status)


# --------------------------------------------------------------------------- Anthropic


def _anthropic_blocks(text_chunks: Sequence[str], thinking_chunks: Sequence[str]) -> list[bytes]:
    pieces: list[bytes] = []
    blocks: list[tuple[str, str, Sequence[str]]] = []
    if thinking_chunks:
        blocks.append(("thinking", "thinking_delta", thinking_chunks))
    blocks.append(("text", "text_delta", text_chunks))
    for index, (kind, delta_type, chunks) in enumerate(blocks):
        block = {"type": kind, kind: ""}
        start = {"type": "content_block_start", "index": index, "content_block": block}
        pieces.append(sse(start, event="content_block_start"))
        for text in chunks:
            delta = {"type": delta_type, kind: text}
            body = {"type": "content_block_delta", "index": index, "delta": delta}
            pieces.append(sse(body, event="content_block_delta"))
        if kind == "thinking":
            delta = {"type": "signature_delta", "signature": "c2lnbmF0dXJl"}
            body = {"type": "content_block_delta", "index": index, "delta": delta}
            pieces.append(sse(body, event="content_block_delta"))
        stop = {"type": "content_block_stop", "index": index}
        pieces.append(sse(stop, event="content_block_stop"))
    return pieces


def anthropic_stream(
    text_chunks: Sequence[str],
    *,
    thinking_chunks: Sequence[str] = (),
    input_tokens: int = 10,
    output_tokens: int = 20,
    delay: float = 0.0,
    stop: bool = True,
    ping: bool = True,
    error: dict[str, Any] | None = None,
    stop_reason: str = "end_turn",
) -> Reply:
    """An Anthropic Messages SSE stream: ``message_start``, ``ping``, a thinking
    block (with a signature) when ``thinking_chunks``, a text block,
    ``message_delta`` and ``message_stop``. ``error`` (e.g. ``{"type":
    "overloaded_error", "message": "Overloaded"}``) is sent as an ``error`` event
    after the blocks, ending the stream. ``stop=False`` omits ``message_stop``
    and drops the connection."""
    usage = {"input_tokens": input_tokens, "output_tokens": 1}
    message = {"id": "msg_loopback", "type": "message", "role": "assistant", "content": []}
    message |= {"model": "claude-test", "stop_reason": None, "usage": usage}
    pieces = [sse({"type": "message_start", "message": message}, event="message_start")]
    if ping:
        pieces.append(sse({"type": "ping"}, event="ping"))
    pieces += _anthropic_blocks(text_chunks, thinking_chunks)
    if error is not None:
        pieces.append(sse({"type": "error", "error": error}, event="error"))
        return Reply(headers={"content-type": "text/event-stream"}, chunks=_paced(pieces, delay))
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    body = {"type": "message_delta", "delta": delta, "usage": {"output_tokens": output_tokens}}
    pieces.append(sse(body, event="message_delta"))
    if stop:
        pieces.append(sse({"type": "message_stop"}, event="message_stop"))
    return Reply(
        headers={"content-type": "text/event-stream"},
        chunks=_paced(pieces, delay),
        close_after=not stop,
    )


def anthropic_tool_stream(
    calls: Sequence[CallSpec],
    text: str = "",
    *,
    thinking: Sequence[str] = (),
    signature: str = "c2lnbmF0dXJl",
    redacted: str = "",
) -> Reply:
    """An Anthropic stream that ends in tool use, as the API sends it:
    ``message_start``, a thinking block when ``thinking`` (its pieces, then
    its ``signature_delta``), a redacted one when ``redacted``, a text block
    when ``text``, then per call a
    ``tool_use`` block started with an empty ``input``, its input's JSON in
    ``input_json_delta`` pieces (the first one empty) and its stop, then
    ``message_delta`` with ``stop_reason: "tool_use"`` and ``message_stop``."""
    usage = {"input_tokens": 42, "output_tokens": 1}
    message = {"id": "msg_loopback", "type": "message", "role": "assistant", "content": []}
    message |= {"model": "claude-test", "stop_reason": None, "usage": usage}
    pieces = [sse({"type": "message_start", "message": message}, event="message_start")]
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    if thinking:
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in thinking]
        deltas.append({"type": "signature_delta", "signature": signature})
        blocks.append(({"type": "thinking", "thinking": ""}, deltas))
    if redacted:
        blocks.append(({"type": "redacted_thinking", "data": redacted}, []))
    if text:
        blocks.append(({"type": "text", "text": ""}, [{"type": "text_delta", "text": text}]))
    for call_id, name, arguments in calls:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        parts = ["", *_pieces(_arguments_json(arguments))]
        blocks.append((block, [{"type": "input_json_delta", "partial_json": p} for p in parts]))
    for index, (block, deltas) in enumerate(blocks):
        start = {"type": "content_block_start", "index": index, "content_block": block}
        pieces.append(sse(start, event="content_block_start"))
        for delta in deltas:
            body = {"type": "content_block_delta", "index": index, "delta": delta}
            pieces.append(sse(body, event="content_block_delta"))
        stop = {"type": "content_block_stop", "index": index}
        pieces.append(sse(stop, event="content_block_stop"))
    delta = {"stop_reason": "tool_use", "stop_sequence": None}
    body = {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 17}}
    pieces.append(sse(body, event="message_delta"))
    pieces.append(sse({"type": "message_stop"}, event="message_stop"))
    return Reply(headers={"content-type": "text/event-stream"}, chunks=pieces)


def anthropic_models(names: Sequence[str]) -> Reply:
    """A ``GET /v1/models`` answer in Anthropic's shape."""
    data = [
        {"type": "model", "id": n, "display_name": n, "created_at": "2025-01-01T00:00:00Z"}
        for n in names
    ]
    first, last = (names[0], names[-1]) if names else (None, None)
    return json_reply({"data": data, "has_more": False, "first_id": first, "last_id": last})


def anthropic_error(
    status: int, type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    """An Anthropic error answer ``{"type": "error", "error": {"type", "message"}}``."""
    return json_reply(
        {"type": "error", "error": {"type": type, "message": message}}, status, headers
    )


# --------------------------------------------------------------------------- knowledge bases


def openai_embeddings(vectors: Sequence[Sequence[float]], model: str = "embed-test") -> Reply:
    """A ``POST /v1/embeddings`` answer: one ``data`` item per vector (in order)."""
    data = [
        {"object": "embedding", "index": i, "embedding": list(v)} for i, v in enumerate(vectors)
    ]
    usage = {"prompt_tokens": 8 * len(vectors), "total_tokens": 8 * len(vectors)}
    return json_reply({"object": "list", "data": data, "model": model, "usage": usage})


def ollama_embed(vectors: Sequence[Sequence[float]], model: str = "embed-test") -> Reply:
    """A ``POST /api/embed`` answer of Ollama: ``{"model", "embeddings": [...]}``."""
    return json_reply({"model": model, "embeddings": [list(v) for v in vectors]})


def rerank_results(pairs: Sequence[tuple[int, float]], model: str = "rerank-test") -> Reply:
    """A Jina/Cohere-style ``POST /v1/rerank`` answer: ``results`` of
    ``{"index", "relevance_score"}`` as given."""
    results = [{"index": i, "relevance_score": s} for i, s in pairs]
    return json_reply({"model": model, "results": results, "usage": {"total_tokens": 10}})
