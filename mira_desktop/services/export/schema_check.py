"""A small JSON Schema (2020-12) validator for the subset Mira's own schemas
use — ``type``, ``const``, ``enum``, ``required``, ``properties``,
``additionalProperties``, ``items``, ``minimum``, ``maximum``, ``minLength``, ``pattern``,
``oneOf``, ``anyOf``, local ``$ref`` (``#/$defs/…``) and ``format``
``date-time`` (a time :func:`~mira_desktop.core.ids.parse_time` reads: the
app sorts and groups by it, so a time it cannot read is an error, not an
annotation). Other formats and descriptions are annotations only, as the
specification allows.

It exists so the importer can check a file against the published schema
without a new dependency; an unsupported keyword raises at once instead of
being silently ignored."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from ...core.ids import format_time, parse_time

log = logging.getLogger(__name__)

_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "default", "examples"})
_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def load_schema(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a JSON Schema object")
    return data


def _type_ok(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    expected = _TYPES.get(name)
    if expected is None:
        raise ValueError(f"unsupported JSON Schema type {name!r}")
    if expected is dict or expected is list:
        return isinstance(value, expected)
    return isinstance(value, expected) and (expected is bool or not isinstance(value, bool))


class Validator:
    def __init__(self, schema: dict[str, Any], *, max_errors: int = 20) -> None:
        self.root = schema
        self.max_errors = max_errors

    def errors(self, value: Any) -> list[str]:
        """Problems of ``value`` as ``"$.messages[3].role: …"`` lines (empty: valid)."""
        found: list[str] = []
        self._check(value, self.root, "$", found)
        return found[: self.max_errors]

    def _resolve(self, ref: str) -> dict[str, Any]:
        if not ref.startswith("#/"):
            raise ValueError(f"only local $ref is supported, not {ref!r}")
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return dict(node)

    def _check(self, value: Any, schema: dict[str, Any], path: str, found: list[str]) -> None:
        if len(found) >= self.max_errors:
            return
        for keyword, rule in schema.items():
            if keyword in _ANNOTATIONS:
                continue
            checker = getattr(self, "_kw_" + keyword.lstrip("$"), None)
            if checker is None:
                raise ValueError(f"unsupported JSON Schema keyword {keyword!r}")
            checker(value, rule, schema, path, found)

    def _kw_ref(self, value: Any, rule: str, schema: Any, path: str, found: list[str]) -> None:
        self._check(value, self._resolve(rule), path, found)

    def _kw_type(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        names = rule if isinstance(rule, list) else [rule]
        if not any(_type_ok(value, n) for n in names):
            found.append(f"{path}: expected {' or '.join(names)}, got {_kind(value)}")

    def _kw_const(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if value != rule or type(value) is not type(rule):
            found.append(f"{path}: expected {json.dumps(rule)}, got {json.dumps(value)[:60]}")

    def _kw_enum(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if value not in rule:
            found.append(f"{path}: {json.dumps(value)[:60]} is not one of {json.dumps(rule)}")

    def _kw_required(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if isinstance(value, dict):
            found.extend(f"{path}: missing required key {k!r}" for k in rule if k not in value)

    def _kw_properties(
        self, value: Any, rule: Any, schema: Any, path: str, found: list[str]
    ) -> None:
        if isinstance(value, dict):
            for key, sub in rule.items():
                if key in value:
                    self._check(value[key], sub, f"{path}.{key}", found)

    def _kw_additionalProperties(
        self, value: Any, rule: Any, schema: Any, path: str, found: list[str]
    ) -> None:
        if not isinstance(value, dict):
            return
        extra = [k for k in value if k not in schema.get("properties", {})]
        for key in extra:
            if rule is False:
                found.append(f"{path}: unexpected key {key!r}")
            elif isinstance(rule, dict):
                self._check(value[key], rule, f"{path}.{key}", found)

    def _kw_items(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if isinstance(value, list):
            for index, item in enumerate(value):
                self._check(item, rule, f"{path}[{index}]", found)

    def _kw_minimum(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if _type_ok(value, "number") and value < rule:
            found.append(f"{path}: {value} is less than {rule}")

    def _kw_maximum(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if _type_ok(value, "number") and value > rule:
            found.append(f"{path}: {value} is more than {rule}")

    def _kw_minLength(
        self, value: Any, rule: Any, schema: Any, path: str, found: list[str]
    ) -> None:
        if isinstance(value, str) and len(value) < rule:
            found.append(f"{path}: shorter than {rule} character(s)")

    def _kw_pattern(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if isinstance(value, str) and not re.search(rule, value):
            found.append(f"{path}: {value[:40]!r} does not match {rule}")

    def _kw_format(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if rule == "date-time" and isinstance(value, str) and not is_time(value):
            found.append(f"{path}: {value[:40]!r} is not a date and time")

    def _branches(self, value: Any, rule: Any, path: str) -> int:
        return sum(1 for sub in rule if not self._sub_errors(value, sub, path))

    def _sub_errors(self, value: Any, schema: dict[str, Any], path: str) -> list[str]:
        found: list[str] = []
        self._check(value, schema, path, found)
        return found

    def _kw_oneOf(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        matched = self._branches(value, rule, path)
        if matched == 0:
            self._no_shape(value, rule, path, found)
        elif matched > 1:
            found.append(f"{path}: does not match exactly one allowed shape")

    def _kw_anyOf(self, value: Any, rule: Any, schema: Any, path: str, found: list[str]) -> None:
        if self._branches(value, rule, path) == 0:
            self._no_shape(value, rule, path, found)

    def _no_shape(self, value: Any, rule: Any, path: str, found: list[str]) -> None:
        """No branch matched: the problems of the one branch of the value's
        type when there is one (``usage: null or an object``: the object's
        field that is wrong), else that no shape matched."""
        typed = [sub for sub in rule if _typed_as(value, sub)]
        if len(typed) == 1:
            found.extend(self._sub_errors(value, typed[0], path))
        else:
            found.append(f"{path}: does not match any allowed shape")


def _typed_as(value: Any, schema: dict[str, Any]) -> bool:
    names = schema.get("type")
    if names is None:
        return False
    return any(_type_ok(value, n) for n in (names if isinstance(names, list) else [names]))


def is_time(value: str) -> bool:
    """Whether ``value`` is a time the app reads (and can write as UTC)."""
    try:
        format_time(parse_time(value))
    except (ValueError, OverflowError):
        return False
    return True


def _kind(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _type_ok(value, name):
            return name
    return type(value).__name__
