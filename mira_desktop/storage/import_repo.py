"""SQL of import (PRODUCT.md §9): writing imported threads, all of them in
ONE transaction (a failure anywhere writes nothing).

Import rules kept here: thread and message ids are kept when free and
remapped consistently otherwise; a workspace is found by name (created when
missing); providers and roles are linked by name when they exist, the
knowledge base by id, else by name (left unbound when neither is here); an
attachment whose content is in the media store becomes a real part (taking a
reference), otherwise a ``metadata`` part remembers it (``available: false``)
so a later export still lists it. When asked, a thread imported before (same
``source`` and ``source_ref``) is not written again: what is new in it is
added to the one here (``import_merge``), or it is skipped when nothing is."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..core.errors import NotFoundError
from ..core.ids import new_id, utc_now
from ..core.models import Message
from ..core.transfer import (
    SOURCE_CURRENT,
    AttachmentRecord,
    ImportedThread,
    SkippedThread,
    ThreadImport,
    UpdatedThread,
)
from . import import_merge, media_repo, rows, search_order
from .connection import Database
from .database import write
from .export_repo import _chunks, _marks
from .threads_repo import insert, thread_insert_values

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]

_NEW_WORKSPACE_COLOR = "#64748b"
#: why a thread imported before was skipped
NOTHING_NEW = "already imported, nothing new"


class _Batch:
    """Lookups shared by the threads of one import transaction."""

    def __init__(self, conn: sqlite3.Connection, workspace_id: str | None) -> None:
        self.conn = conn
        self.workspace_id = workspace_id
        self.workspaces: dict[str, str] = {}
        self.used_ids: set[str] = set()
        self.now = utc_now()

    def workspace_for(self, name: str | None) -> str:
        if self.workspace_id:
            return self.workspace_id
        key = (name or "").strip().lower()
        if key not in self.workspaces:
            self.workspaces[key] = _find_or_create_workspace(self.conn, (name or "").strip())
        return self.workspaces[key]

    def free_ids(self, ids: Sequence[str]) -> set[str]:
        """The ids among ``ids`` no thread or message uses yet."""
        taken: set[str] = set()
        for chunk in _chunks(list(ids)):
            marks = _marks(chunk)
            for table in ("threads", "messages"):
                cursor = self.conn.execute(f"SELECT id FROM {table} WHERE id IN ({marks})", chunk)
                taken.update(row[0] for row in cursor)
        return {i for i in ids if i not in taken and i not in self.used_ids}

    def new_ids(self, proposed: Sequence[str]) -> dict[str, str]:
        """Each proposed id, kept when free, else a new one (taken now)."""
        free = self.free_ids(proposed)
        ids = {old: (old if old in free else new_id()) for old in proposed}
        self.used_ids.update(ids.values())
        return ids


def _find_or_create_workspace(conn: sqlite3.Connection, name: str) -> str:
    if name:
        row = conn.execute(
            "SELECT id FROM workspaces WHERE lower(name) = lower(?) ORDER BY is_default DESC",
            (name,),
        ).fetchone()
        if row:
            return str(row[0])
        workspace_id, now = new_id(), utc_now()
        order = conn.execute("SELECT COALESCE(MAX(sort_order), 0) + 1 FROM workspaces").fetchone()
        conn.execute(
            "INSERT INTO workspaces(id, name, color, sort_order, is_default, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)",
            (workspace_id, name, _NEW_WORKSPACE_COLOR, int(order[0]), now, now),
        )
        log.info("created workspace %r for imported threads", name)
        return workspace_id
    row = conn.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()
    if row is None:
        raise NotFoundError("The default workspace is missing.")
    return str(row[0])


def _lookup(conn: sqlite3.Connection, table: str, name: str | None) -> str | None:
    if not name:
        return None
    row = conn.execute(f"SELECT id FROM {table} WHERE name = ?", (name,)).fetchone()
    return None if row is None else str(row[0])


def _knowledge_base(conn: sqlite3.Connection, kb_id: str | None, name: str | None) -> str | None:
    """The knowledge base of this library an imported thread is bound to: the
    one with its id (the same library), else the one with its name; None
    when there is neither."""
    if kb_id:
        row = conn.execute("SELECT id FROM knowledge_bases WHERE id = ?", (kb_id,)).fetchone()
        if row is not None:
            return str(row[0])
    return _lookup(conn, "knowledge_bases", name)


def insert_imports(
    db: Database,
    imports: Sequence[ThreadImport],
    *,
    workspace_id: str | None = None,
    merge_known: bool = False,
    progress: Progress | None = None,
) -> tuple[list[ImportedThread], list[UpdatedThread], list[SkippedThread]]:
    """Write every thread of an import in one transaction (all or nothing).
    ``merge_known``: a thread imported before (same source and reference, in
    an earlier import or earlier in this one) gets what is new in it, or is
    skipped (``NOTHING_NEW``) without a write. Returns the threads imported,
    those that got new messages, and those skipped."""
    imported: list[ImportedThread] = []
    updated: list[UpdatedThread] = []
    skipped: list[SkippedThread] = []
    with write(db) as conn:
        batch = _Batch(conn, workspace_id)
        if workspace_id is not None:
            _require_workspace(conn, workspace_id)
        before = search_order.newest_before(conn)
        for index, item in enumerate(imports):
            known = (
                import_merge.find_known(conn, item.thread.source, item.source_ref)
                if merge_known
                else None
            )
            if known is None:
                imported.append(_insert_one(batch, item))
            else:
                merged = _merge_one(batch, item, known)
                if isinstance(merged, UpdatedThread):
                    updated.append(merged)
                else:
                    skipped.append(merged)
            if progress is not None:
                progress(index + 1, len(imports))
        search_order.record_late(conn, before)  # old history: searched by its time
    return imported, updated, skipped


def _require_workspace(conn: sqlite3.Connection, workspace_id: str) -> None:
    if conn.execute("SELECT 1 FROM workspaces WHERE id = ?", (workspace_id,)).fetchone() is None:
        raise NotFoundError(f"No workspace with id {workspace_id}.")


def _insert_one(batch: _Batch, item: ThreadImport) -> ImportedThread:
    conn = batch.conn
    original = item.thread
    ids = batch.new_ids([original.id, *(m.id for m in item.messages)])
    thread = replace(
        original,
        id=ids[original.id],
        workspace_id=batch.workspace_for(item.workspace_name),
        provider_id=_lookup(conn, "providers", item.provider_name),
        role_id=_lookup(conn, "roles", item.role_name),
        kb_id=_knowledge_base(conn, item.kb_id, item.kb_name),
        pin_order=_next_pin(conn) if original.pinned else None,
        active_leaf_id=ids.get(original.active_leaf_id) if original.active_leaf_id else None,
    )
    values = thread_insert_values(thread)
    values.update(source_ref=item.source_ref, title_source="manual")
    insert(conn, "threads", values)
    _insert_messages(conn, item.messages, ids, thread.id)
    for message_id, records in item.attachments.items():
        for ordinal, record in enumerate(records):
            _insert_attachment(batch, ids[message_id], ordinal, record)
    return ImportedThread(
        id=thread.id,
        title=thread.title,
        message_count=len(item.messages),
        source_ref=item.source_ref,
        original_id=original.id,
    )


def _merge_one(
    batch: _Batch, item: ThreadImport, known: import_merge.Known
) -> UpdatedThread | SkippedThread:
    """Add what is new in ``item`` to the thread imported before (see
    ``import_merge``); nothing is written when nothing is new."""
    conn = batch.conn
    here = import_merge.present(conn, known.id)
    found = import_merge.plan(item.messages, item.thread.active_leaf_id, here, known.active_leaf_id)
    if not found.new:
        return SkippedThread(known.title, NOTHING_NEW, item.source_ref)
    ids = {**found.matched, **batch.new_ids([m.id for m in found.new])}
    _insert_messages(conn, found.new, ids, known.id)
    for message in found.new:
        for ordinal, record in enumerate(item.attachments.get(message.id, ())):
            _insert_attachment(batch, ids[message.id], ordinal, record)
    # the conversation went on: its last activity is the newer one
    last = max(known.updated_at, item.thread.updated_at, *(m.updated_at for m in found.new))
    leaf = ids[found.leaf] if found.leaf is not None else known.active_leaf_id
    conn.execute(
        "UPDATE threads SET updated_at = ?, active_leaf_id = ? WHERE id = ?",
        (last, leaf, known.id),
    )
    mark = f"$.{SOURCE_CURRENT}"
    conn.executemany(
        "UPDATE messages SET data_json = json_remove(data_json, ?) WHERE id = ?",
        [(mark, i) for i in found.unmark],
    )
    if found.mark is not None:
        conn.execute(
            "UPDATE messages SET data_json = json_set(COALESCE(data_json, '{}'), ?, json('true'))"
            " WHERE id = ?",
            (mark, found.mark),
        )
    return UpdatedThread(known.id, known.title, len(found.new), item.source_ref)


def _insert_messages(
    conn: sqlite3.Connection, messages: Sequence[Message], ids: dict[str, str], thread_id: str
) -> None:
    """All messages of a thread (parents first), with their ids remapped."""
    message_rows = [
        rows.message_row(
            replace(
                m,
                id=ids[m.id],
                thread_id=thread_id,
                parent_id=ids[m.parent_id] if m.parent_id else None,
                data=rows.remap_ids(m.data, ids) if m.data else m.data,
            )
        )
        for m in messages
    ]
    if message_rows:
        columns = list(message_rows[0])
        conn.executemany(
            f"INSERT INTO messages ({', '.join(columns)}) VALUES ({_marks(columns)})",
            [tuple(r[c] for c in columns) for r in message_rows],
        )


def _next_pin(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT COALESCE(MAX(pin_order), 0) + 1 FROM threads").fetchone()
    return int(row[0])


def _insert_attachment(
    batch: _Batch, message_id: str, ordinal: int, record: AttachmentRecord
) -> None:
    """A real part (taking a reference) when the content is stored here, else a
    ``metadata`` part that remembers the attachment."""
    conn = batch.conn
    data: dict[str, Any]
    sha256: str | None
    stored = conn.execute("SELECT 1 FROM media WHERE sha256 = ?", (record.sha256,)).fetchone()
    if stored is not None:
        media_repo.add_ref(conn, record.sha256, 1, batch.now)
        kind = "image" if record.kind == "image" else "file"
        sha256, data = record.sha256, {"size": record.size}
        if record.transcript is not None:  # an audio file is read as what it says
            data.update(kind="audio", transcript=record.transcript)
    else:
        kind, sha256 = "metadata", None
        data = {
            "attachment": {
                "name": record.name,
                "mime": record.mime,
                "sha256": record.sha256,
                "size": record.size,
                "kind": record.kind,
            }
        }
        if record.transcript is not None:
            data["attachment"]["transcript"] = record.transcript
    conn.execute(
        "INSERT INTO message_parts(id, message_id, ordinal, kind, media_sha256, name, mime,"
        " data_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (new_id(), message_id, ordinal, kind, sha256, record.name, record.mime, rows.dumps(data)),
    )
