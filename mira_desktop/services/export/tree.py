"""The shape of a thread's message tree as the readable exports (Markdown,
HTML) lay it out: the active branch first, then every other live branch as a
segment that starts where it leaves what was already shown. Trashed messages
(and whatever hangs under them) are left out of these and only counted; the
JSON export carries them, flagged."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ...core.models import Message
from ...core.transfer import ThreadSnapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Segment:
    """Messages of another branch, from the first one not shown before down to
    a leaf. ``after`` is the message it continues from (None: a new root)."""

    after: Message | None
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class TreeLayout:
    active: tuple[Message, ...]
    others: tuple[Segment, ...]
    #: message id -> (1-based version number, number of live versions)
    versions: dict[str, tuple[int, int]] = field(default_factory=dict)
    trashed_ids: frozenset[str] = frozenset()


def trashed_ids(messages: tuple[Message, ...]) -> frozenset[str]:
    """Messages in the trash: trashed themselves or under a trashed one."""
    by_id = {m.id: m for m in messages}
    hidden: set[str] = set()
    for message in messages:  # parents come first (creation order)
        parent = by_id.get(message.parent_id) if message.parent_id else None
        if message.deleted_at is not None or (parent is not None and parent.id in hidden):
            hidden.add(message.id)
    return frozenset(hidden)


def path_to(by_id: dict[str, Message], leaf_id: str | None) -> list[Message]:
    """Root → ``leaf_id`` (a missing parent or a cycle ends the walk)."""
    path: list[Message] = []
    seen: set[str] = set()
    current = by_id.get(leaf_id) if leaf_id else None
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        current = by_id.get(current.parent_id) if current.parent_id else None
    path.reverse()
    return path


def _versions(live: list[Message]) -> dict[str, tuple[int, int]]:
    groups: dict[str | None, list[str]] = {}
    for message in live:
        groups.setdefault(message.parent_id, []).append(message.id)
    return {
        message_id: (index + 1, len(ids))
        for ids in groups.values()
        for index, message_id in enumerate(ids)
    }


def layout(snapshot: ThreadSnapshot) -> TreeLayout:
    hidden = trashed_ids(snapshot.messages)
    live = [m for m in snapshot.messages if m.id not in hidden]
    by_id = {m.id: m for m in live}
    active = path_to(by_id, snapshot.thread.active_leaf_id)
    shown = {m.id for m in active}
    parents = {m.parent_id for m in live}
    others: list[Segment] = []
    for leaf in (m for m in live if m.id not in parents and m.id not in shown):
        path = path_to(by_id, leaf.id)
        start = next(i for i, m in enumerate(path) if m.id not in shown)
        others.append(Segment(path[start - 1] if start else None, tuple(path[start:])))
        shown.update(m.id for m in path[start:])
    return TreeLayout(tuple(active), tuple(others), _versions(live), hidden)
