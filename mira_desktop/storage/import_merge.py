"""A newer export of a conversation imported before (PRODUCT.md §9): which of
its messages are here already, which are new and where they go, and whether
the thread's active leaf moves on. ``import_repo.insert_imports`` writes the
plan, in the import's one transaction; nothing here writes.

A message is here already when a message of the thread carries its node id
(``data[SOURCE_NODE]``, kept since imports started keeping it, and through a
Mira JSON/ZIP move). A thread imported before that has no node ids is matched
by what identifies a message: under the same (matched) parent, the same role,
creation time and text — or, when the text differs (a picture found in one
export and not the other), the same role and creation time when exactly one
message here and one in the export have them. A message matched by neither
is new, and so is all below it: at worst a message is added twice, never
lost.

New messages go under their matched parents (a new version of a question or
an answer, or a new first question, as ChatGPT has it). The active leaf moves
to the export's current message only while the user has not chosen another:
when the thread's leaf is on the way to it (the conversation went on from
there) or is the message the last import made current (``SOURCE_CURRENT``);
a branch the user switched to, or turns they added in Mira, stay shown. It
never moves under a trashed message; what is new below a turn the user undid
goes to the trash with it (its stamp: restoring the turn brings it back, and
the purge takes them together). Title and everything else of the thread stay
as the user has them."""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.models import Message
from ..core.transfer import SOURCE_CURRENT, SOURCE_NODE


@dataclass(frozen=True, slots=True)
class Known:
    """A thread imported before: what a merge needs of its row."""

    id: str
    title: str
    active_leaf_id: str | None
    updated_at: str


@dataclass(frozen=True, slots=True)
class Present:
    """A message of the thread as it is here."""

    id: str
    parent_id: str | None
    role: str
    text: str
    created_at: str
    node: str | None
    current: bool
    deleted_at: str | None


@dataclass(slots=True)
class MergePlan:
    """``matched``: the export's message id → the one here; ``new``: the
    export's messages not here (parents first; their ``parent_id`` the
    export's); ``leaf``: the export's id of the new active leaf, None to keep
    the thread's; ``unmark`` / ``mark``: messages here that lose / get
    ``SOURCE_CURRENT``."""

    matched: dict[str, str] = field(default_factory=dict)
    new: list[Message] = field(default_factory=list)
    leaf: str | None = None
    unmark: list[str] = field(default_factory=list)
    mark: str | None = None


def find_known(conn: sqlite3.Connection, source: str, ref: str | None) -> Known | None:
    """The thread imported before from ``source`` as ``ref`` (a live one
    before a trashed one, then the first imported)."""
    if not ref:
        return None
    row = conn.execute(
        "SELECT id, title, active_leaf_id, updated_at FROM threads"
        " WHERE source = ? AND source_ref = ? ORDER BY deleted_at IS NOT NULL, seq LIMIT 1",
        (source, ref),
    ).fetchone()
    return None if row is None else Known(*row)


def present(conn: sqlite3.Connection, thread_id: str) -> list[Present]:
    """Every message of the thread, trashed ones too (one query)."""
    cursor = conn.execute(
        "SELECT id, parent_id, role, text, created_at,"
        " CASE WHEN json_valid(data_json) THEN json_extract(data_json, ?) END,"
        " CASE WHEN json_valid(data_json) THEN json_extract(data_json, ?) END,"
        " deleted_at FROM messages WHERE thread_id = ? ORDER BY seq",
        (f"$.{SOURCE_NODE}", f"$.{SOURCE_CURRENT}", thread_id),
    )
    return [
        Present(
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            row[5] if isinstance(row[5], str) else None,
            bool(row[6]),
            row[7],
        )
        for row in cursor
    ]


def plan(
    messages: tuple[Message, ...], leaf: str | None, here: list[Present], active: str | None
) -> MergePlan:
    """What of ``messages`` (an export's, parents first, ``leaf`` its current
    one) goes into a thread holding ``here`` with ``active`` as its leaf."""
    result = MergePlan()
    result.matched = _match(messages, here)
    by_id = {p.id: p for p in here}
    result.new = _trashed_with_parents(
        [m for m in messages if m.id not in result.matched], result.matched, by_id
    )
    if not result.new:
        return result
    if leaf is None or not _moves(messages, leaf, result.matched, by_id, active):
        result.new = [_unmarked(m) for m in result.new]
        return result
    result.leaf = leaf
    target = result.matched.get(leaf)
    result.unmark = [p.id for p in here if p.current and p.id != target]
    if target is not None and not by_id[target].current:
        result.mark = target
    return result


def _match(messages: tuple[Message, ...], here: list[Present]) -> dict[str, str]:
    by_node = {p.node: p.id for p in here if p.node}
    # messages here without a node id (imported before they were kept), by
    # parent, role and time; a list, in the order they were written
    unnamed: dict[tuple[str | None, str, str], list[Present]] = {}
    for p in here:
        if not p.node:
            unnamed.setdefault((p.parent_id, p.role, p.created_at), []).append(p)
    alike = Counter((m.parent_id, str(m.role), m.created_at) for m in messages)
    matched: dict[str, str] = {}
    taken: set[str] = set()
    for message in messages:
        node = (message.data or {}).get(SOURCE_NODE)
        found = by_node.get(node) if isinstance(node, str) else None
        if found is None and (message.parent_id is None or message.parent_id in matched):
            parent = matched[message.parent_id] if message.parent_id else None
            role, created = str(message.role), message.created_at
            candidates = [p for p in unnamed.get((parent, role, created), ()) if p.id not in taken]
            same = [p for p in candidates if p.text == message.text]
            if same:
                found = same[0].id
            elif len(candidates) == 1 and alike[(message.parent_id, role, created)] == 1:
                found = candidates[0].id
        if found is not None and found not in taken:
            matched[message.id] = found
            taken.add(found)
    return matched


def _moves(
    messages: tuple[Message, ...],
    leaf: str,
    matched: dict[str, str],
    here: dict[str, Present],
    active: str | None,
) -> bool:
    """Whether the active leaf moves to the export's ``leaf``: the user has
    not chosen another (see the module's docstring), and no message on the
    way to it is trashed here."""
    parents = {m.id: m.parent_id for m in messages}
    path: set[str] = set()
    node: str | None = leaf
    while node is not None and node not in path:
        path.add(node)
        node = parents.get(node)
    on_path = {matched[i] for i in path if i in matched}
    if any(here[i].deleted_at for i in on_path):
        return False
    if active is None or active not in here:
        return True
    return active in on_path or here[active].current


def _trashed_with_parents(
    new: list[Message], matched: dict[str, str], here: dict[str, Present]
) -> list[Message]:
    """``new`` (parents first), each below a trashed message trashed with it."""
    stamps: dict[str, str | None] = {}
    done: list[Message] = []
    for message in new:
        parent = message.parent_id
        if parent is None:
            stamp = None
        elif parent in matched:
            stamp = here[matched[parent]].deleted_at
        else:
            stamp = stamps.get(parent)
        stamps[message.id] = stamp
        done.append(replace(message, deleted_at=stamp) if stamp else message)
    return done


def _unmarked(message: Message) -> Message:
    data: dict[str, Any] | None = message.data
    if not data or SOURCE_CURRENT not in data:
        return message
    return replace(message, data={k: v for k, v in data.items() if k != SOURCE_CURRENT})
