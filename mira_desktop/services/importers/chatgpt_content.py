"""What one node of a ChatGPT ``conversations.json`` becomes: a message (with
its role, text, model, status and times), reasoning to hand to the next
answer (``thoughts`` nodes), or nothing (system and hidden nodes, empty
messages, context the user never saw).

Content that is not plain text becomes a readable placeholder instead of a
crash: images and audio (``multimodal_text`` asset pointers) are named (an
image found in the export ZIP replaces its placeholder: ``chatgpt_files``),
Code Interpreter input (``code``) and output (``execution_output``) become
fenced code, quotes and browsing results keep their text, and an unknown
content type says what it was."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ...core.ids import format_time
from ...core.models import MessageRole, MessageStatus
from ...core.transfer import AssetRef
from ..export.markdown import fence

log = logging.getLogger(__name__)

_ROLES = {"user": MessageRole.USER, "assistant": MessageRole.ASSISTANT, "tool": MessageRole.TOOL}
_SKIPPED_TYPES = frozenset({"user_editable_context", "model_editable_context", "reasoning_recap"})
_COMPLETE = frozenset({"finished_successfully", "", None})


@dataclass(frozen=True, slots=True)
class NodeContent:
    """``kind``: ``"message"``, ``"thinking"`` (text for the next answer) or ``"skip"``."""

    kind: str
    role: MessageRole | None = None
    text: str = ""
    model: str | None = None
    status: MessageStatus = MessageStatus.COMPLETE
    created: float | None = None
    updated: float | None = None
    images: tuple[AssetRef, ...] = ()  # pictures the text names by placeholder


SKIP = NodeContent("skip")


def epoch_time(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


def iso(epoch: float | None, fallback: str) -> str:
    if epoch is None:
        return fallback
    try:
        return format_time(datetime.fromtimestamp(epoch, UTC))
    except (OverflowError, OSError, ValueError):
        return fallback


def _asset(part: dict[str, Any]) -> str:
    kind = str(part.get("content_type") or "attachment")
    pointer = str(part.get("asset_pointer") or "").strip()
    where = f": {pointer}" if pointer else ""
    if kind == "image_asset_pointer":
        size = ""
        if part.get("width") and part.get("height"):
            size = f", {part['width']}×{part['height']}"
        return f"[Image not imported{where}{size}]"
    if kind == "audio_transcription":
        return str(part.get("text") or "")
    if "audio" in kind:
        return f"[Audio not imported{where}]"
    if isinstance(part.get("text"), str):
        return str(part["text"])
    return f"[{kind} not imported{where}]"


def images_of(content: dict[str, Any]) -> tuple[AssetRef, ...]:
    """The pictures of a ``multimodal_text`` message: each asset pointer, the
    placeholder :func:`content_text` wrote for it, and what the export says
    of it (a generated picture's prompt, its size)."""
    parts = content.get("parts")
    if not isinstance(parts, list):
        return ()
    return tuple(
        AssetRef(
            str(part["asset_pointer"]).strip(),
            _asset(part),
            prompt=_prompt(part),
            width=_size(part.get("width")),
            height=_size(part.get("height")),
        )
        for part in parts
        if isinstance(part, dict)
        and part.get("content_type") == "image_asset_pointer"
        and str(part.get("asset_pointer") or "").strip()
    )


def _prompt(part: dict[str, Any]) -> str:
    """The prompt a generated picture was drawn from (DALL·E's metadata)."""
    metadata = _dict(part.get("metadata"))
    prompt = _dict(metadata.get("dalle")).get("prompt") or metadata.get("prompt")
    return " ".join(prompt.split()) if isinstance(prompt, str) else ""


#: the largest side of a picture taken from the export (Qt's sizes are 32-bit)
MAX_SIDE = (1 << 31) - 1


def _size(value: Any) -> int:
    """A picture's side from the export; 0 (unknown: measured from its bytes)
    when it is not a positive number Mira can hold."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_SIDE
    return value if ok else 0


def _parts(parts: Any) -> str:
    if not isinstance(parts, list):
        return ""
    pieces = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            pieces.append(_asset(part))
        elif part is not None:
            pieces.append(str(part))
    return "\n\n".join(p for p in pieces if p.strip())


def _thoughts(content: dict[str, Any]) -> str:
    items = content.get("thoughts")
    if not isinstance(items, list):
        return ""
    texts = []
    for item in items:
        if isinstance(item, dict):
            texts += [str(item[k]) for k in ("summary", "content") if item.get(k)]
    return "\n\n".join(texts)


def content_text(content: dict[str, Any]) -> str:
    """The readable text of a message's ``content`` (placeholders included)."""
    kind = str(content.get("content_type") or "text")
    if kind in ("text", "multimodal_text"):
        return _parts(content.get("parts"))
    if kind == "code":
        language = str(content.get("language") or "")
        return fence(str(content.get("text") or ""), "" if language == "unknown" else language)
    if kind == "execution_output":
        return f"Output:\n\n{fence(str(content.get('text') or ''))}"
    if kind == "tether_quote":
        quoted = "\n".join(f"> {line}" for line in str(content.get("text") or "").splitlines())
        source = " ".join(str(content.get(k) or "") for k in ("title", "url")).strip()
        return f"{quoted}\n\n— {source}" if source else quoted
    if kind == "tether_browsing_display":
        return str(content.get("result") or content.get("summary") or "")
    if kind == "system_error":
        return f"[Error] {content.get('name') or ''}: {content.get('text') or ''}".strip()
    for key in ("text", "result"):
        if isinstance(content.get(key), str) and content[key].strip():
            return str(content[key])
    if content.get("parts"):
        return _parts(content.get("parts"))
    return f"[{kind} content not imported]"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _status(value: Any) -> MessageStatus:
    """``finished_successfully`` (or none) is complete; anything else was cut off."""
    if value is None or (isinstance(value, str) and value in _COMPLETE):
        return MessageStatus.COMPLETE
    return MessageStatus.STOPPED


def read_node(message: Any) -> NodeContent:
    """What a mapping node's ``message`` becomes (see the module docstring)."""
    if not isinstance(message, dict):
        return SKIP
    author, metadata, content = (_dict(message.get(k)) for k in ("author", "metadata", "content"))
    kind = str(content.get("content_type") or "text")
    role = _ROLES.get(str(author.get("role") or ""))
    if (
        role is None
        or metadata.get("is_visually_hidden_from_conversation")
        or metadata.get("is_user_system_message")
        or kind in _SKIPPED_TYPES
    ):
        return SKIP
    if kind == "thoughts":
        thoughts = _thoughts(content)
        return NodeContent("thinking", text=thoughts) if thoughts else SKIP
    text = content_text(content) if content else ""
    if not text.strip():
        return SKIP
    slug = metadata.get("model_slug") or metadata.get("default_model_slug")
    return NodeContent(
        "message",
        role=role,
        text=text,
        model=str(slug) if slug else None,
        status=_status(message.get("status")),
        created=epoch_time(message.get("create_time")),
        updated=epoch_time(message.get("update_time")),
        images=images_of(content),
    )
