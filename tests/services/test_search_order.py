"""Search walks messages newest first by their time, not by their place in
the file: an import of old history (the highest seqs) no longer fills the
candidate window and hides the chats of the last days. Imports record the
late seq ranges; migration 9 finds those already in a file."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from mira_desktop.bootstrap import Services
from mira_desktop.core.search import SearchFilters
from mira_desktop.services.search import SearchService
from mira_desktop.storage import search_sql
from mira_desktop.storage.database import connect, ensure_default_workspace, migrate, write
from mira_desktop.storage.history_store import HistoryStore
from mira_desktop.storage.schema import MIGRATIONS
from mira_desktop.storage.search_order import walk_ranges

from ..storage.raw_rows import insert_message, insert_thread
from .export.chatgpt_fixture import Conversation
from .seed import make_thread, sql

OLD = datetime(2023, 3, 1, tzinfo=UTC)


def chatgpt_export(tmp_path: Path, count: int, text: str) -> Path:
    conversations = []
    for n in range(count):
        conversation = Conversation(f"old-{n}", f"old chat {n}")
        conversation.data["create_time"] = OLD.timestamp() + n * 3600
        question = conversation.say("q", "root", "user", text, at=None)
        conversation.mapping[question]["message"]["create_time"] = OLD.timestamp() + n * 3600
        conversations.append(conversation.current(question).data)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(conversations), "utf-8")
    return path


async def test_an_import_of_old_history_does_not_hide_this_weeks_chats(
    services: Services, tmp_path: Path
) -> None:
    for n in range(4):
        await make_thread(services, f"recent {n}", ["mango smoothie recipe"])
    report = await services.imports.import_file(
        chatgpt_export(tmp_path, 30, "mango smoothie recipe")
    )
    assert len(report.imported) == 30
    search = SearchService(HistoryStore(services.store.worker), window=10)
    hits = await search.search("mango", limit=5)
    # equal relevance: the newest first — the recent chats, not the import
    assert [h.thread_title for h in hits][:4] == [f"recent {n}" for n in (3, 2, 1, 0)]
    ranges = await sql(services, "SELECT lo, hi FROM search_ranges")
    assert len(ranges) == 1  # the whole import, one late run


async def test_an_import_of_recent_history_records_nothing(
    services: Services, tmp_path: Path
) -> None:
    await make_thread(services, "here", ["kiwi"], at=OLD)
    await services.imports.import_file(chatgpt_export(tmp_path, 3, "kiwi"))  # newer: in order
    assert await sql(services, "SELECT * FROM search_ranges") == []
    assert await services.store.worker.run(walk_ranges) == [(0, None)]


async def test_a_time_filter_and_short_terms_walk_the_same_order(
    services: Services, tmp_path: Path
) -> None:
    await make_thread(services, "recent", ["ok mango"])
    await services.imports.import_file(chatgpt_export(tmp_path, 12, "ok mango"))
    search = SearchService(HistoryStore(services.store.worker), window=3)
    hits = await search.search("ok", limit=1)  # a scan: no term the index can match
    assert [h.thread_title for h in hits] == ["recent"]
    worker = services.store.worker
    messages = await worker.run(
        search_sql.message_candidates, ["ok"], SearchFilters(), window=3, scan_rows=2
    )
    assert [c.thread_title for c in messages] == ["recent"]  # the budget: 2 seqs, recent first
    hits = await search.search("mango", since="week", limit=5)
    assert [h.thread_title for h in hits] == ["recent"]


def test_migration_9_finds_late_runs_already_in_the_file(data_dir: Path) -> None:
    db = connect(data_dir / "mira.sqlite3")
    migrate(db, data_dir / "backups", MIGRATIONS[:8])
    workspace_id = ensure_default_workspace(db)
    day = "2026-11-{:02d}T10:00:00.000Z"
    with write(db) as conn:
        thread = insert_thread(conn, workspace_id)
        times = [day.format(1), day.format(2), "2024-01-01T00:00:00.000Z"]
        times += ["2024-01-02T00:00:00.000Z", day.format(2), "2026-11-01T12:00:00.000Z"]
        times += [day.format(3), "2020-05-05T00:00:00.000Z"]
        for at in times:
            insert_message(conn, thread, "x", created_at=at)
    assert migrate(db, data_dir / "backups") == [9]
    # seqs 3-4 (2024) and 8 (2020) arrived late; seq 6 is under a day back: in order
    assert db.execute("SELECT lo, hi, newest FROM search_ranges ORDER BY lo").fetchall() == [
        (3, 4, "2024-01-02T00:00:00.000Z"),
        (8, 8, "2020-05-05T00:00:00.000Z"),
    ]
    assert walk_ranges(db) == [(5, 7), (0, 2), (3, 4), (8, 8), (9, None)]
    assert walk_ranges(db, 4) == [(5, 7), (4, 4), (8, 8), (9, None)]
    db.close()
