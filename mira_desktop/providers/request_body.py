"""A request's JSON body, built and encoded as httpx encodes ``json=``
(compact separators, UTF-8, no ``NaN``) but without freezing the window.

A question in a 5,000-message thread sends the whole history the model's
window holds: a body of megabytes, whose one ``json.dumps`` held the GIL —
and so the Qt thread — for ~27 ms, and whose building (a dict per message)
took another ~5 ms of the Qt thread. A request with a long history is built
and encoded in a worker thread (:func:`request_content`), a long list a slice
of items at a time, each slice to bytes on its own: every step is one short C
call (no pass over the whole body but the final copy), and between them the
interpreter can hand the GIL back to the window. Plain chat messages
(role and text) are kept encoded for the next request, which sends them
again."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any, TypeVar

#: list items encoded in one call (a hundred chat messages: ~0.5 ms)
SLICE = 100
#: bytes of encoded chat messages kept for the next requests
KEPT_BYTES = 32_000_000

R = TypeVar("R")


def dumps(value: Any) -> str:
    """``value`` as httpx's ``json=`` encodes it (as text)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _dumpb(value: Any) -> bytes:
    return dumps(value).encode("utf-8")


class _KeptMessages:
    """Encoded chat messages of the plain shape ``{"role": str, "content":
    str}``, kept by (role, content): a thread's history goes again with every
    question, and encoding it was most of building a long thread's request
    (~25 ms of C holding the GIL for 5,000 messages, against ~5 ms to look
    them up). Bounded by the bytes kept (emptied when over)."""

    def __init__(self, limit: int = KEPT_BYTES) -> None:
        self._limit = limit
        self._kept: dict[tuple[str, str], bytes] = {}
        self._size = 0
        self._lock = threading.Lock()  # bodies are encoded in worker threads

    def encode(self, items: list[Any]) -> bytes:
        """``dumps(items)`` without its brackets."""
        keys = list(map(_plain_key, items))
        if not any(keys):  # not chat messages (stop words, content blocks)
            return _dumpb(items)[1:-1]
        kept, out, new = self._kept, [], []
        for item, key in zip(items, keys, strict=True):
            encoded = kept.get(key) if key is not None else None
            if encoded is None:
                encoded = _dumpb(item)
                if key is not None:
                    new.append((key, encoded))
            out.append(encoded)
        if new:
            with self._lock:
                added = sum(len(encoded) for _, encoded in new)
                if self._size + added > self._limit:
                    kept.clear()
                    self._size = 0
                if added <= self._limit:
                    kept.update(new)
                    self._size += added
        return b",".join(out)


def _plain_key(item: Any) -> tuple[str, str] | None:
    if type(item) is dict and tuple(item) == _ROLE_CONTENT:
        role, content = item["role"], item["content"]
        if type(role) is str and type(content) is str:
            return role, content
    return None


_ROLE_CONTENT = ("role", "content")
_messages = _KeptMessages()


def encode_body(body: dict[str, Any], slice_size: int = SLICE) -> bytes:
    """The bytes of ``dumps(body)``: long lists encoded a slice at a time,
    plain chat messages kept from the bodies before."""
    parts: list[bytes] = [b"{"]
    for number, (key, value) in enumerate(body.items()):
        parts += (b"," if number else b"", _dumpb(key), b":")
        if isinstance(value, list) and len(value) > slice_size:
            parts.append(b"[")
            for at in range(0, len(value), slice_size):
                parts += (b"," if at else b"", _messages.encode(value[at : at + slice_size]))
            parts.append(b"]")
        else:
            parts.append(_dumpb(value))
    parts.append(b"}")
    return b"".join(parts)


async def request_content(build: Callable[[R], dict[str, Any]], request: R, items: int) -> bytes:
    """``encode_body(build(request))``; both in a worker thread when the
    request holds more than a slice of ``items`` (its messages)."""
    if items > SLICE:
        return await asyncio.to_thread(lambda: encode_body(build(request)))
    return encode_body(build(request))
