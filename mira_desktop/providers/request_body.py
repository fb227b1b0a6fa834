"""A request's JSON body, encoded as httpx encodes ``json=`` (compact
separators, UTF-8, no ``NaN``) but without freezing the window.

A question in a 5,000-message thread sends the whole history the model's
window holds: a body of megabytes, whose one ``json.dumps`` held the GIL —
and so the Qt thread — for ~27 ms. A body with a long list is encoded in a
worker thread a slice of items at a time: each slice is one short C call,
and between them the interpreter can hand the GIL back to the window."""

from __future__ import annotations

import asyncio
import json
from typing import Any

#: list items encoded in one call (a few hundred chat messages: ~1 ms)
SLICE = 200


def dumps(value: Any) -> str:
    """``value`` as httpx's ``json=`` encodes it (as text)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode_body(body: dict[str, Any], slice_size: int = SLICE) -> bytes:
    """The bytes of ``dumps(body)``, long lists encoded a slice at a time."""
    parts = []
    for key, value in body.items():
        if isinstance(value, list) and len(value) > slice_size:
            pieces = (
                dumps(value[at : at + slice_size])[1:-1] for at in range(0, len(value), slice_size)
            )
            encoded = "[" + ",".join(pieces) + "]"
        else:
            encoded = dumps(value)
        parts.append(f"{dumps(key)}:{encoded}")
    return ("{" + ",".join(parts) + "}").encode("utf-8")


async def encoded_body(body: dict[str, Any]) -> bytes:
    """:func:`encode_body` — in a worker thread when the body holds a long list."""
    if any(isinstance(v, list) and len(v) > SLICE for v in body.values()):
        return await asyncio.to_thread(encode_body, body)
    return encode_body(body)
