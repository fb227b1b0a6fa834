"""Removing secrets from what an export shows (PRODUCT.md §9): tool-call
arguments, a message's structured ``data`` and stored error messages. Message
text is the conversation itself and is never touched.

Two rules, both replacing with ``***``:

* **by name** — a value under a key that looks secret (``*key*``, ``*token*``,
  ``*secret*``, ``password``/``passwd``, ``authorization``, ``*credential*``,
  ``cookie``), case-insensitive, in nested dicts and lists. Everything inside
  such a value is hidden. Booleans and nulls stay (they reveal nothing), and so
  do integers under ``*tokens`` names (``max_tokens`` is a count, not a secret).
* **by shape** — inside any string: ``Bearer …`` / ``Basic …`` credentials,
  ``Authorization:`` headers, OpenAI / Anthropic / GitHub / Hugging Face /
  Slack / Google / AWS keys, JWTs, private-key blocks, ``name=value`` pairs
  and ``--flag value`` options whose name looks secret, and the password of
  ``scheme://user:password@host`` URLs.

Redaction is idempotent: redacting twice gives the same result."""

from __future__ import annotations

import logging
import re
from typing import Any

log = logging.getLogger(__name__)

MASK = "***"

_SECRET_NAME = re.compile(
    r"key|token|secret|passw(?:or)?d|authorization|credential|cookie", re.IGNORECASE
)
_COUNT_NAME = re.compile(r"tokens$", re.IGNORECASE)

_NAME = r"[A-Za-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|credential)[A-Za-z0-9_.-]*"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
            re.DOTALL,
        ),
        MASK,
    ),
    (
        re.compile(r"\b((?:proxy-)?authorization)(\"?\s*[:=]\s*\"?)[^\r\n\"']+", re.I),
        r"\1\2" + MASK,
    ),
    (re.compile(r"\b(bearer|basic|token)\s+(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}", re.I), r"\1 " + MASK),
    (re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}"), MASK),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{16,}"), MASK),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), MASK),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MASK),
    (
        re.compile(rf"(?i)\b({_NAME})([\"']?\s*[=:]\s*[\"']?)(?!\*\*\*)([^\s\"'&,;}}\]]+)"),
        r"\1\2" + MASK,
    ),
    (re.compile(rf"(?i)(?<!\S)(--?{_NAME})\s+(?![-*])(\S+)"), r"\1 " + MASK),
    (
        re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+):(?!\*\*\*@)[^@\s/]+@"),
        r"\1:" + MASK + "@",
    ),
)


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def redact_text(text: str) -> str:
    """Mask credential-shaped substrings of ``text``."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def redact(value: Any) -> Any:
    """A copy of a JSON-like value with secrets masked (see the module docstring)."""
    if isinstance(value, dict):
        return {str(k): _redact_item(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def _redact_item(name: str, value: Any) -> Any:
    if not is_secret_name(name):
        return redact(value)
    if isinstance(value, int) and not isinstance(value, bool) and _COUNT_NAME.search(name):
        return value
    return _mask_all(value)


def _mask_all(value: Any) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return {str(k): _mask_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask_all(v) for v in value]
    return MASK
