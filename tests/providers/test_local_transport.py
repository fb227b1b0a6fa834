"""``LocalTransport``: httpx requests to model servers on this machine carried
by aiohttp, against the loopback server (and a raw socket for a broken one).
What the adapters see must not depend on the transport: the same httpx
responses, the same httpx exceptions, the same headers on the wire."""

from __future__ import annotations

import asyncio
import gzip
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from mira_desktop.providers.base import LOCAL_HOSTS, USER_AGENT, local_mounts, ssl_context
from mira_desktop.providers.local_transport import LocalTransport
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import Hang, Pause, Reply, json_reply, openai_stream, raw_stream

from .helpers import closed_port_url, collect, request


@pytest.fixture
async def client():
    async with httpx.AsyncClient(transport=LocalTransport(), timeout=5.0) as c:
        yield c


def test_providers_send_local_hosts_through_one_local_transport():
    mounts = local_mounts(ssl_context())
    assert set(mounts) == set(LOCAL_HOSTS) == {"all://localhost", "all://127.0.0.1"}
    transports = set(map(id, mounts.values()))
    assert len(transports) == 1 and isinstance(mounts["all://localhost"], LocalTransport)


async def test_post_arrives_with_httpx_headers_and_body(loopback, client):
    loopback.enqueue("/v1/x", json_reply({"ok": True}, headers={"x-extra": "1"}))
    response = await client.post(
        loopback.url + "/v1/x",
        json={"hello": "数据"},
        headers={"authorization": "Bearer k", "user-agent": USER_AGENT},
    )
    assert response.status_code == 200 and response.json() == {"ok": True}
    assert response.headers["x-extra"] == "1"
    assert response.http_version == "HTTP/1.1" and response.reason_phrase == "OK"
    (sent,) = loopback.wait_for_requests(1)
    assert sent.json == {"hello": "数据"}
    assert sent.headers["authorization"] == "Bearer k"
    assert sent.headers["user-agent"] == USER_AGENT  # not aiohttp's own
    assert int(sent.headers["content-length"]) == len(sent.body)


async def test_gzip_answers_are_decoded_by_httpx(loopback, client):
    body = gzip.compress(b'{"models": ["a", "b"]}')
    loopback.enqueue(
        "/api/tags",
        Reply(
            headers={"content-type": "application/json", "content-encoding": "gzip"}, chunks=[body]
        ),
    )
    response = await client.get(loopback.url + "/api/tags")
    assert response.json() == {"models": ["a", "b"]}


async def test_a_large_buffered_body_is_handed_over_in_bounded_pieces(loopback, client):
    """A fast server can queue far more than one read while the loop is busy;
    each piece the adapters parse in one go stays small (16 KiB)."""
    payload = bytes(range(256)) * 1200  # 300 KiB in one write
    loopback.enqueue("/big", Reply(chunks=[payload]))
    pieces: list[int] = []
    got = b""
    async with client.stream("GET", loopback.url + "/big") as response:
        async for piece in response.aiter_raw():
            pieces.append(len(piece))
            got += piece
    assert got == payload
    assert max(pieces) <= 16 * 1024 and len(pieces) >= len(payload) // (16 * 1024)


async def test_connection_refused_is_httpx_connect_error(client):
    with pytest.raises(httpx.ConnectError) as caught:
        await client.get(closed_port_url() + "/v1/models")
    # the system's reason, not aiohttp's words ("ssl:default" for plain http)
    assert str(caught.value) == "Connection refused"


async def test_stream_cut_short_is_remote_protocol_error(loopback, client):
    loopback.enqueue("/s", Reply(chunks=[b"data: 1\n\n", b"data: 2\n\n"], close_after=True))
    got = b""
    with pytest.raises(httpx.RemoteProtocolError):
        async with client.stream("GET", loopback.url + "/s") as response:
            async for piece in response.aiter_bytes():
                got += piece
    assert got.startswith(b"data: 1\n\n")


async def test_read_timeout_is_httpx_read_timeout(loopback):
    loopback.enqueue("/slow", raw_stream([b"data: 1\n\n", Pause(2.0)]))
    async with httpx.AsyncClient(
        transport=LocalTransport(), timeout=httpx.Timeout(5.0, read=0.2)
    ) as slow:
        with pytest.raises(httpx.ReadTimeout):
            async with slow.stream("GET", loopback.url + "/slow") as response:
                async for _ in response.aiter_bytes():
                    pass


async def test_closing_an_unfinished_stream_drops_the_connection(loopback, client):
    loopback.enqueue("/hang", Reply(chunks=[b"data: 1\n\n", Hang()]))
    async with client.stream("GET", loopback.url + "/hang") as response:
        async for _ in response.aiter_bytes():
            break
    assert await asyncio.to_thread(loopback.wait_for_disconnect, 2.0)


class _OneShotServer:
    """A raw TCP server that answers one request with ``answer`` in a single
    write, then closes: for what the loopback server will not send."""

    def __init__(self, answer: bytes) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._answer = answer
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        conn, _ = self._listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(self._answer)

    def close(self) -> None:
        self._thread.join(2)
        self._listener.close()


async def test_a_server_that_does_not_speak_http_is_a_protocol_error(client):
    server = _OneShotServer(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
    try:
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(server.url + "/v1/models")
    finally:
        server.close()


async def test_a_stream_cut_short_keeps_every_byte_that_arrived(client):
    """The body and the end of the connection arrive together (one write, then
    close, mid-chunk): aiohttp has marked the stream failed before it is read.
    Every byte that arrived is handed over first, then the error is raised."""
    events = b"".join(b"data: %d\n\n" % i for i in range(50))
    answer = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
        b"transfer-encoding: chunked\r\n\r\n"
        + b"%x\r\n%s\r\n" % (len(events), events)
        + b"40\r\ndata: cut"  # a chunk that never ends
    )
    server = _OneShotServer(answer)
    got = b""
    try:
        with pytest.raises(httpx.RemoteProtocolError):
            async with client.stream("GET", server.url + "/s") as response:
                await asyncio.sleep(0.2)  # the close arrives before we read
                async for piece in response.aiter_raw():
                    got += piece
    finally:
        server.close()
    assert got.startswith(events)
    assert got == events + b"data: cut"


async def test_an_owned_provider_client_streams_from_localhost(loopback):
    """The adapters' own client: ``localhost`` and ``127.0.0.1`` both work, and
    closing the provider closes the shared transport once (no warnings)."""
    for host in ("127.0.0.1", "localhost"):
        loopback.enqueue("/v1/chat/completions", openai_stream(["Hel", "lo ", "数据"]))
        base = loopback.url.replace("127.0.0.1", host) + "/v1"
        async with OpenAIProvider("local", base) as provider:
            events, error = await collect(provider, request())
        assert error is None
        assert "".join(getattr(e, "text", "") for e in events) == "Hello 数据"


def test_aiohttp_loads_with_the_first_local_request_not_with_the_providers():
    code = (
        "import sys, httpx\n"
        "from mira_desktop.providers.base import local_mounts, ssl_context\n"
        "from mira_desktop.providers.openai_compat import OpenAIProvider\n"
        "OpenAIProvider('p', 'http://127.0.0.1:1/v1')\n"
        "print('aiohttp' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_the_first_request_imports_aiohttp_off_the_loop_thread():
    """aiohttp's import takes 100-160 ms: on the loop's thread (the Qt thread
    in the app) the window would freeze at the first local request."""
    code = (
        "import asyncio, sys, threading, httpx\n"
        "from tests.support.loopback import LoopbackServer, json_reply\n"
        "seen = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'aiohttp':\n"
        "            seen.append(threading.get_ident())\n"
        "sys.meta_path.insert(0, Watch())\n"
        "from mira_desktop.providers.local_transport import LocalTransport\n"
        "async def main():\n"
        "    with LoopbackServer() as server:\n"
        "        server.enqueue('/x', json_reply({'ok': True}))\n"
        "        async with httpx.AsyncClient(transport=LocalTransport()) as c:\n"
        "            r = await c.get(server.url + '/x')\n"
        "    print(r.json()['ok'], len(seen), threading.get_ident() not in seen)\n"
        "asyncio.run(main())\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert done.stdout.split() == ["True", "1", "True"]
