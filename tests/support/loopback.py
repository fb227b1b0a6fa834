"""A real HTTP/1.1 loopback server for the test suite: canned model-server
answers over genuine TCP, so adapters, services, the CLI and the UI are tested
through real httpx with nothing patched.

Usage::

    server = LoopbackServer(); server.start()     # or: with LoopbackServer() as server:
    server.url              # "http://127.0.0.1:PORT" (root; OpenAI base is server.url + "/v1")
    server.enqueue(path, reply)       # FIFO replies per path ("/v1/chat/completions",
                                      # "/api/chat", "/v1/messages", "/v1/models", "/api/tags")
    server.set_default(path, reply)   # used when that path's queue is empty
    server.requests         # list[RecordedRequest(method, path, headers, body, json, query)]
    server.wait_for_requests(n, timeout=5.0)   # -> the requests; TimeoutError if fewer
    server.disconnects      # clients that went away mid-reply (Hang() or a failed write)
    server.wait_for_disconnect(timeout=1.0)    # -> bool
    server.stop()

Paths are matched without the query string (kept in ``RecordedRequest.query``);
header names are lower-case. A path with nothing queued and no default answers
404 with an OpenAI-style error naming the path.

Replies (from :mod:`tests.support.replies`, re-exported here):
``Reply(status=200, headers={...}, chunks=[...], close_after=False, framing="auto")``
where chunks are ``bytes``, ``Pause(seconds)``, ``Hang()`` or ``Gate()``. Each
chunk is written and flushed on its own (TCP_NODELAY) so the client sees separate
network reads. A one-chunk body goes with Content-Length, anything else with
chunked transfer (``framing="close"`` ends the body by closing instead).
``close_after=True`` drops the connection without ending the body (truncated).
``Hang()`` blocks until the client disconnects (then ``disconnects`` grows and
``disconnected`` is set) or the server stops; ``Gate()`` holds the rest of
the reply until the test calls ``gate.open()`` (or the server stops);
``Reset()`` resets the connection (TCP RST) instead of sending the rest.
Builders: ``openai_stream``, ``openai_tool_stream``, ``openai_json_error``, ``openai_models``,
``ollama_stream``, ``ollama_tool_stream``, ``ollama_tags``, ``ollama_error``,
``anthropic_stream``, ``anthropic_tool_stream``, ``anthropic_models``,
``anthropic_error``, ``raw_stream``, ``json_reply``, ``text_reply``, ``sse``,
``ndjson``. The ``loopback`` pytest fixture lives in :mod:`tests.support.fixtures`."""

from __future__ import annotations

import json
import logging
import select
import socket
import struct
import sys
import threading
from collections import defaultdict, deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from .replies import (
    Chunk,
    Gate,
    Hang,
    Pause,
    Reply,
    Reset,
    anthropic_error,
    anthropic_models,
    anthropic_stream,
    anthropic_tool_stream,
    json_reply,
    ndjson,
    ollama_error,
    ollama_stream,
    ollama_tags,
    ollama_tool_stream,
    openai_json_error,
    openai_models,
    openai_stream,
    openai_tool_stream,
    raw_stream,
    sse,
    text_reply,
)

log = logging.getLogger(__name__)

__all__ = [
    "Chunk",
    "Gate",
    "Hang",
    "LoopbackServer",
    "Pause",
    "RecordedRequest",
    "Reply",
    "Reset",
    "anthropic_error",
    "anthropic_models",
    "anthropic_stream",
    "anthropic_tool_stream",
    "json_reply",
    "ndjson",
    "ollama_error",
    "ollama_stream",
    "ollama_tags",
    "ollama_tool_stream",
    "openai_json_error",
    "openai_models",
    "openai_stream",
    "openai_tool_stream",
    "raw_stream",
    "sse",
    "text_reply",
]

_POLL = 0.02


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any | None
    query: str = ""


class _Disconnected(Exception):
    """The client went away while we were answering."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    loopback: LoopbackServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("loopback: error serving %s: %r", client_address, sys.exc_info()[1])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.loopback._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.loopback._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("loopback: %s", format % args)

    def do_GET(self) -> None:
        self._serve()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        split = urlsplit(self.path)
        loopback = self.server.loopback
        loopback._record(self.command, split.path, split.query, dict(self.headers.items()), body)
        try:
            self._send(loopback._next_reply(self.command, split.path))
        except (_Disconnected, BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            loopback._note_disconnect()
            self.close_connection = True

    def _send(self, reply: Reply) -> None:
        data = [c for c in reply.chunks if isinstance(c, bytes)]
        framing = reply.framing
        if framing == "auto":
            plain = len(reply.chunks) <= 1 and not reply.close_after
            framing = "length" if plain else "chunked"
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if framing == "length":
            self.send_header("content-length", str(sum(len(c) for c in data)))
        elif framing == "chunked":
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("connection", "close")
            self.close_connection = True
        self.end_headers()
        if not self._write_chunks(reply.chunks, chunked=framing == "chunked"):
            self.close_connection = True
            return
        if reply.close_after:
            self.close_connection = True
        elif framing == "chunked":
            self.wfile.write(b"0\r\n\r\n")

    def _write_chunks(self, chunks: list[Chunk], *, chunked: bool) -> bool:
        """Write the chunks; ``False`` when a Hang or a stop cut the reply short."""
        stopping = self.server.loopback._stopping
        for chunk in chunks:
            if isinstance(chunk, Pause):
                if stopping.wait(chunk.seconds):
                    return False
            elif isinstance(chunk, Hang):
                self._hang()
                return False
            elif isinstance(chunk, Reset):
                linger = struct.pack("ii", 1, 0)  # close() then sends RST, not FIN
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                self.connection.close()  # now: the server's own shutdown would FIN first
                return False
            elif isinstance(chunk, Gate):
                while not chunk.opened.wait(_POLL):
                    if stopping.is_set():
                        return False
            elif chunk:
                framed = b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk
                self.wfile.write(framed)
                self.wfile.flush()
        return True

    def _hang(self) -> None:
        """Block until the client closes its end (raise) or the server stops."""
        stopping = self.server.loopback._stopping
        while not stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], _POLL)
            if not readable:
                continue
            try:
                peeked = self.connection.recv(1, socket.MSG_PEEK)
            except OSError:
                peeked = b""
            if not peeked:
                raise _Disconnected
            stopping.wait(_POLL)  # the client sent something: keep waiting


class LoopbackServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 serving queued :class:`Reply`s."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.disconnects = 0
        self.disconnected = threading.Event()
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._defaults: dict[str, Reply] = {}
        self._cond = threading.Condition()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._workers: set[threading.Thread] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> LoopbackServer:
        if self._httpd is not None:
            return self
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.loopback = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="loopback-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections (ending any Hang) and join threads."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        with self._cond:
            connections, workers = list(self._connections), list(self._workers)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for worker in workers:
            worker.join(timeout=2.0)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("LoopbackServer is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    # -- replies
    def enqueue(self, path: str, reply: Reply) -> None:
        """Answer the next request to ``path`` with ``reply`` (FIFO per path)."""
        with self._cond:
            self._queues[path].append(reply)

    def set_default(self, path: str, reply: Reply) -> None:
        """Answer requests to ``path`` with ``reply`` whenever its queue is empty."""
        with self._cond:
            self._defaults[path] = reply

    def _next_reply(self, method: str, path: str) -> Reply:
        with self._cond:
            if self._queues[path]:
                return self._queues[path].popleft()
            if path in self._defaults:
                return self._defaults[path]
        message = f"loopback: nothing queued for {method} {path}"
        return openai_json_error(404, message, type="loopback_unmatched")

    # -- observations
    def wait_for_requests(self, n: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Wait until at least ``n`` requests arrived; return them all."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.requests) >= n, timeout):
                raise TimeoutError(f"expected {n} requests, got {len(self.requests)}")
            return list(self.requests)

    def wait_for_disconnect(self, timeout: float = 1.0) -> bool:
        """True once a client has disconnected mid-reply (within ``timeout``)."""
        return self.disconnected.wait(timeout)

    def _record(
        self, method: str, path: str, query: str, headers: dict[str, str], body: bytes
    ) -> None:
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        lowered = {name.lower(): value for name, value in headers.items()}
        request = RecordedRequest(method, path, lowered, body, parsed, query)
        with self._cond:
            self.requests.append(request)
            self._cond.notify_all()

    def _note_disconnect(self) -> None:
        if self._stopping.is_set():
            return  # we cut the connection ourselves
        with self._cond:
            self.disconnects += 1
        self.disconnected.set()

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._cond:
            if add:
                self._connections.add(conn)
                self._workers.add(threading.current_thread())
            else:
                self._connections.discard(conn)
                self._workers.discard(threading.current_thread())
