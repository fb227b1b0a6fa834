"""Conversions between database rows (dicts) and the core value types."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..core.models import (
    Message,
    MessageRole,
    MessageStatus,
    ModelInfo,
    ModelTier,
    ProviderConfig,
    ProviderKind,
    Reasoning,
    Role,
    Thread,
    Usage,
    Workspace,
)


def loads(text: str | None) -> Any:
    return json.loads(text) if text else None


def dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def workspace(row: dict[str, Any]) -> Workspace:
    return Workspace(
        id=row["id"],
        name=row["name"],
        color=row["color"],
        root_dir=row["root_dir"],
        sort_order=row["sort_order"],
        is_default=bool(row["is_default"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def thread(row: dict[str, Any]) -> Thread:
    return Thread(
        id=row["id"],
        title=row["title"],
        workspace_id=row["workspace_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        provider_id=row["provider_id"],
        model=row["model"],
        role_id=row["role_id"],
        kb_id=row["kb_id"],
        agent_enabled=bool(row["agent_enabled"]),
        mode=row["mode"],
        tts_enabled=bool(row["tts_enabled"]),
        image_enabled=bool(row["image_enabled"]),
        pinned=bool(row["pinned"]),
        pin_order=row["pin_order"],
        archived=bool(row["archived"]),
        deleted_at=row["deleted_at"],
        source=row["source"],
        active_leaf_id=row["active_leaf_id"],
    )


# The members by stored value: a dict lookup where ``MessageRole(value)`` goes
# through Enum's call machinery (~0.8 µs; two a message, 5,000 messages when a
# long thread opens). Unknown values still raise as the Enum call does.
_ROLES = {member.value: member for member in MessageRole}
_STATUSES = {member.value: member for member in MessageStatus}

#: the ``messages`` columns a :class:`Message` is read from
_MESSAGE_COLUMNS = (
    "id",
    "thread_id",
    "role",
    "text",
    "created_at",
    "updated_at",
    "parent_id",
    "status",
    "thinking",
    "thinking_ms",
    "model",
    "provider",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "usage_estimated",
    "reasoning_estimated",
    "error_json",
    "data_json",
    "deleted_at",
)

MessageReader = Callable[..., Message]


def message_reader(columns: Sequence[str]) -> MessageReader:
    """A function that makes a :class:`Message` of a plain row (a tuple) of a
    ``SELECT`` with these ``columns`` (``cursor.description``'s names):
    ``read(row)``, or ``read(row, sibling_index, sibling_count)`` when the
    caller worked the siblings out itself. Without them, the row's
    ``sibling_index`` / ``sibling_count`` columns are used when selected.

    For bulk reads: a dict per row (``Database.query``) was a fifth of loading
    a 5,000-message thread."""
    at = {name: i for i, name in enumerate(columns)}
    missing = [name for name in _MESSAGE_COLUMNS if name not in at]
    if missing:
        raise ValueError(f"a message row needs the columns {', '.join(missing)}")
    (
        i_id,
        i_thread,
        i_role,
        i_text,
        i_created,
        i_updated,
        i_parent,
        i_status,
        i_thinking,
        i_thinking_ms,
        i_model,
        i_provider,
        i_prompt,
        i_completion,
        i_reasoning,
        i_usage_est,
        i_reasoning_est,
        i_error,
        i_data,
        i_deleted,
    ) = (at[name] for name in _MESSAGE_COLUMNS)
    i_index, i_count = at.get("sibling_index"), at.get("sibling_count")
    roles, statuses = _ROLES, _STATUSES

    def read(
        row: Sequence[Any], sibling_index: int | None = None, sibling_count: int | None = None
    ) -> Message:
        prompt, completion = row[i_prompt], row[i_completion]
        if prompt is None and completion is None:
            used = None
        else:
            used = Usage(
                prompt_tokens=prompt or 0,
                completion_tokens=completion or 0,
                reasoning_tokens=row[i_reasoning] or 0,
                counts_estimated=bool(row[i_usage_est]),
                reasoning_estimated=bool(row[i_reasoning_est]),
            )
        if sibling_index is None:
            sibling_index = (row[i_index] if i_index is not None else 0) or 0
        if sibling_count is None:
            sibling_count = (row[i_count] if i_count is not None else 1) or 1
        role, status, error, data = row[i_role], row[i_status], row[i_error], row[i_data]
        return Message(
            id=row[i_id],
            thread_id=row[i_thread],
            role=roles.get(role) or MessageRole(role),
            text=row[i_text],
            created_at=row[i_created],
            updated_at=row[i_updated],
            parent_id=row[i_parent],
            status=statuses.get(status) or MessageStatus(status),
            thinking=row[i_thinking],
            thinking_ms=row[i_thinking_ms],
            model=row[i_model],
            provider=row[i_provider],
            usage=used,
            error=json.loads(error) if error else None,
            data=json.loads(data) if data else None,
            deleted_at=row[i_deleted],
            sibling_index=sibling_index,
            sibling_count=sibling_count,
        )

    return read


@lru_cache(maxsize=16)
def _reader(columns: tuple[str, ...]) -> MessageReader:
    return message_reader(columns)


def message(row: Mapping[str, Any]) -> Message:
    """A :class:`Message` of a row as a dict (``Database.query``)."""
    return _reader(tuple(row))(tuple(row.values()))


def message_row(msg: Message, owner: str | None = None) -> dict[str, Any]:
    """Column values of a message, for INSERT."""
    u = msg.usage
    return {
        "id": msg.id,
        "thread_id": msg.thread_id,
        "parent_id": msg.parent_id,
        "role": str(msg.role),
        "status": str(msg.status),
        "text": msg.text,
        "thinking": msg.thinking,
        "thinking_ms": msg.thinking_ms,
        "model": msg.model,
        "provider": msg.provider,
        "prompt_tokens": u.prompt_tokens if u else None,
        "completion_tokens": u.completion_tokens if u else None,
        "reasoning_tokens": u.reasoning_tokens if u else None,
        "usage_estimated": int(u.counts_estimated) if u else 0,
        "reasoning_estimated": int(u.reasoning_estimated) if u else 0,
        "error_json": dumps(msg.error),
        "data_json": dumps(msg.data),
        "owner": owner,
        "deleted_at": msg.deleted_at,
        "created_at": msg.created_at,
        "updated_at": msg.updated_at or msg.created_at,
    }


def provider(row: dict[str, Any]) -> ProviderConfig:
    return ProviderConfig(
        id=row["id"],
        name=row["name"],
        kind=ProviderKind(row["kind"]),
        base_url=row["base_url"],
        has_key=bool(row["has_key"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def model(row: dict[str, Any]) -> ModelInfo:
    return ModelInfo(
        name=row["name"],
        provider_id=row["provider_id"],
        provider_name=row.get("provider_name", "") or "",
        display_name=row["display_name"],
        context_window=row["context_window"],
        vision=bool(row["vision"]),
        tier=ModelTier(row["tier"]) if row["tier"] else None,
        compaction_threshold=row["compaction_threshold"],
        reasoning=_reasoning(row.get("reasoning")),
    )


def _reasoning(value: Any) -> Reasoning | None:
    """A stored level; one this version does not know reads as the server's default."""
    try:
        return Reasoning(value) if value else None
    except ValueError:
        return None


def role(row: dict[str, Any]) -> Role:
    return Role(
        id=row["id"],
        name=row["name"],
        description=row["description"],
        persona=row["persona"],
        world_view=row["world_view"],
        scenario=row["scenario"],
        examples=row["examples"],
        style=row["style"],
        constraints=row["constraints"],
        temperature=row["temperature"],
        top_p=row["top_p"],
        max_tokens=row["max_tokens"],
    )


def remap_ids(value: Any, ids: dict[str, str]) -> Any:
    """A message's ``data`` with its references to copied messages
    (``regenerated_from``…) pointing at the copies: every string that is a
    key of ``ids`` becomes its value."""
    if isinstance(value, dict):
        return {k: remap_ids(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [remap_ids(v, ids) for v in value]
    if isinstance(value, str):
        return ids.get(value, value)
    return value
