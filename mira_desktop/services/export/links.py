"""Which link targets an HTML export makes clickable (PRODUCT.md §9).

Allowed: ``http:``, ``https:``, ``mailto:``, ``tel:`` and relative targets
(``page.html``, ``../a``, ``/abs/path``, ``#frag``, ``?q``). Everything else
stays text: ``javascript:``, ``vbscript:``, ``data:``, ``file:`` and any other
scheme.

The check is made on a *decoded and cleaned* copy of the target, the way a
browser would read it: HTML entities decoded (``&#106;avascript:``), percent
escapes decoded (``%6Aavascript:``), ASCII control characters and all
whitespace removed (``java\\tscript:``, `` javascript:``, ``\\x01javascript:``),
backslashes read as slashes. If that copy has a scheme (letters, digits,
``+ - .`` then ``:`` before any ``/ ? #``), the scheme must be allowed.

Protocol-relative targets (``//host/x``, ``\\\\host``, ``/\\host``) are **refused**:
they are not relative to the page but name another host, and in a file opened
from disk they become ``file://host/…`` (a network share on Windows)."""

from __future__ import annotations

import html
import logging
import re
from urllib.parse import unquote

log = logging.getLogger(__name__)

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto", "tel"})

_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028\u2029\u2060\ufeff\s]+")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*):")


def _decoded(url: str) -> str:
    """Decode entities and percent escapes until stable (a few rounds at most)."""
    text = url
    for _ in range(4):
        decoded = unquote(html.unescape(text))
        if decoded == text:
            break
        text = decoded
    return _INVISIBLE.sub("", text).replace("\\", "/")


def link_kind(url: str) -> str | None:
    """``"web"``, ``"mailto"``, ``"tel"`` or ``"relative"`` for a target an export
    may link to; None for one it must show as text."""
    cleaned = _decoded(url)
    if not cleaned:
        return None
    if cleaned.startswith("//"):
        return None
    match = _SCHEME.match(cleaned)
    if match is None:
        # a ":" before the first "/", "?" or "#" without a valid scheme shape
        # (e.g. "1x:y") is not something browsers agree on: refuse it
        head = re.split(r"[/?#]", cleaned, maxsplit=1)[0]
        return None if ":" in head else "relative"
    scheme = match.group(1).lower()
    if scheme not in ALLOWED_SCHEMES:
        return None
    return "web" if scheme in ("http", "https") else scheme


def is_safe_href(url: str) -> bool:
    return link_kind(url) is not None
