"""ChatGPT's ``conversations.json`` (Settings → Data controls → Export data)
into threads: each conversation becomes a thread with its whole branch tree,
title and times; ``source`` is ``import:chatgpt`` and ``source_ref`` the
conversation's ``id`` (or ``conversation_id``; without either, a hash of title
and creation time), and each message's ``data`` names its node
(``SOURCE_NODE``), so a newer export of a conversation imported before adds
only what is new in it (``storage/import_merge.py``); the active leaf is
marked ``SOURCE_CURRENT``.

The tree comes from each node's ``parent``; a node that is not kept (system,
hidden, empty, null) passes its children up to its nearest kept ancestor, so
the tree stays connected. ``thoughts`` nodes become the thinking of the next
answer below them. The active branch is the path to ``current_node`` (its
nearest kept ancestor when it was skipped). A conversation whose parents go
round in a loop (a node its own parent, or ancestors that come back to it)
has nodes no walk from a root reaches: it is skipped, saying so, rather than
imported without them.

What counts as malformed (a clear error, nothing imported): not a list of
objects, a conversation without a ``mapping`` object, a node that is not an
object, or a ``message`` that is neither an object nor null. Odd content
inside a message is never an error (see ``chatgpt_content``)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...core.errors import InvalidImportError
from ...core.ids import new_id, utc_now
from ...core.models import Message, MessageRole, Thread
from ...core.transfer import SOURCE_CURRENT, SOURCE_NODE, AssetRef, SkippedThread, ThreadImport
from .chatgpt_content import NodeContent, epoch_time, iso, read_node

log = logging.getLogger(__name__)

SOURCE = "import:chatgpt"
UNTITLED = "Imported ChatGPT conversation"
NO_MESSAGES = "no messages to import"
LOOP = "its messages' parents form a loop"

Progress = Callable[[int, int], None]


def is_chatgpt_export(value: Any) -> bool:
    if isinstance(value, dict):
        return "mapping" in value
    return isinstance(value, list) and (
        not value or (isinstance(value[0], dict) and "mapping" in value[0])
    )


def source_ref(conversation: dict[str, Any]) -> str:
    for key in ("id", "conversation_id"):
        if isinstance(conversation.get(key), str) and conversation[key]:
            return str(conversation[key])
    seed = f"{conversation.get('title')}|{conversation.get('create_time')}"
    return "sha1:" + hashlib.sha1(seed.encode("utf-8")).hexdigest()


def _check(conversation: Any, where: str) -> dict[str, dict[str, Any]]:
    """The conversation's mapping, or raise if its structure is malformed."""
    if not isinstance(conversation, dict):
        raise InvalidImportError(f"{where} is not an object.")
    mapping = conversation.get("mapping")
    if not isinstance(mapping, dict):
        raise InvalidImportError(f"{where} has no “mapping” object (its message tree).")
    for node_id, node in mapping.items():
        if not isinstance(node, dict):
            raise InvalidImportError(f"{where}: node {node_id} is not an object.")
        if node.get("message") is not None and not isinstance(node["message"], dict):
            raise InvalidImportError(f"{where}: the message of node {node_id} is not an object.")
    return mapping


def _children(mapping: dict[str, dict[str, Any]]) -> dict[str | None, list[str]]:
    """Children by parent id (None: roots), in the parent's ``children`` order,
    then by creation time. A parent missing from the mapping makes a root."""
    found: dict[str | None, list[str]] = {}
    for node_id, node in mapping.items():
        parent = node.get("parent")
        key = parent if isinstance(parent, str) and parent in mapping else None
        found.setdefault(key, []).append(node_id)

    for parent, kids in found.items():
        # each child's place in the parent's list, looked up once (a node with
        # tens of thousands of children sorted in quadratic time otherwise)
        listed = mapping[parent].get("children") if parent else None
        places: dict[str, int] = {}
        for place, child in enumerate(listed if isinstance(listed, list) else ()):
            if isinstance(child, str):
                places.setdefault(child, place)  # the first, as list.index

        def order(child: str, places: dict[str, int] = places) -> tuple[int, float]:
            message = mapping[child].get("message") or {}
            return places.get(child, 1 << 30), epoch_time(message.get("create_time")) or 0.0

        kids.sort(key=order)
    return found


def _all_reached(mapping: dict[str, dict[str, Any]], children: dict[str | None, list[str]]) -> bool:
    """Whether every node descends from a root (not when parents loop)."""
    seen: set[str] = set()
    stack = list(children.get(None, []))
    while stack:
        node_id = stack.pop()
        if node_id not in seen:
            seen.add(node_id)
            stack.extend(children.get(node_id, []))
    return len(seen) == len(mapping)


class _Builder:
    """Walks one conversation's tree into messages (iteratively: deep trees)."""

    def __init__(self, thread_id: str, fallback_time: str) -> None:
        self.thread_id = thread_id
        self.fallback = fallback_time
        self.messages: list[Message] = []
        self.kept: dict[str, str] = {}  # node id -> message id
        self.images: dict[str, tuple[AssetRef, ...]] = {}  # message id -> its pictures

    def add(self, node_id: str, content: NodeContent, parent: str | None, thinking: str) -> str:
        created = iso(content.created, self.fallback)
        message = Message(
            id=new_id(),
            thread_id=self.thread_id,
            role=content.role or MessageRole.TOOL,
            text=content.text,
            created_at=created,
            updated_at=iso(content.updated, created),
            parent_id=parent,
            status=content.status,
            thinking=thinking if content.role is MessageRole.ASSISTANT else "",
            model=content.model,
            data={SOURCE_NODE: node_id},
        )
        self.messages.append(message)
        if not content.images:
            return message.id
        if message.role is MessageRole.USER:  # a question shows all its pictures
            self.images[message.id] = content.images
            return message.id
        return self._one_picture_each(message, content.images)

    def _one_picture_each(self, message: Message, refs: tuple[AssetRef, ...]) -> str:
        """An answer (a generated picture's tool message) shows one picture,
        as one Mira drew: a second or third becomes a message of its own
        below it, in the order they came. ``message`` was just added.
        Returns the last one's id (the message below them follows it)."""
        first, *rest = refs
        text = message.text
        for ref in rest:
            text = text.replace(ref.placeholder, "", 1)
        self.messages[-1] = replace(message, text=text.strip())
        self.images[message.id] = (first,)
        last = message.id
        node = (message.data or {}).get(SOURCE_NODE)
        for number, ref in enumerate(rest, start=2):
            extra = replace(
                message,
                id=new_id(),
                parent_id=last,
                text=ref.placeholder,
                thinking="",
                data={SOURCE_NODE: f"{node}#{number}"},
            )
            self.messages.append(extra)
            self.images[extra.id] = (ref,)
            last = extra.id
        return last

    def walk(
        self, mapping: dict[str, dict[str, Any]], children: dict[str | None, list[str]]
    ) -> None:
        stack: list[tuple[str, str | None, str]] = [
            (root, None, "") for root in reversed(children.get(None, []))
        ]
        seen: set[str] = set()
        while stack:
            node_id, parent, thinking = stack.pop()
            if node_id in seen:
                continue
            seen.add(node_id)
            content = read_node(mapping[node_id].get("message"))
            if content.kind == "message":
                parent, thinking = self.add(node_id, content, parent, thinking), ""
                self.kept[node_id] = parent
            elif content.kind == "thinking":
                thinking = f"{thinking}\n\n{content.text}".strip()
            stack.extend((kid, parent, thinking) for kid in reversed(children.get(node_id, [])))

    def active_leaf(self, mapping: dict[str, dict[str, Any]], current: Any) -> str | None:
        node_id = current if isinstance(current, str) else None
        seen: set[str] = set()
        while node_id is not None and node_id in mapping and node_id not in seen:
            if node_id in self.kept:
                return self.kept[node_id]
            seen.add(node_id)
            parent = mapping[node_id].get("parent")
            node_id = parent if isinstance(parent, str) else None
        # no usable current_node: the last leaf of the walk
        return self.messages[-1].id if self.messages else None


def convert(conversation: Any, where: str) -> ThreadImport | SkippedThread:
    """One conversation as a thread to write (or why it is skipped)."""
    mapping = _check(conversation, where)
    title = " ".join(str(conversation.get("title") or "").split()) or UNTITLED
    ref = source_ref(conversation)
    now = utc_now()
    created = iso(epoch_time(conversation.get("create_time")), now)
    children = _children(mapping)
    if not _all_reached(mapping, children):
        return SkippedThread(title, LOOP, ref)
    builder = _Builder(new_id(), created)
    builder.walk(mapping, children)
    if not builder.messages:
        return SkippedThread(title, NO_MESSAGES, ref)
    leaf = builder.active_leaf(mapping, conversation.get("current_node"))
    messages = tuple(
        replace(m, data={**(m.data or {}), SOURCE_CURRENT: True}) if m.id == leaf else m
        for m in builder.messages
    )
    last = max(m.updated_at for m in builder.messages)
    model = conversation.get("default_model_slug")
    if not isinstance(model, str):
        model = next((m.model for m in reversed(builder.messages) if m.model), None)
    thread = Thread(
        id=builder.thread_id,
        title=title,
        workspace_id="",
        created_at=created,
        updated_at=iso(epoch_time(conversation.get("update_time")), last),
        model=model,
        source=SOURCE,
        active_leaf_id=leaf,
    )
    return ThreadImport(thread=thread, source_ref=ref, messages=messages, assets=builder.images)


def parse_conversations(
    data: Any, progress: Progress | None = None
) -> tuple[list[ThreadImport], list[SkippedThread]]:
    """Every conversation of an export (a list, or one conversation object)."""
    conversations = [data] if isinstance(data, dict) else data
    if not isinstance(conversations, list):
        raise InvalidImportError("A ChatGPT export is a list of conversations.")
    threads: list[ThreadImport] = []
    skipped: list[SkippedThread] = []
    for index, conversation in enumerate(conversations, start=1):
        title = conversation.get("title") if isinstance(conversation, dict) else None
        where = f"Conversation {index}" + (f" (“{title}”)" if isinstance(title, str) else "")
        result = convert(conversation, where)
        if isinstance(result, SkippedThread):
            skipped.append(result)
        else:
            threads.append(result)
        if progress is not None:
            progress(index, len(conversations))
    return threads, skipped
