"""Request bodies: the slice-by-slice encoding gives exactly the bytes httpx's
``json=`` gives, and a long history reaches a real server whole and in order."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import httpx
import pytest

from mira_desktop.core.models import ChatMessage, ChatRequest
from mira_desktop.providers.openai_compat import OpenAIProvider, build_body
from mira_desktop.providers.request_body import (
    SLICE,
    _KeptMessages,
    dumps,
    encode_body,
    request_content,
)
from tests.support.loopback import LoopbackServer, openai_stream

from .helpers import collect

TEXTS = ["plain", "中文 和 emoji 🎉", 'quotes " and \\ back', "tab\tnew\nline", "\u2028", ""]


def _random_body(rng: random.Random, items: int) -> dict[str, Any]:
    messages = [
        {"role": rng.choice(["user", "assistant"]), "content": rng.choice(TEXTS) * rng.randrange(3)}
        for _ in range(items)
    ]
    return {
        "model": "m",
        "messages": messages,
        "stream": True,
        "stop": ["a"] * rng.randrange(0, 3 * SLICE),
        "temperature": 0.5,
        "extra": {"nested": [1, 2.5, None, True]},
    }


@pytest.mark.parametrize("items", [0, 1, SLICE - 1, SLICE, SLICE + 1, 3 * SLICE + 7])
def test_the_bytes_are_httpxs(items: int) -> None:
    rng = random.Random(items)
    for _ in range(5):
        body = _random_body(rng, items)
        expected = httpx.Request("POST", "http://x", json=body).content
        assert encode_body(body) == expected
        assert encode_body(body, slice_size=7) == expected


def test_not_a_number_is_refused_as_httpx_refuses_it() -> None:
    with pytest.raises(ValueError):
        encode_body({"messages": [float("nan")] * (SLICE + 1)})


async def test_a_long_body_is_encoded_the_same_off_the_loop() -> None:
    body = _random_body(random.Random(3), 5 * SLICE)
    off_the_loop = await request_content(lambda b: b, body, len(body["messages"]))
    assert off_the_loop == encode_body(body)


async def test_a_long_history_reaches_the_server_whole(
    openai: OpenAIProvider, loopback: LoopbackServer
) -> None:
    history = tuple(
        ChatMessage("user" if n % 2 == 0 else "assistant", f"message {n} · 第{n}条")
        for n in range(3 * SLICE + 5)
    )
    loopback.enqueue("/v1/chat/completions", openai_stream(["ok"]))
    _events, error = await collect(openai, ChatRequest(model="m", messages=history))
    assert error is None
    sent = json.loads(loopback.requests[-1].body)
    assert [m["content"] for m in sent["messages"]] == [m.content for m in history]
    assert loopback.requests[-1].headers["content-type"] == "application/json"


@pytest.mark.parametrize("items", [3, SLICE + 1])
async def test_a_long_request_is_built_and_encoded_off_the_loop(items: int) -> None:
    history = tuple(ChatMessage("user", f"message {n} · 第{n}条") for n in range(items))
    request = ChatRequest(model="m", messages=history)
    built_in: list[threading.Thread] = []

    def build(request: ChatRequest) -> dict[str, Any]:
        built_in.append(threading.current_thread())
        return build_body(request)

    content = await request_content(build, request, len(request.messages))
    assert content == httpx.Request("POST", "http://x", json=build_body(request)).content
    on_the_loop = built_in == [threading.current_thread()]
    assert on_the_loop is (items <= SLICE)


def _history(rng: random.Random, items: int) -> list[Any]:
    """Chat messages, most of the plain shape, some not (parts, images, the
    keys the other way round), texts repeated under other roles."""
    shapes = [
        lambda text: {"role": "user", "content": text},
        lambda text: {"role": "assistant", "content": text},
        lambda text: {"content": text, "role": "user"},
        lambda text: {"role": "user", "content": [{"type": "text", "text": text}]},
        lambda text: {"role": "user", "content": text, "images": ["aGk="]},
    ]
    weights = [6, 6, 1, 1, 1]
    return [
        rng.choices(shapes, weights)[0](rng.choice(TEXTS) * rng.randrange(1, 4))
        for _ in range(items)
    ]


def test_a_history_sent_again_is_encoded_as_httpx_encodes_it() -> None:
    """The messages kept from one request give the next the same bytes."""
    rng = random.Random(11)
    history = _history(rng, 3 * SLICE)
    for _ in range(4):
        history += _history(rng, rng.randrange(1, 9))
        body = {"model": "m", "messages": history, "stream": True}
        assert encode_body(body) == httpx.Request("POST", "http://x", json=body).content


def test_kept_messages_are_bounded_and_reused() -> None:
    kept = _KeptMessages(limit=2_000)
    history = [{"role": "user", "content": f"message {n}"} for n in range(100)]
    expected = dumps(history)[1:-1].encode()
    assert kept.encode(history) == expected
    assert len(kept._kept) <= 100 and kept._size <= 2_000
    few = history[:10]
    kept = _KeptMessages()
    kept.encode(few)
    stored = dict(kept._kept)
    assert kept.encode(few) == dumps(few)[1:-1].encode()
    assert all(kept._kept[key] is value for key, value in stored.items())  # not made again
