"""The base of the provider adapters: :class:`HttpProvider` owns (or borrows)
the ``httpx.AsyncClient`` (closed, once retired, when its last request ends),
the default timeouts (connect 10 s, read 300 s, no total limit), header building, streamed POSTs whose non-success answers and
transport failures become typed errors, JSON GETs, and POSTs of JSON or of a
multipart form answered with JSON. Vendor request formats live in the
adapters; error mapping in ``errormap``; SSE and ``<think>`` parsing in
``streams``."""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from mira_desktop import __version__
from mira_desktop.core.api_keys import BAD_KEY_MESSAGE, is_clean_api_key
from mira_desktop.core.errors import (
    BadRequestError,
    ConfigError,
    MalformedStreamError,
    ProviderError,
)
from mira_desktop.core.events import StreamEvent
from mira_desktop.core.models import ChatRequest, ModelInfo

from .errormap import (
    ENDPOINT_NOT_FOUND_HINT,
    REASONING_REFUSED_HINT,
    blames_reasoning,
    error_from_response,
    excerpt,
    network_error,
)

log = logging.getLogger(__name__)

USER_AGENT = f"mira-desktop/{__version__}"
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 300.0
#: connect 10 s; read/write/pool 300 s (models can think long); no total limit.
DEFAULT_TIMEOUT = httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)
#: the hosts of model servers on this machine: never reached through a system
#: proxy, and spoken to through aiohttp's C parser (see ``local_transport``)
LOCAL_HOSTS = ("all://localhost", "all://127.0.0.1")


def local_mounts(verify: ssl.SSLContext) -> dict[str, httpx.AsyncBaseTransport | None]:
    """httpx mounts sending requests to local servers through one
    :class:`~.local_transport.LocalTransport`."""
    from .local_transport import LocalTransport

    transport = LocalTransport(verify=verify)
    return dict.fromkeys(LOCAL_HOSTS, transport)


class HttpProvider(ABC):
    """Base of the adapters: an ``httpx.AsyncClient`` (injected, or created and
    then owned and closed by :meth:`aclose`), header building, streamed requests
    with error mapping and JSON GETs."""

    #: what a 404 that names no model asks to check (the base URL, as this
    #: kind of server wants it)
    endpoint_not_found_hint = ENDPOINT_NOT_FOUND_HINT

    def __init__(
        self,
        name: str,
        base_url: str,
        api_key: str | None = None,
        *,
        client: httpx.AsyncClient | None = None,
        timeout: float | httpx.Timeout | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.strip().rstrip("/")
        self._api_key = (api_key or "").strip() or None
        self._timeout = make_timeout(timeout) if timeout is not None else None
        self._owns_client = client is None
        self._client = client if client is not None else self._new_client()
        self._in_use = 0  # requests using the client now (streams until they end)
        self._retired = False  # closed by ``aclose``: the client goes when idle
        self._closing: asyncio.Task[None] | None = None

    def _new_client(self) -> httpx.AsyncClient:
        verify = ssl_context()
        return httpx.AsyncClient(
            timeout=self._timeout or DEFAULT_TIMEOUT, mounts=local_mounts(verify), verify=verify
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    async def __aenter__(self) -> HttpProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client if this provider created it: now when no
        request is using it, else when the last one ends. A provider replaced
        in Settings (``ProviderService``) thus lets the answers streaming
        through it finish, while new requests go to its successor; one asked
        again after closing (an agent's next round) opens a client for that
        request, closed again when it ends."""
        self._retired = True
        if self._owns_client and not self._in_use:
            await self._client.aclose()

    @asynccontextmanager
    async def _using(self) -> AsyncIterator[httpx.AsyncClient]:
        """The client for one request (a stream: until it ends), counted so
        that a retired provider closes it only when no request needs it."""
        if self._owns_client and self._client.is_closed:
            self._client = self._new_client()
        client = self._client
        self._in_use += 1
        try:
            yield client
        finally:
            self._in_use -= 1
            if self._retired and self._owns_client and not self._in_use:
                # shielded: a Stop that ended this request does not leave the
                # client half closed
                self._closing = asyncio.ensure_future(client.aclose())
                await asyncio.shield(self._closing)

    @abstractmethod
    def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer; implemented by each adapter."""

    @abstractmethod
    async def list_models(self) -> list[ModelInfo]:
        """The models the server offers; implemented by each adapter."""

    def _error_from(self, response: httpx.Response) -> ProviderError:
        return error_from_response(
            response, provider=self.name, endpoint_hint=self.endpoint_not_found_hint
        )

    def _url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def _auth_headers(self) -> dict[str, str]:
        """Vendor authentication headers; overridden by the adapters."""
        return {}

    def _headers(self, *, streaming: bool = False) -> dict[str, str]:
        if self._api_key is not None and not is_clean_api_key(self._api_key):
            # a key saved before keys were checked: never sent, never quoted
            # (the transports' errors repeat a header value they refuse)
            raise ConfigError(BAD_KEY_MESSAGE)
        headers = {"content-type": "application/json", "user-agent": USER_AGENT}
        headers["accept"] = "text/event-stream" if streaming else "application/json"
        headers.update(self._auth_headers())
        return headers

    def _request_timeout(self) -> Any:
        return self._timeout if self._timeout is not None else httpx.USE_CLIENT_DEFAULT

    @asynccontextmanager
    async def _open_stream(
        self,
        url: str,
        content: bytes,
        *,
        accept: str = "text/event-stream",
        reasoning: bool = False,
    ) -> AsyncIterator[httpx.Response]:
        """POST the encoded body (``request_body.request_content``: a long
        history is built and encoded off the Qt thread) and yield the streamed
        2xx response; raise the typed error for any other status or transport
        failure. Leaving the block (including by cancellation) closes the
        response at once. ``reasoning``: the body carries a reasoning level,
        so a plain refusal whose words are about reasoning says how to stop
        sending it."""
        headers = {**self._headers(streaming=True), "accept": accept}
        started = False
        try:
            async with (
                self._using() as client,
                client.stream(
                    "POST", url, content=content, headers=headers, timeout=self._request_timeout()
                ) as response,
            ):
                if not response.is_success:
                    await response.aread()
                    error = self._error_from(response)
                    if (
                        reasoning
                        and type(error) is BadRequestError
                        and error.hint == BadRequestError.default_hint
                        and blames_reasoning(error.message)
                    ):
                        error.hint = REASONING_REFUSED_HINT
                    raise error
                if "text/html" in response.headers.get("content-type", ""):
                    raise MalformedStreamError(
                        f"{url} answered with a web page, not a model stream",
                        hint="Check the provider's base URL.",
                        provider=self.name,
                    )
                started = True
                yield response
        except (httpx.RequestError, httpx.InvalidURL) as exc:
            raise network_error(exc, url, provider=self.name, streaming=started) from exc

    async def _get_json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``path`` and return its JSON, mapping failures to typed errors."""
        url = self._url(path)
        try:
            async with self._using() as client:
                response = await client.get(
                    url, params=params, headers=self._headers(), timeout=self._request_timeout()
                )
        except (httpx.RequestError, httpx.InvalidURL) as exc:
            raise network_error(exc, url, provider=self.name) from exc
        if not response.is_success:
            raise self._error_from(response)
        try:
            return response.json()
        except ValueError:
            raise MalformedStreamError(
                f"{url} did not answer JSON: {excerpt(response.text)!r}", provider=self.name
            ) from None

    async def _post_json(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> Any:
        """POST ``body`` and return the JSON answer (embeddings, rerank, images),
        mapping failures to typed errors; ``timeout`` (seconds) for slow ones."""
        return await self._post(path, self._headers(), timeout, json=body)

    async def _post_form(
        self,
        path: str,
        fields: dict[str, str],
        files: dict[str, tuple[str, bytes, str]],
        *,
        timeout: float | None = None,
    ) -> Any:
        """POST a multipart form — text ``fields`` and ``files`` as ``(file
        name, bytes, content type)`` — and return the JSON answer (speech to
        text), mapping failures like :meth:`_post_json`. httpx writes the
        form's content type, with its boundary."""
        headers = {k: v for k, v in self._headers().items() if k != "content-type"}
        return await self._post(path, headers, timeout, data=fields, files=files)

    async def _post(
        self, path: str, headers: dict[str, str], timeout: float | None, **content: Any
    ) -> Any:
        """POST ``content`` (httpx's ``json=``, or ``data=`` and ``files=``) and
        return the JSON answer; failures become typed errors."""
        url = self._url(path)
        wait = make_timeout(timeout) if timeout is not None else self._request_timeout()
        try:
            async with self._using() as client:
                response = await client.post(url, headers=headers, timeout=wait, **content)
        except (httpx.RequestError, httpx.InvalidURL) as exc:
            raise network_error(exc, url, provider=self.name) from exc
        if not response.is_success:
            raise self._error_from(response)
        try:
            return response.json()
        except ValueError:
            raise MalformedStreamError(
                f"{url} did not answer JSON: {excerpt(response.text)!r}", provider=self.name
            ) from None

    async def _get_bytes(self, url: str) -> bytes:
        """GET a file the server linked to (a generated image), mapping failures."""
        try:
            async with self._using() as client:
                response = await client.get(url, timeout=make_timeout(60.0))
        except (httpx.RequestError, httpx.InvalidURL) as exc:
            raise network_error(exc, url, provider=self.name) from exc
        if not response.is_success:
            raise self._error_from(response)
        return response.content


@functools.cache
def ssl_context() -> ssl.SSLContext:
    """The default certificate-verifying SSL context, built once (it costs ~50 ms)."""
    return httpx.create_ssl_context()


def make_timeout(timeout: float | httpx.Timeout) -> httpx.Timeout:
    """An ``httpx.Timeout`` from seconds (connect capped at 10 s) or as given."""
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT))
