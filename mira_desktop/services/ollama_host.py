"""Where Ollama listens on this computer (PRODUCT.md §12: auto-detected at
localhost:11434): ``OLLAMA_HOST``, the variable Ollama itself reads, when it
is set (``0.0.0.0:11500``, ``127.0.0.1``, ``http://box:11434``…), else the
default. Standard library only."""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

DEFAULT_PORT = 11434
DEFAULT_URL = f"http://localhost:{DEFAULT_PORT}"
#: addresses a server listens on that a client cannot connect to
_ANY = {"0.0.0.0", "::", "[::]", ""}


def ollama_url(environ: Mapping[str, str] | None = None) -> str:
    """The base URL to reach Ollama at (no trailing slash)."""
    value = (os.environ if environ is None else environ).get("OLLAMA_HOST", "").strip()
    if not value:
        return DEFAULT_URL
    parts = urlsplit(value if "://" in value else f"http://{value}")
    scheme = parts.scheme if parts.scheme in ("http", "https") else "http"
    try:
        port = parts.port
    except ValueError:  # not a number: the variable is not usable
        return DEFAULT_URL
    host = parts.hostname or ""
    host = "localhost" if host in _ANY else host
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    if port is None:
        port = 443 if scheme == "https" and "://" in value else DEFAULT_PORT
    path = parts.path.rstrip("/")
    return f"{scheme}://{host}:{port}{path}"
