"""The diagnostics every export carries (PRODUCT.md §9): who exported it and
when (:class:`ExportMeta`), and per message the model, provider, status,
timings, token usage (with its estimated flags), the error, and the tool calls
with their arguments — secrets masked (``redact``).

Tool calls are read from a message's ``data`` (``messages.data_json``): a list
under ``tool_calls`` (or ``tools`` / ``tool_cards``) whose items look like
OpenAI (``{"id", "function": {"name", "arguments"}}``), Anthropic
(``{"id", "name", "input"}``) or Mira's own cards
(``{"call_id", "name", "arguments", "status"}``)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from ...core.models import Message, Usage
from .redact import redact, redact_text

log = logging.getLogger(__name__)

APP_NAME = "Mira Desktop"
_TOOL_KEYS = ("tool_calls", "tools", "tool_cards")


@dataclass(frozen=True, slots=True)
class ExportMeta:
    app_version: str
    exported_at: str


def usage_dict(usage: Usage | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
        "counts_estimated": usage.counts_estimated,
        "reasoning_estimated": usage.reasoning_estimated,
        "estimated": usage.estimated,
    }


def usage_text(usage: Usage | None) -> str:
    """``prompt 11 · completion 5 · reasoning ≈3`` (≈ marks estimates)."""
    if usage is None:
        return ""
    counts = "≈" if usage.counts_estimated else ""
    parts = [
        f"prompt {counts}{usage.prompt_tokens}",
        f"completion {counts}{usage.completion_tokens}",
    ]
    if usage.reasoning_tokens:
        mark = "≈" if usage.reasoning_estimated else ""
        parts.append(f"reasoning {mark}{usage.reasoning_tokens}")
    text = ", ".join(parts)
    return f"{text} (estimated)" if usage.estimated else text


def duration_text(ms: int | None) -> str:
    if ms is None:
        return ""
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def redacted_error(error: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if error is None else redact(error)


def _arguments(raw: Any) -> Any:
    """Arguments as a value: JSON text is parsed when it parses."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tool_call(item: Any) -> dict[str, Any] | None:
    if not isinstance(item, dict):
        return None
    function = _dict(item.get("function"))
    name = item.get("name") or function.get("name") or item.get("tool") or "tool"
    raw = next(
        (
            source[k]
            for source in (item, function)
            for k in ("arguments", "args", "input")
            if k in source
        ),
        None,
    )
    call = {
        "id": item.get("id") or item.get("call_id"),
        "name": str(name),
        "arguments": redact(_arguments(raw)),
        "status": item.get("status"),
    }
    if isinstance(item.get("summary"), str) and item["summary"] != name:
        call["summary"] = redact_text(item["summary"])  # an agent's card (PRODUCT §11)
    return call


def tool_calls(data: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The tool calls recorded in a message's data, arguments redacted."""
    if not isinstance(data, dict):
        return []
    calls: list[dict[str, Any]] = []
    agent = _dict(data.get("agent"))  # the agent's tool cards (PRODUCT.md §11)
    for items in (*(data.get(key) for key in _TOOL_KEYS), agent.get("tools")):
        if isinstance(items, list):
            calls.extend(c for c in (_tool_call(i) for i in items) if c is not None)
    return calls


def arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return redact_text(arguments)
    return json.dumps(arguments, ensure_ascii=False, indent=2, sort_keys=True)


def message_diagnostics(message: Message) -> dict[str, Any]:
    """The per-message diagnostics, as plain values (the JSON export's shape)."""
    return {
        "model": message.model,
        "provider": message.provider,
        "status": str(message.status),
        "created_at": message.created_at,
        "updated_at": message.updated_at or message.created_at,
        "thinking_ms": message.thinking_ms,
        "usage": usage_dict(message.usage),
        "error": redacted_error(message.error),
        "tool_calls": tool_calls(message.data),
    }


def reasoning_level(data: dict[str, Any] | None) -> str:
    """The reasoning level an answer was asked with ("" when none was sent)."""
    level = data.get("reasoning") if isinstance(data, dict) else None
    return level if isinstance(level, str) else ""


def diagnostics_line(message: Message) -> list[tuple[str, str]]:
    """(label, value) pairs for the readable exports, empty values left out."""
    pairs = [
        ("model", message.model or ""),
        ("provider", message.provider or ""),
        ("status", str(message.status)),
        ("created", message.created_at),
        ("updated", message.updated_at or ""),
        ("thinking", duration_text(message.thinking_ms)),
        ("reasoning", reasoning_level(message.data)),
        ("tokens", usage_text(message.usage)),
    ]
    return [(label, value) for label, value in pairs if value]
