"""``LocalTransport``: the httpx transport for model servers on this machine
(``localhost`` / ``127.0.0.1``: Ollama, LM Studio, llama.cpp, vLLM), built
on aiohttp's HTTP/1.1 client.

Why: a local model streams its answer as thousands of small HTTP chunks, and
httpx's own transport (httpcore over h11) parses each of them in Python —
~15–25 µs a chunk on this machine, as much as everything else Mira does with
a token. aiohttp's parser is written in C and hands over all the chunks of a
network read at once (~4 µs a chunk, measured with
``python -m tests.benchmarks --only streaming``). The adapters keep speaking
httpx: requests, responses, status handling and content decoding are httpx's;
only the bytes on the wire go through aiohttp. Remote providers keep httpx's
transport (proxies from the environment, its TLS set-up); local servers are
never reached through a proxy anyway.

aiohttp's failures are raised as the httpx exceptions ``errormap`` knows (a
refused connection is ``ConnectError``, a stream cut short is
``RemoteProtocolError``, timeouts are ``ConnectTimeout``/``ReadTimeout``),
so messages and hints are the same whichever transport carried the request.
aiohttp is imported with the first request, in a worker thread (its import
takes 100-160 ms), not at start-up.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import ssl
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    import aiohttp

#: request headers aiohttp computes itself from the body it sends
_SKIP_HEADERS = frozenset({"content-length", "transfer-encoding"})
#: bytes handed over per read at most. aiohttp buffers what arrives while the
#: loop is busy, and a fast local server can queue hundreds of kilobytes (a
#: thousand and more SSE events) meanwhile; parsing all of them before the
#: consumer gets an event would hold the Qt thread for tens of milliseconds.
_READ_SIZE = 16 * 1024


def _map_error(exc: BaseException) -> httpx.TransportError | None:
    """The httpx exception that stands for aiohttp's ``exc`` (``None``: not a
    transport failure; it propagates unchanged)."""
    import aiohttp

    message = str(exc) or type(exc).__name__
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(message)
    if isinstance(exc, aiohttp.ServerTimeoutError | asyncio.TimeoutError):
        return httpx.ReadTimeout(message)
    if isinstance(exc, aiohttp.ClientConnectorError):
        # aiohttp's own words name "ssl:default" even for plain http; the
        # system's reason is what people need ("Connection refused"). A TLS
        # failure's number is OpenSSL's, not an errno (1 read "Operation not
        # permitted"): its own words say what went wrong, and ``errormap``
        # reads the chain for a plain-HTTP server reached by https://
        reason = exc.os_error
        if isinstance(reason, ssl.SSLError):
            message = str(reason)
        elif reason.errno:
            message = os.strerror(reason.errno)
        return httpx.ConnectError(message)
    if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError(message)
    if isinstance(exc, aiohttp.ClientResponseError):  # a malformed status line or header
        return httpx.RemoteProtocolError(message)
    if isinstance(exc, aiohttp.InvalidURL):
        return httpx.UnsupportedProtocol(message)
    if isinstance(exc, aiohttp.ClientError | OSError):
        return httpx.ReadError(message)
    return None


@contextmanager
def _httpx_errors() -> Iterator[None]:
    try:
        yield
    except (asyncio.CancelledError, httpx.HTTPError):
        raise
    except Exception as exc:
        mapped = _map_error(exc)
        if mapped is None:
            raise
        raise mapped from exc


class _ResponseStream(httpx.AsyncByteStream):
    """The body of an aiohttp response, as httpx reads it: what has arrived
    (all the HTTP chunks in it, already de-chunked), up to ``_READ_SIZE`` bytes
    at a time."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self._response.content
        while True:
            try:
                data = await content.read(_READ_SIZE)
            except (asyncio.CancelledError, httpx.HTTPError):
                raise
            except Exception as exc:
                error = exc
            else:
                if not data:
                    return
                yield data
                continue
            # aiohttp raises as soon as the connection is lost, even when bytes
            # that arrived before are still buffered: hand them over first (an
            # answer cut short keeps every token that reached us).
            rest = _unread(content)
            if rest:
                yield rest
            mapped = _map_error(error)
            if mapped is None:
                raise error
            raise mapped from error

    async def aclose(self) -> None:
        # Unread rest (a stopped answer): the connection is closed, not reused.
        if self._response.content.at_eof():
            self._response.release()
        else:
            self._response.close()


def _unread(content: aiohttp.StreamReader) -> bytes:
    """The bytes still buffered in ``content`` (taken out of it). aiohttp has
    no public call that returns them once the stream has failed, so this reads
    its buffer directly; ``test_a_stream_cut_short_keeps_every_byte_that_arrived``
    guards it against a change of aiohttp's internals."""
    buffer = getattr(content, "_buffer", None)
    if not buffer:
        return b""
    data = b"".join(buffer)[getattr(content, "_buffer_offset", 0) :]
    buffer.clear()
    content._buffer_offset = 0
    return data


def _timeout(request: httpx.Request) -> aiohttp.ClientTimeout:
    import aiohttp

    timeout = request.extensions.get("timeout", {})
    return aiohttp.ClientTimeout(
        total=None,
        connect=timeout.get("pool"),
        sock_connect=timeout.get("connect"),
        sock_read=timeout.get("read"),
    )


class LocalTransport(httpx.AsyncBaseTransport):
    """An httpx transport over one aiohttp session (created on the first
    request, on the running loop; closed with the client). See the module
    docstring."""

    def __init__(self, *, verify: ssl.SSLContext | None = None, max_connections: int = 20):
        self._verify = verify
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            import aiohttp

            connector = aiohttp.TCPConnector(
                limit=self._max_connections,
                ssl=self._verify if self._verify is not None else True,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,  # local servers are never reached through a proxy
                auto_decompress=False,  # httpx decodes the content itself
                skip_auto_headers=("User-Agent", "Accept-Encoding", "Accept"),
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        headers = [
            (name, value)
            for name, value in request.headers.multi_items()
            if name.lower() not in _SKIP_HEADERS
        ]
        body = await request.aread()
        if "aiohttp" not in sys.modules:
            # its import takes 100-160 ms: in a worker thread, not on the
            # loop's (the Qt) thread, which keeps painting meanwhile
            await asyncio.to_thread(importlib.import_module, "aiohttp")
        with _httpx_errors():
            response = await self._client().request(
                request.method,
                str(request.url),
                headers=headers,
                data=body or None,
                allow_redirects=False,
                timeout=_timeout(request),
                server_hostname=request.extensions.get("sni_hostname"),
            )
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode("latin-1", "replace")
        return httpx.Response(
            status_code=response.status,
            headers=response.raw_headers,
            stream=_ResponseStream(response),
            extensions=extensions,
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
