"""Removing secrets from what an export shows (PRODUCT.md §9): tool-call
arguments, a message's structured ``data`` and stored error messages. Message
text is the conversation itself and is never touched.

Three rules, all replacing with ``***``:

* **by name** — a value under a key whose name is secret (:func:`is_secret_name`,
  by its words: ``api_key``, ``apiKey``, ``X-API-Key``, ``OPENAI_KEY``,
  ``access_token``, ``auth``, ``Authorization``, ``password``, ``passwd``,
  ``pwd``, ``passphrase``, ``client_secret``, ``private_key``, ``cookie``,
  ``session``…; not ``keyword``, ``keys``, ``monkey``, nor counts and limits
  such as ``max_tokens``, ``prompt_tokens`` or ``token_count``), in nested
  dicts and lists. Everything inside such a value is hidden; booleans and
  nulls stay (they reveal nothing).
* **by pair** — the value of a header or variable given as a pair:
  ``[["X-Api-Key", "…"]]`` (a list of pairs) or ``{"name": "X-Api-Key",
  "value": "…"}`` (also ``key`` / ``header`` / ``field`` for ``name``).
* **by shape** — inside any string: ``Bearer …`` / ``Basic …`` credentials,
  ``Authorization:`` headers, OpenAI / Anthropic / GitHub / Hugging Face /
  Slack / Google / AWS keys, JWTs, private-key blocks, ``name=value`` /
  ``name: value`` pairs and ``--flag value`` options whose name is secret,
  the password of ``scheme://user:password@host`` URLs, and passwords given
  to commands (``sshpass -p``, ``mysql -pPASSWORD``, ``openssl … pass:…`` /
  ``-k``, ``curl -u user:password``). A string holding a JSON object or
  array is read as one (a tool call's arguments): rewritten only when
  something in it was masked.

Redaction is idempotent: redacting twice gives the same result."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

log = logging.getLogger(__name__)

MASK = "***"

#: a name with a word ending in one of these is secret (``PGPASSWORD``,
#: ``accessToken``, ``clientSecret``, ``MYSQL_PWD``, ``oauth``, ``set-cookie``)
_SECRET_ENDINGS = (
    "token",
    "secret",
    "secrets",
    "password",
    "passwords",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "auth",
    "authorization",
    "credential",
    "credentials",
    "cookie",
    "cookies",
)
#: … and a name with one of these words
_SECRET_WORDS = frozenset(
    {
        "session",
        "sessionid",
        "bearer",
        "jwt",
        "apikey",
        "apikeys",
        "accesskey",
        "secretkey",
        "privatekey",
        "authkey",
        "masterkey",
    }
)
#: ``…_key`` is secret after one of these (``api_key``, ``private_key``); an
#: environment variable's name (``OPENAI_KEY``) always
_KEY_QUALIFIERS = frozenset(
    {
        "api",
        "private",
        "access",
        "client",
        "encryption",
        "signing",
        "master",
        "ssh",
        "gpg",
        "pgp",
        "app",
        "application",
        "consumer",
        "subscription",
        "license",
        "licence",
        "account",
        "service",
        "shared",
        "admin",
        "deploy",
        "webhook",
    }
)
#: a name with one of these words is a count, limit or kind, not a secret
#: (``max_tokens``, ``token_count``, ``token_type``, ``password_length``)
_NOT_SECRET_WORDS = frozenset(
    {
        "count",
        "counts",
        "limit",
        "limits",
        "budget",
        "max",
        "min",
        "total",
        "length",
        "len",
        "size",
        "num",
        "number",
        "type",
        "kind",
        "ttl",
        "expires",
        "expiry",
        "url",
        "uri",
        "endpoint",
        "no",
    }
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
#: the fields of ``{"name": "X-Api-Key", "value": "…"}`` naming the value
_PAIR_NAMES = ("name", "key", "header", "field")

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
    # a credential, not a word: a digit, a symbol or a capital after its first
    # letter ("Basic authentication", "token rotation." are prose, kept)
    (
        re.compile(
            r"\b((?i:bearer|basic|token))\s+(?!\*\*\*)"
            r"(?=[A-Za-z0-9._~+/=-]*[0-9_~+/=-]|[A-Za-z][A-Za-z0-9._~+/=-]*[A-Z])"
            r"[A-Za-z0-9._~+/=-]{8,}"
        ),
        r"\1 " + MASK,
    ),
    (re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{8,}"), MASK),
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,})"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{16,}"), MASK),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), MASK),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MASK),
    # passwords given to commands in their own way
    (
        re.compile(r"\b(sshpass(?:\s+-[a-oq-zA-Z]\S*)*\s+-p)(\s*)(?!\*\*\*)([^\s'\"]+)"),
        r"\1\2" + MASK,
    ),
    (
        re.compile(r"\b((?:mysql\w*|mariadb\w*)\b[^\n|;&]*?\s-p)(?!\*\*\*)([^\s'\"]+)"),
        r"\1" + MASK,
    ),
    (re.compile(r"\b(openssl\b[^\n|;&]*?\s-k\s+)(?!\*\*\*)([^\s'\"]+)"), r"\1" + MASK),
    (
        re.compile(
            r"\b(curl\b[^\n|;&]*?\s(?:-u|-U|--user|--proxy-user)(?:\s+|=)['\"]?[^\s:'\"]+:)"
            r"(?!\*\*\*)([^\s'\"]+)"
        ),
        r"\1" + MASK,
    ),
    (
        re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]+):(?!\*\*\*@)[^@\s/]+@"),
        r"\1:" + MASK + "@",
    ),
)
# ``name=value`` / ``"name": "value"``: tried at every word's start (a name
# that is not secret must not hide a secret one inside its value)
_NAMED = re.compile(r"""\b(?=([A-Za-z0-9_.-]+)(["']?\s*[=:]\s*["']?)(?!\*\*\*)([^\s"'&,;}\]]+))""")
_FLAG = re.compile(r"(?<!\S)(--?([A-Za-z][A-Za-z0-9_.-]*))\s+(?![-*])(\S+)")


def is_secret_name(name: str) -> bool:
    """Whether a value under ``name`` is a secret, by the name's words."""
    words = [word.lower() for word in _WORD.findall(name)]
    if not words or not _NOT_SECRET_WORDS.isdisjoint(words):
        return False
    if not _SECRET_WORDS.isdisjoint(words) or words[-1] == "pass":  # pass, db_pass
        return True
    if any(word.endswith(_SECRET_ENDINGS) for word in words):
        return True
    if words[-1] in ("key", "keys") and len(words) > 1:
        return words[-2] in _KEY_QUALIFIERS or bool(_ENV_NAME.fullmatch(name))
    return False


def redact_text(text: str) -> str:
    """Mask credential-shaped substrings of ``text``."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    text = _mask_named(text)
    return _FLAG.sub(_flag, text)


def _mask_named(text: str) -> str:
    spans = sorted({(m.start(3), m.end(3)) for m in _NAMED.finditer(text) if is_secret_name(m[1])})
    if not spans:
        return text
    out: list[str] = []
    done = 0
    for start, end in spans:
        if start >= done:
            out.append(text[done:start] + MASK)
            done = end
    return "".join(out) + text[done:]


def _flag(match: re.Match[str]) -> str:
    if not is_secret_name(match[2]) or match[3].endswith(MASK):
        return match[0]
    return f"{match[1]} {MASK}"


def redact(value: Any) -> Any:
    """A copy of a JSON-like value with secrets masked (see the module docstring)."""
    if isinstance(value, dict):
        return _redact_dict(value)
    if isinstance(value, list | tuple):
        if value and all(_is_pair(v) for v in value):
            return [[v[0], _mask_all(v[1])] if is_secret_name(v[0]) else redact(v) for v in value]
        return [redact(v) for v in value]
    if isinstance(value, str):
        return _redact_string(value)
    return value


def _is_pair(value: Any) -> bool:
    return isinstance(value, list | tuple) and len(value) == 2 and isinstance(value[0], str)


def _redact_dict(value: dict[Any, Any]) -> dict[str, Any]:
    named = next((value[k] for k in _PAIR_NAMES if isinstance(value.get(k), str)), None)
    secret_value = "value" in value and named is not None and is_secret_name(named)
    return {
        str(k): _mask_all(v) if secret_value and k == "value" else _redact_item(str(k), v)
        for k, v in value.items()
    }


def _redact_string(text: str) -> str:
    """A JSON object or array in a string is redacted as one (its pairs and
    names are seen), and written again only when something was masked."""
    if text.lstrip()[:1] in ("{", "["):
        try:
            parsed = json.loads(text)
        except ValueError:
            return redact_text(text)
        if isinstance(parsed, dict | list):
            masked = redact(parsed)
            return text if masked == parsed else json.dumps(masked, ensure_ascii=False)
    return redact_text(text)


def _redact_item(name: str, value: Any) -> Any:
    return _mask_all(value) if is_secret_name(name) else redact(value)


def _mask_all(value: Any) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return {str(k): _mask_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask_all(v) for v in value]
    return MASK
