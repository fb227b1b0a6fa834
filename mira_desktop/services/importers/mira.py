"""Reading Mira's own JSON export (``mira.thread`` version 1) back into threads
to write. The whole document is checked first — against the published JSON
Schema, then for a sound tree (unique ids, parents inside the thread, no
cycles, an active leaf that exists) — so a bad file imports nothing.

Imported threads get ``source = "import:mira"`` and ``source_ref`` = the id
they had in the exporting library — unless the exporting library had
imported them itself (``source`` ``import:…``): then they keep that origin
(``import:chatgpt`` and the conversation's id), so a thread moved to another
machine is still known there as that ChatGPT conversation, and importing
the ChatGPT export again skips it instead of duplicating it; they land in the live list (a thread
exported from the trash is not put back in the trash); an answer exported
while streaming comes in ``stopped``; the thread's knowledge base is bound
again when this library has it (same id, else same name). Ids are kept when
free (storage decides). Times are stored as the app writes them (UTC, ``Z``):
the schema check refused any the app cannot read, and one written with an
offset (``+08:00``) would otherwise sort among the others by its text."""

from __future__ import annotations

import logging
from typing import Any

from ...core.agent import imported_cards
from ...core.errors import InvalidImportError
from ...core.ids import format_time, parse_time
from ...core.models import Message, MessageRole, MessageStatus, Thread, Usage
from ...core.transfer import AttachmentRecord, ThreadImport
from ..export.json_format import FORMAT, VERSION
from ..export.schema_check import Validator

log = logging.getLogger(__name__)

SOURCE = "import:mira"


def is_mira_document(value: Any) -> bool:
    return isinstance(value, dict) and value.get("format") == FORMAT


def _check_version(doc: dict[str, Any], where: str) -> None:
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        raise InvalidImportError(
            f"{where} was made by a newer Mira (format version {version}).",
            hint="Update Mira Desktop, then import the file again; nothing was imported.",
        )


def _parent_first(messages: list[dict[str, Any]], where: str) -> list[dict[str, Any]]:
    """The messages ordered so every parent comes before its children (file
    order otherwise kept); raise on duplicates, unknown parents and cycles."""
    by_id: dict[str, dict[str, Any]] = {}
    for message in messages:
        if message["id"] in by_id:
            raise InvalidImportError(f"{where}: the message id {message['id']} appears twice.")
        by_id[message["id"]] = message
    ordered: list[dict[str, Any]] = []
    placed: set[str] = set()
    for message in messages:
        chain: list[dict[str, Any]] = []
        in_chain: set[str] = set()
        current: dict[str, Any] | None = message
        while current is not None and current["id"] not in placed:
            if current["id"] in in_chain:
                raise InvalidImportError(f"{where}: the messages' parents form a cycle.")
            chain.append(current)
            in_chain.add(current["id"])
            parent = current.get("parent_id")
            if parent is not None and parent not in by_id:
                raise InvalidImportError(
                    f"{where}: message {current['id']} has a parent ({parent}) that is not in the file."
                )
            current = by_id.get(parent) if parent is not None else None
        for item in reversed(chain):
            placed.add(item["id"])
            ordered.append(item)
    return ordered


def _time(value: str) -> str:
    """A time of the file (checked by the schema) as the app stores times."""
    return format_time(parse_time(value))


def _optional_time(value: str | None) -> str | None:
    return None if value is None else _time(value)


def _usage(value: dict[str, Any] | None) -> Usage | None:
    if not value:
        return None
    return Usage(
        prompt_tokens=int(value.get("prompt_tokens") or 0),
        completion_tokens=int(value.get("completion_tokens") or 0),
        reasoning_tokens=int(value.get("reasoning_tokens") or 0),
        counts_estimated=bool(value.get("counts_estimated", value.get("estimated", False))),
        reasoning_estimated=bool(value.get("reasoning_estimated", False)),
    )


def _status(value: str) -> MessageStatus:
    """An answer exported while it was being written is not written any more
    here (nobody owns it): it comes in stopped, as one cut off."""
    status = MessageStatus(value)
    return MessageStatus.STOPPED if status is MessageStatus.STREAMING else status


def _message(item: dict[str, Any], thread_id: str) -> Message:
    return Message(
        id=item["id"],
        thread_id=thread_id,
        role=MessageRole(item["role"]),
        text=item["text"],
        created_at=_time(item["created_at"]),
        updated_at=_time(item.get("updated_at") or item["created_at"]),
        parent_id=item.get("parent_id"),
        status=_status(item["status"]),
        thinking=item.get("thinking") or "",
        thinking_ms=item.get("thinking_ms"),
        model=item.get("model"),
        provider=item.get("provider"),
        usage=_usage(item.get("usage")),
        error=item.get("error"),
        data=imported_cards(item.get("data")),  # their journal stayed behind
        deleted_at=_optional_time(item.get("deleted_at")),
    )


def _attachments(item: dict[str, Any]) -> tuple[AttachmentRecord, ...]:
    return tuple(
        AttachmentRecord(
            name=a["name"],
            mime=a["mime"],
            sha256=a["sha256"],
            size=a["size"],
            kind="image" if a.get("kind") == "image" else "file",
            transcript=a["transcript"] if isinstance(a.get("transcript"), str) else None,
        )
        for a in item.get("attachments") or ()
    )


def _thread(info: dict[str, Any], where: str, message_ids: set[str]) -> Thread:
    leaf = info.get("active_leaf_id")
    if leaf is not None and leaf not in message_ids:
        raise InvalidImportError(f"{where}: the active message {leaf} is not in the file.")
    return Thread(
        id=info["id"],
        title=info["title"],
        workspace_id="",
        created_at=_time(info["created_at"]),
        updated_at=_time(info["updated_at"]),
        model=info.get("model"),
        agent_enabled=bool(info.get("agent_enabled", False)),
        mode=info.get("mode") or "chat",
        tts_enabled=bool(info.get("tts_enabled", False)),
        image_enabled=bool(info.get("image_enabled", False)),
        pinned=bool(info.get("pinned", False)),
        archived=bool(info.get("archived", False)),
        source=_origin(info)[0],
        active_leaf_id=leaf,
    )


def _origin(info: dict[str, Any]) -> tuple[str, str]:
    """(``source``, ``source_ref``) of an imported thread (module docstring)."""
    source, ref = info.get("source"), info.get("source_ref")
    if isinstance(source, str) and source.startswith("import:") and isinstance(ref, str) and ref:
        return source, ref
    return SOURCE, info["id"]


def parse_document(doc: Any, validator: Validator, where: str = "The file") -> ThreadImport:
    """One ``mira.thread`` document as a :class:`ThreadImport` (or raise)."""
    if not is_mira_document(doc):
        raise InvalidImportError(f"{where} is not a Mira thread export (format mira.thread).")
    _check_version(doc, where)
    problems = validator.errors(doc)
    if problems:
        shown = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise InvalidImportError(f"{where} does not match the mira.thread format: {shown}{more}.")
    ordered = _parent_first(doc["messages"], where)
    info = doc["thread"]
    thread = _thread(info, where, {m["id"] for m in ordered})
    kb = info.get("knowledge_base") or {}
    return ThreadImport(
        thread=thread,
        source_ref=_origin(info)[1],
        workspace_name=info["workspace"]["name"],
        provider_name=info.get("provider"),
        role_name=info.get("role"),
        kb_id=kb.get("id"),
        kb_name=kb.get("name"),
        messages=tuple(_message(m, thread.id) for m in ordered),
        attachments={m["id"]: a for m in ordered if (a := _attachments(m))},
    )


def parse_documents(docs: list[Any], validator: Validator) -> list[ThreadImport]:
    if len(docs) == 1:
        return [parse_document(docs[0], validator)]
    return [
        parse_document(doc, validator, f"Thread {index} of the file")
        for index, doc in enumerate(docs, start=1)
    ]
