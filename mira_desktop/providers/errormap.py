"""Mapping of failures to the typed errors of ``core.errors``: an HTTP error
answer (status, JSON error object in the OpenAI, Ollama or Anthropic shape, or
plain text) or an error object met inside a stream becomes the matching
``ProviderError`` carrying the provider's own message; ``Retry-After`` becomes
``RateLimitError.retry_after``; httpx transport failures become ``NetworkError``
naming the URL (or ``MalformedStreamError`` when a stream is cut short)."""

from __future__ import annotations

import html
import json
import logging
import math
import re
import ssl
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple

import httpx

from mira_desktop.core.errors import (
    AuthenticationError,
    BadRequestError,
    ContextOverflowError,
    MalformedStreamError,
    ModelNotFoundError,
    NetworkError,
    ProviderError,
    RateLimitError,
    ServerError,
    worded,
)

log = logging.getLogger(__name__)

TRUNCATED_MESSAGE = "The stream ended before the answer was complete"
#: the hint of a refused request that carried a reasoning level (a model that
#: does not think, a server that does not know the field)
REASONING_REFUSED_HINT = (
    "The server may not take a reasoning level for this model: set Reasoning effort to "
    "“Server's default” (the ⋯ menu, or Settings → Models)."
)
#: the hint of a 404 that names no model: the base URL leads nowhere (LM
#: Studio's "Unexpected endpoint or method", Ollama's "404 page not found")
ENDPOINT_NOT_FOUND_HINT = (
    "Check the provider's base URL: the server has no such address "
    "(OpenAI-compatible servers need /v1 at its end, e.g. http://localhost:11434/v1)."
)
#: the same for Ollama's own API and Anthropic's, whose base URLs end without
#: /v1 (their adapters add the paths)
OLLAMA_ENDPOINT_NOT_FOUND_HINT = (
    "Check the provider's base URL: the server has no such address (Ollama's own API "
    "is at the server's root, without /v1, e.g. http://localhost:11434)."
)
ANTHROPIC_ENDPOINT_NOT_FOUND_HINT = (
    "Check the provider's base URL: the server has no such address (Anthropic's API "
    "is at https://api.anthropic.com, without /v1)."
)
#: the words of a refusal that is about the reasoning level (OpenAI's
#: "reasoning_effort", Ollama's "does not support thinking", Anthropic's
#: "thinking" / "budget_tokens"…)
_REASONING_WORDS = re.compile(r"reasoning|effort|think|budget_tokens", re.IGNORECASE)
#: the hint of a refusal for a used-up quota or credit (OpenAI's
#: ``insufficient_quota``, sent with 429 like a rate limit)
QUOTA_HINT = (
    "The account's quota or credit is used up: check the plan and billing with the "
    "provider (waiting will not help)."
)
_QUOTA_WORDS = re.compile(r"insufficient_quota|exceeded your current quota", re.IGNORECASE)
#: a header value a transport quotes when it refuses it (h11: "Illegal header
#: value b'Bearer sk-…\\n'"), and credentials however else they appear: never
#: repeated in an error or a log line
_HEADER_VALUE = re.compile(r"(header value)\s*b?(['\"]).*?(?<!\\)\2", re.IGNORECASE | re.DOTALL)
_CREDENTIAL = re.compile(
    r"\b(x-api-key|api[-_]key|authorization)(['\"]?\s*[:=]\s*['\"]?)(?:(?:Bearer|Basic)\s+)?\S+"
    r"|\b(Bearer|Basic)\s+\S+",
    re.IGNORECASE,
)
_EXCERPT_CHARS = 80
_MESSAGE_CHARS = 500

_HTML_START = re.compile(
    r"(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
    re.IGNORECASE | re.DOTALL,
)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_CONTEXT_PATTERNS = re.compile(
    r"context_length_exceeded|maximum context length|prompt is too long|"
    r"exceeds? the context window|context window|exceeds the available context size|"
    r"input is too long|context size has been exceeded|exceed context limit|"
    r"when context the overflows|model is loaded with context length of only",
    re.IGNORECASE,
)
#: overflows said with HTTP 500 (llama.cpp's server in some versions, LM Studio
#: behind proxies): only the servers' own sentences, so an ordinary server
#: error mentioning the context (or a prompt) stays a server error
_CONTEXT_PATTERNS_500 = re.compile(
    r"context_length_exceeded|maximum context length|"
    r"exceeds the available context size|context size has been exceeded|"
    r"when context the overflows|model is loaded with context length of only",
    re.IGNORECASE,
)
_CONTEXT_TYPES = {"context_length_exceeded", "exceed_context_size_error"}
_MODEL_NOT_FOUND = re.compile(
    r"\bmodel\s+(?:[\"'`][^\"'`]*[\"'`]|\S+)\s+(?:was\s+)?(?:not\s+found|does\s+not\s+exist)"
    r"|\bmodel[_ ]not[_ ]found\b",
    re.IGNORECASE,
)
_AUTH_TYPES = {"authentication_error", "permission_error", "invalid_api_key", "unauthorized"}
#: a model's own words in a refusal: "model" not inside a path ("/v1/models")
_MODEL_WORD = re.compile(r"(?<![/\w])model\b", re.IGNORECASE)
_RATE_TYPES = {"rate_limit_error", "rate_limit_exceeded", "insufficient_quota"}
_QUOTA_TYPES = {"insufficient_quota", "billing_hard_limit_reached"}
_SERVER_TYPES = {"overloaded_error", "api_error", "server_error", "internal_server_error"}
_BAD_REQUEST_TYPES = {"invalid_request_error", "request_too_large", "bad_request"}


class ErrorInfo(NamedTuple):
    """The parts of an error answer: the provider's message, ``type`` and ``code``."""

    message: str
    type: str | None = None
    code: str | None = None


def excerpt(text: str, limit: int = _EXCERPT_CHARS) -> str:
    """A short, single-line quote of ``text`` for error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def scrub(text: str) -> str:
    """``text`` (a transport's error) without the header values or
    credentials it may quote."""
    text = _HEADER_VALUE.sub(r"\1 (not shown)", text)
    return _CREDENTIAL.sub(
        lambda m: f"{m.group(1)}{m.group(2)}***" if m.group(1) else f"{m.group(3)} ***", text
    )


def error_info_from_obj(obj: Any) -> ErrorInfo | None:
    """Read an error object: OpenAI ``{"error":{"message","type","code"}}``, Ollama
    ``{"error":"..."}``, Anthropic ``{"type":"error","error":{...}}``, or a bare
    ``{"message": ...}`` / ``{"detail": ...}``. ``None`` when it is no error object."""
    if not isinstance(obj, dict):
        return None
    err = obj.get("error")
    if isinstance(err, dict):
        message = err.get("message") or err.get("msg") or ""
        code = err.get("code")
        return ErrorInfo(
            str(message) if message else json.dumps(err)[:_MESSAGE_CHARS],
            str(err["type"]) if err.get("type") is not None else None,
            str(code) if code is not None else None,
        )
    if isinstance(err, str):
        return ErrorInfo(err)
    for key in ("message", "detail"):
        if isinstance(obj.get(key), str):
            return ErrorInfo(obj[key], str(obj["type"]) if obj.get("type") else None)
    return None


def error_info_from_body(body: bytes, status: int, reason: str = "") -> ErrorInfo:
    """Parse an error answer's body: a JSON error object, else its plain text;
    a web page (a proxy's or Cloudflare's 502, 504, 413…) by its title."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        info = error_info_from_obj(json.loads(text)) if text else None
    except ValueError:
        info = None
    if info is not None and info.message:
        return info
    if _HTML_START.match(text):
        title = _HTML_TITLE.search(text)
        text = " ".join(html.unescape(title.group(1)).split()) if title else ""
    if text:
        return ErrorInfo(text[:_MESSAGE_CHARS])
    return ErrorInfo(f"HTTP {status} {reason}".strip())


def blames_reasoning(message: str) -> bool:
    """True when a refusal's words are about reasoning (the level or thinking):
    only then does its hint say how to stop sending a reasoning level."""
    return bool(_REASONING_WORDS.search(message))


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or an HTTP date) or
    ``retry-after-ms``; ``None`` when absent or unreadable."""
    value = headers.get("retry-after")
    if value is not None:
        value = value.strip()
        try:
            seconds = float(value)
        except ValueError:
            seconds = None
        if seconds is not None:
            return max(0.0, seconds) if math.isfinite(seconds) else None
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError, IndexError):
            log.debug("Unreadable Retry-After header %r", value)
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            log.debug("Unreadable retry-after-ms header %r", millis)
    return None


def is_context_overflow(info: ErrorInfo, status: int | None = None) -> bool:
    """True when an error says the prompt does not fit the model's window:
    a 400, 413 or 422 answer or an error inside a stream (``status`` None)
    by its code or words, a 500 only by its code or unmistakable words."""
    if status not in (None, 400, 413, 422, 500):
        return False
    if {info.code, info.type} & _CONTEXT_TYPES:
        return True
    patterns = _CONTEXT_PATTERNS_500 if status == 500 else _CONTEXT_PATTERNS
    return bool(patterns.search(info.message))


def classify_error(
    info: ErrorInfo,
    status: int | None = None,
    *,
    retry_after: float | None = None,
    provider: str | None = None,
    endpoint_hint: str = ENDPOINT_NOT_FOUND_HINT,
) -> ProviderError:
    """The typed error for an HTTP status (``None`` inside a stream) and error info;
    ``endpoint_hint``: what to check when the address is not found (per kind)."""
    kinds = {info.type, info.code} - {None}
    kw: dict[str, Any] = {"status": status, "provider": provider}
    if status in (401, 403) or kinds & _AUTH_TYPES:
        return AuthenticationError(info.message, **kw)
    if is_context_overflow(info, status):
        return ContextOverflowError(info.message, **kw)
    if status == 429 or kinds & _RATE_TYPES:
        if kinds & _QUOTA_TYPES or _QUOTA_WORDS.search(info.message):
            kw["hint"] = QUOTA_HINT
        return RateLimitError(info.message, retry_after=retry_after, **kw)
    not_found = status == 404 or "not_found_error" in kinds
    if (
        "model_not_found" in kinds
        or _MODEL_NOT_FOUND.search(info.message)
        or (not_found and _MODEL_WORD.search(info.message))
    ):
        return ModelNotFoundError(info.message, **kw)
    if not_found:
        return BadRequestError(info.message, hint=endpoint_hint, **kw)
    if (status is not None and status >= 500) or kinds & _SERVER_TYPES:
        return ServerError(info.message, **kw)
    if (status is not None and 400 <= status < 500) or kinds & _BAD_REQUEST_TYPES:
        return BadRequestError(info.message, **kw)
    return ServerError(info.message, **kw)


def error_from_stream_obj(obj: Any, *, provider: str | None = None) -> ProviderError | None:
    """The typed error for an error object met inside a stream, else ``None``.
    A numeric ``code`` in the HTTP error range is used as the status."""
    info = error_info_from_obj(obj)
    if info is None:
        return None
    status = int(info.code) if info.code and info.code.isdigit() else None
    if status is not None and not 400 <= status < 600:
        status = None
    return classify_error(info, status, provider=provider)


def error_from_response(
    response: httpx.Response,
    *,
    provider: str | None = None,
    endpoint_hint: str = ENDPOINT_NOT_FOUND_HINT,
) -> ProviderError:
    """The typed error for a non-success answer whose body has been read
    (``endpoint_hint``: see :func:`classify_error`)."""
    if response.is_redirect:
        location = response.headers.get("location", "?")
        return BadRequestError(
            f"{response.request.url} redirected to {location}",
            hint="Update the provider's base URL to the new address.",
            status=response.status_code,
            provider=provider,
        )
    info = error_info_from_body(response.content, response.status_code, response.reason_phrase)
    retry_after = parse_retry_after(response.headers)
    error = classify_error(
        info,
        response.status_code,
        retry_after=retry_after,
        provider=provider,
        endpoint_hint=endpoint_hint,
    )
    log.info(
        "%s answered HTTP %s: %s (%s)",
        provider,
        response.status_code,
        excerpt(info.message, 200),
        error.code,
    )
    return error


#: OpenSSL's reasons for a handshake answered in plain text: a server that
#: speaks HTTP, not HTTPS, at that address (WRONG_VERSION_NUMBER up to OpenSSL
#: 3.1, RECORD_LAYER_FAILURE from 3.2, PACKET_LENGTH_TOO_LONG for some answers)
_PLAIN_HTTP_REASONS = frozenset(
    {"WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG"}
)
PLAIN_HTTP_MESSAGE = "The server at {address} does not speak HTTPS: it answers in plain HTTP."
PLAIN_HTTP_HINT = (
    "Start the provider's base URL with http://{address} instead of https://{address}."
)


def _answers_plain_http(exc: BaseException) -> bool:
    """True when ``exc`` (or what caused it) is a TLS handshake that met a
    plain-HTTP answer."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if (
            isinstance(current, ssl.SSLError)
            and getattr(current, "reason", None) in _PLAIN_HTTP_REASONS
        ):
            return True
        # aiohttp keeps the system's (or OpenSSL's) error as ``os_error``
        pending += [current.__cause__, current.__context__, getattr(current, "os_error", None)]
    return False


def _https_address(url: str) -> str | None:
    """``host:port`` of an https ``url`` (443 when it names none), else None."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return None
    if parsed.scheme != "https" or not parsed.host:
        return None
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    return f"{host}:{parsed.port or 443}"


def network_error(
    exc: Exception, url: str, *, provider: str | None = None, streaming: bool = False
) -> ProviderError:
    """Map an httpx failure to a typed error naming ``url``. A connection cut while
    the body streams — closed early (``RemoteProtocolError``) or reset
    (``ReadError``/``WriteError``, httpx's own transport for remote servers) —
    is a truncated answer."""
    kw: dict[str, Any] = {"provider": provider}
    if streaming and isinstance(
        exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError
    ):
        log.info("Stream from %s cut short: %s", url, scrub(str(exc)))
        return MalformedStreamError(TRUNCATED_MESSAGE, **kw)
    address = _https_address(url) if isinstance(exc, httpx.ConnectError) else None
    if address is not None and _answers_plain_http(exc):
        # https:// typed for a local server (LM Studio, Ollama) that speaks
        # HTTP: OpenSSL's "wrong version number" tells people nothing
        error = worded(
            NetworkError,
            PLAIN_HTTP_MESSAGE,
            {"address": address},
            hint_template=PLAIN_HTTP_HINT,
            **kw,
        )
        log.info("%s (%s)", error.message, scrub(str(exc)))
        return error
    fields = {"url": url, "detail": scrub(str(exc)) or type(exc).__name__}
    if isinstance(exc, httpx.DecodingError):
        return worded(
            MalformedStreamError, "Could not decode the answer of {url}: {detail}", fields, **kw
        )
    if isinstance(exc, httpx.ConnectTimeout):
        template = "Timed out connecting to {url}"
    elif isinstance(exc, httpx.TimeoutException):
        template = "Timed out waiting for {url}"
    elif isinstance(exc, httpx.ConnectError):
        template = "Could not connect to {url}: {detail}"
    elif isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        template = "Invalid server URL {url}: {detail}"
    else:
        template = "The connection to {url} failed: {detail}"
    error = worded(NetworkError, template, fields, **kw)
    log.info("%s", error.message)
    return error
