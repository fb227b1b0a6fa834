"""What an API key may hold: the printable ASCII of an HTTP header value, no
space. A key pasted from a web page or an e-mail often brings a line break, a
non-breaking or zero-width space along; sent as is, it would either fail inside
the transport (whose error repeats the header value, key and all) or be refused
by the server. :func:`clean_api_key` strips the ends and refuses the rest, in
words that never quote the key."""

from __future__ import annotations

from .errors import ConfigError

BAD_KEY_MESSAGE = (
    "The API key contains characters a key cannot have (a line break, a space or an "
    "invisible character): paste it again."
)


def is_clean_api_key(key: str) -> bool:
    """True when every character of ``key`` is visible ASCII (``!`` to ``~``)."""
    return all("!" <= char <= "~" for char in key)


def clean_api_key(key: str) -> str:
    """``key`` without surrounding white space; ConfigError (not quoting it)
    when a character inside cannot go into an HTTP header as a key."""
    stripped = key.strip()
    if not is_clean_api_key(stripped):
        raise ConfigError(BAD_KEY_MESSAGE)
    return stripped
