"""JSON export: the ``mira.thread`` document, version 1, described by
``resources/export/mira-thread.schema.json`` (JSON Schema 2020-12).

It holds the WHOLE message tree — every branch, trashed messages flagged
(``deleted_at`` as stored; ``trashed`` is also true under a trashed
ancestor) — the thread's metadata, attachment metadata (no bytes) and the
diagnostics of every message. ``data`` (a message's structured run
information), errors and tool-call arguments are redacted. Importing the
document (``importers/mira.py``) recreates the thread."""

from __future__ import annotations

import json
import logging
from typing import Any

from ...core.models import Message
from ...core.transfer import AttachmentRecord, ThreadSnapshot
from .diagnostics import APP_NAME, ExportMeta, redacted_error, tool_calls, usage_dict
from .redact import redact
from .tree import trashed_ids

log = logging.getLogger(__name__)

FORMAT = "mira.thread"
VERSION = 1
SCHEMA_FILE = ("export", "mira-thread.schema.json")


def _attachment(record: AttachmentRecord) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": record.name,
        "mime": record.mime,
        "sha256": record.sha256,
        "size": record.size,
        "kind": record.kind,
        "available": record.available,
    }
    if record.transcript is not None:
        data["transcript"] = record.transcript
    return data


def _message(
    message: Message, hidden: frozenset[str], active: set[str], snapshot: ThreadSnapshot
) -> dict[str, Any]:
    return {
        "id": message.id,
        "parent_id": message.parent_id,
        "role": str(message.role),
        "status": str(message.status),
        "text": message.text,
        "thinking": message.thinking,
        "thinking_ms": message.thinking_ms,
        "model": message.model,
        "provider": message.provider,
        "created_at": message.created_at,
        "updated_at": message.updated_at or message.created_at,
        "deleted_at": message.deleted_at,
        "trashed": message.id in hidden,
        "on_active_branch": message.id in active,
        "usage": usage_dict(message.usage),
        "error": redacted_error(message.error),
        "tool_calls": tool_calls(message.data),
        "data": redact(message.data) if message.data is not None else None,
        "attachments": [_attachment(a) for a in snapshot.attachments.get(message.id, ())],
    }


def _active_ids(snapshot: ThreadSnapshot) -> set[str]:
    parents = {m.id: m.parent_id for m in snapshot.messages}
    active: set[str] = set()
    current = snapshot.thread.active_leaf_id
    while current and current in parents and current not in active:
        active.add(current)
        current = parents[current]
    return active


def _thread(snapshot: ThreadSnapshot) -> dict[str, Any]:
    thread = snapshot.thread
    return {
        "id": thread.id,
        "title": thread.title,
        "created_at": thread.created_at,
        "updated_at": thread.updated_at,
        "source": thread.source,
        "source_ref": snapshot.source_ref,
        "workspace": {"name": snapshot.workspace_name},
        "pinned": thread.pinned,
        "archived": thread.archived,
        "trashed_at": thread.deleted_at,
        "active_leaf_id": thread.active_leaf_id,
        "provider": snapshot.provider_name,
        "model": thread.model,
        "role": snapshot.role_name,
        "knowledge_base": (
            {"id": thread.kb_id, "name": snapshot.kb_name}
            if thread.kb_id and snapshot.kb_name is not None
            else None
        ),
        "mode": thread.mode,
        "agent_enabled": thread.agent_enabled,
        "tts_enabled": thread.tts_enabled,
        "image_enabled": thread.image_enabled,
    }


def thread_document(snapshot: ThreadSnapshot, meta: ExportMeta) -> dict[str, Any]:
    hidden = trashed_ids(snapshot.messages)
    active = _active_ids(snapshot)
    messages = [_message(m, hidden, active, snapshot) for m in snapshot.messages]
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": meta.exported_at,
        "app": {"name": APP_NAME, "version": meta.app_version},
        "thread": _thread(snapshot),
        "messages": messages,
        "diagnostics": {
            "message_count": len(messages),
            "trashed_count": len(hidden),
            "branch_count": _leaf_count(snapshot, hidden),
        },
    }


def _leaf_count(snapshot: ThreadSnapshot, hidden: frozenset[str]) -> int:
    live = [m for m in snapshot.messages if m.id not in hidden]
    parents = {m.parent_id for m in live}
    return sum(1 for m in live if m.id not in parents)


def dumps(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def thread_json(snapshot: ThreadSnapshot, meta: ExportMeta) -> str:
    return dumps(thread_document(snapshot, meta))
