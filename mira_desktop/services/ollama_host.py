"""Where Ollama listens on this computer (PRODUCT.md §12: auto-detected at
localhost:11434): ``OLLAMA_HOST``, the variable Ollama itself reads, when it
is set, read by Ollama's own rules (its ``envconfig.Host``), else the default.
Standard library only.

Ollama's rules: spaces, then quotes, around the value are dropped (a service
file's ``"0.0.0.0:11434"``); without a scheme it is http on port 11434, after
``http://`` port 80, after ``https://`` port 443; a path after the address is
kept (a proxy's ``https://example.com/ollama``); a bare address or IPv6
address takes the default port, a bare ``:11435`` the default host; a port
that is no number from 0 to 65535 is the default port. What a server listens
on, a client cannot always connect to: everywhere (``0.0.0.0``, an empty
host, ``::``) is reached on this computer's loopback address."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping

DEFAULT_PORT = 11434
DEFAULT_URL = f"http://localhost:{DEFAULT_PORT}"
_DEFAULT_PORTS = {"http": 80, "https": 443}
_PORT = re.compile(r"[+-]?[0-9]+")


def ollama_url(environ: Mapping[str, str] | None = None) -> str:
    """The base URL to reach Ollama at (no trailing slash)."""
    raw = (os.environ if environ is None else environ).get("OLLAMA_HOST", "")
    value = raw.strip().strip("\"'").strip()
    if not value:
        return DEFAULT_URL
    scheme, named, hostport = value.partition("://")
    if not named:
        scheme, hostport = "http", value
    default_port = _DEFAULT_PORTS.get(scheme, DEFAULT_PORT) if named else DEFAULT_PORT
    scheme = scheme.lower()
    if scheme not in _DEFAULT_PORTS:  # unix:// and the like: no address to reach
        return DEFAULT_URL
    hostport, _, path = hostport.partition("/")
    split = _split_host_port(hostport)
    if split is None:
        host, port_text = _bare_host(hostport), str(default_port)
    else:
        host, port_text = split
    port = int(port_text) if _PORT.fullmatch(port_text) else -1
    if not 0 <= port <= 65535:
        port = default_port
    host = _reachable(host)
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    path = f"/{path}".rstrip("/") if path else ""
    return f"{scheme}://{host}:{port}{path}"


def ollama_address(url: str) -> str:
    """``url`` as the first-start screen shows it: without ``http://``
    (``localhost:11434``), with any other scheme."""
    return url.removeprefix("http://")


def _split_host_port(hostport: str) -> tuple[str, str] | None:
    """``host, port`` as Go's ``net.SplitHostPort`` splits them; ``None``
    where it fails (no port, an IPv6 address without brackets…)."""
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0 or hostport[end + 1 : end + 2] != ":":
            return None
        host, port = hostport[1:end], hostport[end + 2 :]
        if "[" in host or "]" in port or "[" in port:
            return None
        return host, port
    host, colon, port = hostport.rpartition(":")
    if not colon or ":" in host or "[" in host or "]" in host or "[" in port or "]" in port:
        return None
    return host, port


def _bare_host(hostport: str) -> str:
    """The host of an address written without a port: an IP address (IPv6
    with or without brackets), a name, or nothing (the loopback)."""
    try:
        return str(ipaddress.ip_address(hostport.strip("[]")))
    except ValueError:
        return hostport or "127.0.0.1"


def _reachable(host: str) -> str:
    """The address to connect to for a server listening on ``host``."""
    if not host:
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.is_unspecified:
        return "::1" if address.version == 6 else "127.0.0.1"
    mapped = getattr(address, "ipv4_mapped", None)
    return str(mapped) if mapped is not None else host
