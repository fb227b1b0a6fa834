"""Self-tests of the loopback server the whole suite relies on."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tests.support.loopback import (
    Hang,
    LoopbackServer,
    Pause,
    Reply,
    json_reply,
    openai_stream,
    raw_stream,
    text_reply,
)


async def test_records_requests_fifo_and_default(loopback):
    loopback.enqueue("/a", text_reply(200, "one"))
    loopback.enqueue("/a", text_reply(201, "two"))
    loopback.set_default("/a", text_reply(202, "default"))
    async with httpx.AsyncClient() as client:
        first = await client.post(loopback.url + "/a?x=1", json={"k": [1]}, headers={"X-T": "v"})
        second = await client.get(loopback.url + "/a")
        third = await client.get(loopback.url + "/a")
        fourth = await client.get(loopback.url + "/a")
    assert [(r.status_code, r.text) for r in (first, second, third, fourth)] == [
        (200, "one"),
        (201, "two"),
        (202, "default"),
        (202, "default"),
    ]
    requests = loopback.wait_for_requests(4)
    assert (requests[0].method, requests[0].path, requests[0].query) == ("POST", "/a", "x=1")
    assert requests[0].headers["x-t"] == "v"
    assert requests[0].json == {"k": [1]}
    assert requests[0].body == b'{"k":[1]}'
    assert requests[1].json is None


async def test_unmatched_path_answers_404(loopback):
    async with httpx.AsyncClient() as client:
        response = await client.get(loopback.url + "/nothing")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "loopback: nothing queued for GET /nothing"


def test_wait_for_requests_times_out():
    with LoopbackServer() as server, pytest.raises(TimeoutError, match="expected 1 requests"):
        server.wait_for_requests(1, timeout=0.05)


async def test_chunks_arrive_as_separate_pieces(loopback):
    # Chunked framing makes every chunk its own piece for httpx's decoders (even if
    # TCP coalesced two), so split-line cases are deterministic.
    loopback.enqueue("/s", Reply(chunks=[b"ab", Pause(0.05), b"cd", Pause(0.05), b"e"]))
    async with httpx.AsyncClient() as client, client.stream("GET", loopback.url + "/s") as r:
        assert r.headers["transfer-encoding"] == "chunked"
        reads = [chunk async for chunk in r.aiter_raw()]
    assert reads == [b"ab", b"cd", b"e"]


async def test_split_lines_really_split(loopback):
    reply = openai_stream(["x"], split_lines=True, crlf=True)
    data = [c for c in reply.chunks if isinstance(c, bytes)]
    assert b"\r" in data and b"\n" in data  # a blank CRLF line cut between \r and \n
    loopback.enqueue("/s", reply)
    async with httpx.AsyncClient() as client, client.stream("GET", loopback.url + "/s") as r:
        reads = [chunk async for chunk in r.aiter_raw()]
    assert reads == data


async def test_close_framing_and_truncation(loopback):
    loopback.enqueue("/c", raw_stream([b"all", b" of it"], framing="close"))
    loopback.enqueue("/t", raw_stream([b"partial"], close_after=True))
    async with httpx.AsyncClient() as client:
        response = await client.get(loopback.url + "/c")
        assert (response.text, "content-length" in response.headers) == ("all of it", False)
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(loopback.url + "/t")


async def test_json_reply_has_length(loopback):
    loopback.enqueue("/j", json_reply({"a": 1}, 418))
    async with httpx.AsyncClient() as client:
        response = await client.get(loopback.url + "/j")
    assert (response.status_code, response.headers["content-length"]) == (418, "8")


async def test_stop_releases_a_hanging_reply():
    server = LoopbackServer().start()
    server.enqueue("/h", raw_stream([b"x", Hang()]))
    async with httpx.AsyncClient() as client, client.stream("GET", server.url + "/h") as r:
        iterator = r.aiter_raw()
        assert await anext(iterator) == b"x"
        await asyncio.to_thread(server.stop)
        with pytest.raises(httpx.RemoteProtocolError):
            await anext(iterator)
    assert server.disconnects == 0
