"""The JSON of an import file, made safe to store (both formats): it must be
UTF-8 and valid JSON; a lone surrogate (``"\\ud83d"`` — half an emoji, as a
truncating exporter leaves it) cannot be written to the database, so in any
string, and any key, it becomes U+FFFD (the replacement character) instead
of aborting the whole import."""

from __future__ import annotations

import json
import re
from typing import Any

from ...core.errors import InvalidImportError

#: an escaped UTF-16 surrogate in the raw file: only these can make a lone one
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def loads(raw: bytes, name: str) -> Any:
    """The JSON of ``raw`` (the file ``name``), lone surrogates replaced."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InvalidImportError(f"{name} is not UTF-8 text.") from None
    except json.JSONDecodeError as exc:
        raise InvalidImportError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
        ) from None
    if _ESCAPED_SURROGATE.search(raw):  # else no string can hold one: no walk
        data = _repaired(data)
    return data


def _fixed(text: str) -> str:
    return _SURROGATE.sub(REPLACEMENT, text)


def _repaired(data: Any) -> Any:
    """``data`` with every lone surrogate replaced (in place; iterative, so
    deep nesting does not exhaust the stack)."""
    if isinstance(data, str):
        return _fixed(data)
    stack: list[Any] = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, str):
                    value[index] = _fixed(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
        elif isinstance(value, dict):
            if any(_SURROGATE.search(key) for key in value):
                items = list(value.items())
                value.clear()
                value.update((_fixed(key), item) for key, item in items)
            for key, item in value.items():
                if isinstance(item, str):
                    value[key] = _fixed(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
    return data
