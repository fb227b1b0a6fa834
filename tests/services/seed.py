"""Seeding history for tests: threads with messages at chosen times, media
references with raw SQL, and small raw-SQL readers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import format_time, new_id, utc_now
from mira_desktop.core.models import Message, MessageRole, Thread
from mira_desktop.storage.database import write


async def make_thread(
    services: Services,
    title: str,
    texts: Sequence[str] = (),
    *,
    at: datetime | None = None,
    workspace_id: str | None = None,
) -> Thread:
    """A thread with alternating user/assistant messages, all created at ``at``
    (default now), and last active then."""
    moment = format_time(at) if at else utc_now()
    workspace_id = workspace_id or (await services.store.default_workspace()).id
    thread = await services.store.create_thread(
        Thread(
            id=new_id(),
            title=title,
            workspace_id=workspace_id,
            created_at=moment,
            updated_at=moment,
        )
    )
    parent = None
    for index, text in enumerate(texts):
        role = MessageRole.USER if index % 2 == 0 else MessageRole.ASSISTANT
        message = Message(new_id(), thread.id, role, text, moment, moment, parent_id=parent)
        await services.store.add_message(message)
        parent = message.id
    return await services.store.get_thread(thread.id)


async def sql(services: Services, query: str, *params: Any) -> list[tuple[Any, ...]]:
    return await services.store.worker.run(lambda db: db.execute(query, params).fetchall())


async def execute(services: Services, query: str, *params: Any) -> None:
    def run(db: Any) -> None:
        with write(db) as conn:
            conn.execute(query, params)

    await services.store.worker.run(run)


async def attach_media(services: Services, message_id: str, sha256: str, ref_count: int) -> None:
    """A media row (created if missing, ref_count set) and a part referencing it."""

    def run(db: Any) -> None:
        with write(db) as conn:
            conn.execute(
                "INSERT INTO media(sha256, mime, size, ref_count, created_at)"
                " VALUES (?, 'image/png', 10, ?, ?)"
                " ON CONFLICT(sha256) DO UPDATE SET ref_count = excluded.ref_count",
                (sha256, ref_count, utc_now()),
            )
            ordinal = conn.execute(
                "SELECT COUNT(*) FROM message_parts WHERE message_id = ?", (message_id,)
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO message_parts(id, message_id, ordinal, kind, media_sha256, name, mime)"
                " VALUES (?, ?, ?, 'image', ?, 'a.png', 'image/png')",
                (new_id(), message_id, ordinal, sha256),
            )

    await services.store.worker.run(run)


async def message_ids(services: Services, thread_id: str) -> list[str]:
    rows = await sql(
        services, "SELECT id FROM messages WHERE thread_id = ? ORDER BY seq", thread_id
    )
    return [r[0] for r in rows]
