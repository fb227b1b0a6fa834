"""Wire-format helpers shared by the adapters: bulk line splitting of a streamed
body (:class:`LineSplitter`, :func:`iter_line_batches`), the server-sent-events
parser (:class:`SSEParser`, :func:`iter_sse_batches`; :func:`iter_sse` for
decoded lines), JSON decoding of one stream chunk (a ``MalformedStreamError``
quoting an excerpt when it is not JSON), and the stateful splitter that pulls a
leading ``<think>…</think>`` block out of streamed answer text, coping with tags
cut across chunks.

The adapters read ``response.aiter_bytes()`` and split whatever one network
read holds in one go (``bytes.split``, one UTF-8 decode per read) instead of
going through httpx's ``aiter_text``/``aiter_lines`` generator layers line by
line: a fast model server sends thousands of small events, and the per-line
Python overhead was a large share of a stream's cost."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import httpx
import orjson

from mira_desktop.core.errors import MalformedStreamError
from mira_desktop.core.events import StreamEvent, TextDelta, ThinkingDelta

from .errormap import excerpt

log = logging.getLogger(__name__)

DRAIN_TIMEOUT = 2.0


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty dict."""
    return value if isinstance(value, dict) else {}


class SSEEvent(NamedTuple):
    """One server-sent event: its ``event:`` name (``"message"`` by default) and
    its ``data:`` lines joined with newlines."""

    event: str
    data: str


class LineSplitter:
    """Splits a byte stream into decoded lines, many at a time. Line ends are
    ``\n``, ``\r\n`` and a lone ``\r`` (also when cut across reads); text is
    UTF-8, undecodable bytes become U+FFFD (as httpx's ``aiter_lines``)."""

    __slots__ = ("_cr", "_rest")

    def __init__(self) -> None:
        self._rest = b""
        self._cr = False  # the last read ended with "\r": a line ended there

    def feed(self, data: bytes) -> list[str]:
        """The lines completed by ``data``, in order, without their line ends."""
        if not data:
            return []
        if self._cr:
            self._cr = False
            data = data[1:] if data.startswith(b"\n") else data
            if not data:
                return []
        if self._rest:
            data = self._rest + data
        if b"\r" in data:
            if data.endswith(b"\r"):
                self._cr = True
                data += b"\n"
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        head, newline, self._rest = data.rpartition(b"\n")
        if not newline:
            return []
        return head.decode("utf-8", "replace").split("\n")

    def flush(self) -> list[str]:
        """The unterminated last line at the end of the body, if any."""
        rest, self._rest = self._rest, b""
        return [rest.decode("utf-8", "replace")] if rest else []


async def iter_line_batches(chunks: AsyncIterator[bytes]) -> AsyncIterator[list[str]]:
    """The lines of a streamed body (``response.aiter_bytes()``), one list per
    network read that completed any; the unterminated last line comes at EOF."""
    splitter = LineSplitter()
    async for chunk in chunks:
        lines = splitter.feed(chunk)
        if lines:
            yield lines
    tail = splitter.flush()
    if tail:
        yield tail


def error_field_data(value: str) -> str:
    """The ``data`` of an event for an ``error:`` field line: llama.cpp's server
    reports a failure mid-stream as ``error: {"code":…,"message":…,"type":…}``
    (then ``data: [DONE]``), a field the SSE standard would ignore. It becomes
    an error object, ``{"error": …}``, as other servers send in ``data``, so
    the adapters map it like any in-stream error."""
    try:
        obj = json.loads(value)
    except ValueError:
        obj = value
    return json.dumps({"error": obj or value})


class SSEParser:
    """Server-sent events from decoded lines: skips ``:`` comments, joins
    multi-line ``data:``, tracks ``event:``, dispatches on a blank line.
    :meth:`flush` dispatches a last event not followed by a blank line. An
    ``error:`` field line becomes an ``error`` event whose data is an error
    object (:func:`error_field_data`)."""

    __slots__ = ("_data", "_event")

    def __init__(self) -> None:
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, lines: list[str]) -> list[SSEEvent]:
        out: list[SSEEvent] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    out.append(SSEEvent(self._event or "message", "\n".join(data)))
                    data = self._data = []
                self._event = None
            elif line.startswith("data: "):  # the common case, first
                data.append(line[6:])
            elif line[0] != ":":
                field, _, value = line.partition(":")
                if value.startswith(" "):
                    value = value[1:]
                if field == "data":
                    data.append(value)
                elif field == "event":
                    self._event = value
                elif field == "error" and value.strip():
                    data.append(error_field_data(value))
                    self._event = "error"
        return out

    def feed_data(self, lines: list[str]) -> list[str]:
        """The ``data`` of the events completed by ``lines`` (their names
        dropped), as :meth:`feed` would give them. A read of a fast stream is
        nothing but ``data: …`` lines each followed by a blank line; such a
        run is cut out in one go instead of line by line. Anything else — a
        comment, an ``event:`` or ``id:`` field, a multi-line ``data``, an event
        cut across reads — goes through :meth:`feed`."""
        out: list[str] = []
        start = 0
        if self._data or self._event is not None:  # finish the event a read cut
            start = lines.index("") + 1 if "" in lines else len(lines)
            out.extend(event.data for event in self.feed(lines[:start]))
        rest = lines[start:] if start else lines
        if len(rest) % 2:  # the last event's blank line is in the next read
            rest, tail = rest[:-1], rest[-1:]
        else:
            tail = []
        heads = rest[0::2]
        if not any(rest[1::2]) and all(line.startswith("data: ") for line in heads):
            out.extend(line[6:] for line in heads)
        else:
            out.extend(event.data for event in self.feed(rest))
        if tail:
            out.extend(event.data for event in self.feed(tail))
        return out

    def flush(self) -> list[SSEEvent]:
        data, self._data = self._data, []
        event, self._event = self._event, None
        return [SSEEvent(event or "message", "\n".join(data))] if data else []


async def iter_sse_batches(chunks: AsyncIterator[bytes]) -> AsyncIterator[list[SSEEvent]]:
    """Server-sent events of a streamed body (``response.aiter_bytes()``), one
    list per network read that completed any (see :class:`SSEParser`)."""
    parser = SSEParser()
    async for lines in iter_line_batches(chunks):
        events = parser.feed(lines)
        if events:
            yield events
    events = parser.flush()
    if events:
        yield events


async def iter_sse_data(chunks: AsyncIterator[bytes]) -> AsyncIterator[list[str]]:
    """The ``data`` of the server-sent events of a streamed body, one list per
    network read that completed any (:meth:`SSEParser.feed_data`): for a
    stream whose event names do not matter (OpenAI's)."""
    parser = SSEParser()
    async for lines in iter_line_batches(chunks):
        datas = parser.feed_data(lines)
        if datas:
            yield datas
    datas = [event.data for event in parser.flush()]
    if datas:
        yield datas


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[SSEEvent]:
    """Server-sent events from decoded lines (e.g. ``response.aiter_lines()``);
    see :class:`SSEParser`. A last event not followed by a blank line is still
    yielded at EOF."""
    parser = SSEParser()
    async for raw in lines:
        for event in parser.feed([raw.rstrip("\r\n")]):
            yield event
    for event in parser.flush():
        yield event


def loads_chunks(
    datas: list[str], *, provider: str | None = None
) -> tuple[list[Any], MalformedStreamError | None]:
    """``json.loads`` of the chunks of one network read, in one call when they
    all look like JSON objects: a fast stream brings ~90 per read, and parsing
    them as one array costs ~1.5 µs a chunk instead of 3–5 µs (the per-call
    overhead of ``json.loads`` is most of a small chunk's cost), and orjson
    halves that again. Chunks one by one go through ``json.loads``, which also
    takes what orjson refuses (``NaN``, integers beyond 64 bits).

    Returns the objects of the leading chunks that are JSON, and the error for
    the first one that is not (``None`` if all are): the caller handles the
    objects first, then raises, so what came before a bad chunk is not lost.
    The joined parse is used only if it yields exactly one value per chunk;
    otherwise the chunks are parsed one by one."""
    if len(datas) > 1 and all(d[:1] == "{" and d[-1:] == "}" for d in datas):
        try:
            objs = orjson.loads("[" + ",".join(datas) + "]")
        except ValueError:  # orjson.JSONDecodeError is one
            pass  # one of them is broken, or holds what only json accepts (NaN): below
        else:
            if len(objs) == len(datas):
                return objs, None
    objs = []
    for data in datas:
        try:
            objs.append(loads_chunk(data, provider=provider))
        except MalformedStreamError as exc:
            return objs, exc
    return objs, None


def loads_chunk(data: str, *, provider: str | None = None) -> Any:
    """``json.loads`` of one stream chunk; a :class:`MalformedStreamError` quoting
    a short excerpt when it is not JSON."""
    try:
        return json.loads(data)
    except ValueError:
        raise MalformedStreamError(
            f"The server sent data that is not JSON: {excerpt(data)!r}", provider=provider
        ) from None


_OPEN, _CLOSE = "<think>", "</think>"


class ThinkSplitter:
    """Splits a leading ``<think>…</think>`` block out of streamed answer text.

    Only a ``<think>`` at the very start (whitespace allowed before it) opens
    reasoning; tags may be cut anywhere across chunks. Whitespace between
    ``</think>`` and the answer is dropped. :meth:`feed` and :meth:`flush` return
    ``(is_thinking, text)`` pieces in order, never empty ones."""

    def __init__(self) -> None:
        self._state = "start"  # start | think | after | text
        self._buf = ""

    @property
    def passthrough(self) -> bool:
        """Past the start: all further text is answer text, unchanged."""
        return self._state == "text"

    def feed(self, text: str) -> list[tuple[bool, str]]:
        if self._state == "text":
            return [(False, text)] if text else []
        self._buf += text
        out: list[tuple[bool, str]] = []
        while self._step(out):
            pass
        return out

    def flush(self) -> list[tuple[bool, str]]:
        """Emit whatever is held back (a partial tag at the end of the stream)."""
        buf, self._buf = self._buf, ""
        if not buf or self._state == "after":
            return []
        return [(self._state == "think", buf)]

    def _step(self, out: list[tuple[bool, str]]) -> bool:
        """Advance the state machine once; ``True`` when it should run again."""
        buf = self._buf
        if self._state == "start":
            head = buf.lstrip()
            if head.startswith(_OPEN):
                self._state, self._buf = "think", head[len(_OPEN) :]
                return True
            if not head or _OPEN.startswith(head):
                return False  # only whitespace or a partial "<think" so far
            self._state = "text"
        elif self._state == "think":
            end = buf.find(_CLOSE)
            if end >= 0:
                self._emit(out, True, buf[:end])
                self._state, self._buf = "after", buf[end + len(_CLOSE) :]
                return True
            keep = _partial_suffix(buf, _CLOSE)
            self._emit(out, True, buf[: len(buf) - keep])
            self._buf = buf[len(buf) - keep :]
            return False
        elif self._state == "after":
            rest = buf.lstrip()
            if not rest:
                self._buf = ""
                return False
            self._state, buf = "text", rest
        self._emit(out, False, buf)
        self._buf = ""
        return False

    @staticmethod
    def _emit(out: list[tuple[bool, str]], thinking: bool, text: str) -> None:
        if text:
            out.append((thinking, text))


def flush_text(pieces: list[str], out: list[StreamEvent]) -> None:
    """Append the answer text gathered in ``pieces`` to ``out`` as one
    ``TextDelta`` (nothing if there is none) and empty ``pieces``: the
    parsers' short path for plain chunks gathers their text this way."""
    if pieces:
        out.append(TextDelta("".join(pieces)))
        pieces.clear()


def split_events(pieces: list[tuple[bool, str]]) -> list[StreamEvent]:
    """``ThinkSplitter`` pieces as ``ThinkingDelta`` / ``TextDelta`` events."""
    return [ThinkingDelta(text) if thinking else TextDelta(text) for thinking, text in pieces]


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


async def drain(items: AsyncIterator[Any], timeout: float = DRAIN_TIMEOUT) -> None:
    """Read what follows a stream's end marker until the body ends.

    Leaving httpx's nested async generators suspended makes Python finalise them
    later, possibly after the event loop has stopped (``RuntimeError: no running
    event loop`` at shutdown). Servers end the body right after the marker, so
    this costs nothing; one that keeps the connection open is given ``timeout``
    seconds and then left to the response's own close."""
    try:
        async with asyncio.timeout(timeout):
            async for _ in items:
                pass
    except (TimeoutError, httpx.HTTPError):
        log.debug("stopped draining the stream after its end marker")
