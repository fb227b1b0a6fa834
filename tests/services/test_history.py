"""History management on a real data folder: the sidebar's pages and counts,
pins and their order, archive, trash / restore / purge with media reference
counts, automatic purge, collapsed groups, and date groups by an injected clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.errors import ConfigError, NotFoundError
from mira_desktop.core.history import HistoryCounts
from mira_desktop.core.ids import new_id
from mira_desktop.services.history import HistoryService
from mira_desktop.storage.database import write
from mira_desktop.storage.history_store import HistoryStore

from .seed import attach_media, execute, make_thread, message_ids, sql

NOW = datetime(2024, 5, 20, 12, 0, tzinfo=UTC)


def ids(threads: list) -> list[str]:
    return [t.title for t in threads]


async def test_pages_put_pins_first_then_newest(services: Services) -> None:
    for n in range(6):
        await make_thread(services, f"t{n}", at=NOW - timedelta(hours=10 - n))
    threads = {t.title: t for t in await services.history.list_threads(0, 100)}
    assert ids(await services.history.list_threads()) == ["t5", "t4", "t3", "t2", "t1", "t0"]
    await services.history.pin(threads["t1"].id)
    await services.history.pin(threads["t3"].id)
    order = ["t1", "t3", "t5", "t4", "t2", "t0"]
    assert ids(await services.history.list_threads(0, 100)) == order
    pages = [ids(await services.history.list_threads(o, 2)) for o in (0, 1, 2, 4, 6)]
    assert pages == [order[0:2], order[1:3], order[2:4], order[4:6], []]
    assert await services.history.counts() == HistoryCounts(active=6, pinned=2)
    assert await services.history.count_threads() == 6


async def test_pin_order_is_kept_across_restarts(data_dir: Path) -> None:
    services = build_services(data_dir)
    made = [await make_thread(services, f"p{n}") for n in range(4)]
    for thread in made:
        await services.history.pin(thread.id)
    pinned = await services.history.reorder_pins([made[2].id, made[0].id])
    assert ids(pinned) == ["p2", "p1", "p0", "p3"]  # in their places; the others stay
    with pytest.raises(ConfigError, match="Not pinned"):
        await services.history.reorder_pins(["nope"])
    await services.history.unpin(made[1].id)
    await services.aclose()

    reopened = build_services(data_dir)
    try:
        assert ids(await reopened.history.pinned_threads()) == ["p2", "p0", "p3"]
        assert ids(await reopened.history.pinned_threads(limit=2)) == ["p2", "p0"]
        await reopened.history.pin(made[1].id)  # a new pin goes last: Ctrl+1…3 stay
        assert ids(await reopened.history.pinned_threads()) == ["p2", "p0", "p3", "p1"]
    finally:
        await reopened.aclose()


async def test_archive_unpins_and_has_its_own_view(services: Services) -> None:
    keep = await make_thread(services, "keep")
    old = await make_thread(services, "old")
    await services.history.pin(old.id)
    archived = await services.history.archive(old.id)
    assert archived.archived and not archived.pinned
    assert ids(await services.history.list_threads()) == ["keep"]
    assert ids(await services.history.list_threads(view="archived")) == ["old"]
    assert (await services.history.counts()).archived == 1
    await services.history.unarchive(old.id)
    assert ids(await services.history.list_threads()) == ["old", "keep"]
    assert keep.title == "keep"
    with pytest.raises(ConfigError, match="view"):
        await services.history.list_threads(view="deleted")


async def test_rename_is_manual_and_keeps_the_place_by_date(services: Services) -> None:
    thread = await make_thread(services, "first words", at=NOW)
    renamed = await services.history.rename(thread.id, "  My   trip\nplans ")
    assert renamed.title == "My trip plans" and renamed.updated_at == thread.updated_at
    assert await services.history._store.title_source(thread.id) == "manual"
    assert not await services.history._store.set_auto_title(thread.id, "model title")
    with pytest.raises(ConfigError):
        await services.history.rename(thread.id, "   ")
    with pytest.raises(NotFoundError):
        await services.history.rename("missing", "x")


async def test_trash_restore_and_purge_release_media(services: Services) -> None:
    doomed = await make_thread(services, "doomed", ["look", "nice picture", "again"])
    other = await make_thread(services, "other", ["same picture"])
    d1, d2, _ = await message_ids(services, doomed.id)
    (o1,) = await message_ids(services, other.id)
    aaa = await services.media.put(b"shared picture", "image/png")
    bbb = await services.media.put(b"private picture", "image/png")
    await attach_media(services, d1, aaa, ref_count=3)  # two parts here, one elsewhere
    await attach_media(services, d2, aaa, ref_count=3)
    await attach_media(services, o1, aaa, ref_count=3)
    await attach_media(services, d2, bbb, ref_count=1)

    with pytest.raises(ConfigError, match="not in the trash"):
        await services.history.purge(doomed.id)
    assert await services.history.trash(doomed.id) == 1
    assert ids(await services.history.list_threads()) == ["other"]
    assert ids(await services.history.list_threads(view="trash")) == ["doomed"]
    with pytest.raises(ConfigError, match="restore it first"):
        await services.history.pin(doomed.id)
    restored = await services.history.restore(doomed.id)
    assert restored.deleted_at is None
    await services.history.trash(doomed.id)
    await services.history.purge(doomed.id)

    # the file only the purged thread used is deleted at once, not at a later start-up
    assert await sql(services, "SELECT sha256, ref_count FROM media") == [(aaa, 1)]
    assert services.media.path(aaa).is_file() and not services.media.path(bbb).exists()
    assert await message_ids(services, doomed.id) == []
    assert await sql(services, "SELECT COUNT(*) FROM message_parts") == [(1,)]
    assert await sql(
        services, "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'nice'"
    ) == [(0,)]
    assert await services.store.find_thread(doomed.id) is None


async def test_force_purge_empty_trash_and_expiry(services: Services) -> None:
    live = await make_thread(services, "live", ["x"])
    await services.history.purge(live.id, force=True)
    assert await services.store.find_thread(live.id) is None

    old = await make_thread(services, "old", ["x"])
    recent = await make_thread(services, "recent", ["x"])
    await services.history.trash_many([old.id, recent.id])
    now = datetime.now(UTC)
    await execute(
        services,
        "UPDATE threads SET deleted_at = ? WHERE id = ?",
        (now - timedelta(days=31)).isoformat().replace("+00:00", "Z"),
        old.id,
    )
    assert await services.history.purge_expired(now) == 1
    assert ids(await services.history.list_threads(view="trash")) == ["recent"]
    await services.settings.set("trash.purge_days", 0)  # 0: keep forever
    assert await services.history.purge_expired(now + timedelta(days=400)) == 0
    await services.settings.set("trash.purge_days", 7)
    assert await services.history.purge_expired(now + timedelta(days=8)) == 1
    await make_thread(services, "a")
    await services.history.trash_many([t.id for t in await services.history.list_threads()])
    assert await services.history.empty_trash() == 1
    assert await services.history.counts() == HistoryCounts()


async def test_turns_undone_long_ago_are_purged_with_their_files(services: Services) -> None:
    thread = await make_thread(services, "undo", ["q1", "a1", "q2", "a2 with a picture"])
    q1, a1, q2, a2 = await message_ids(services, thread.id)
    picture = await services.media.put(b"private picture", "image/png")
    await attach_media(services, a2, picture, ref_count=1)
    await services.conversation.undo_last_turn(thread.id)
    recent = await make_thread(services, "recent undo", ["r1", "r2"])
    await services.conversation.undo_last_turn(recent.id)
    # an older database's undo left a live answer under a trashed question:
    # deleting the question would cut the answer off its thread
    legacy = await make_thread(services, "legacy", ["l1", "l2"])
    l1, l2 = await message_ids(services, legacy.id)
    now = datetime.now(UTC)
    long_ago = (now - timedelta(days=31)).isoformat().replace("+00:00", "Z")
    await execute(
        services, "UPDATE messages SET deleted_at = ? WHERE id IN (?, ?, ?)", long_ago, q2, a2, l1
    )
    await execute(services, "UPDATE threads SET active_leaf_id = NULL WHERE id = ?", legacy.id)

    assert await services.history.purge_expired(now) == 0  # no thread went
    assert await message_ids(services, thread.id) == [q1, a1]
    assert not services.media.path(picture).exists()
    assert await sql(services, "SELECT COUNT(*) FROM media WHERE sha256 = ?", picture) == [(0,)]
    assert len(await message_ids(services, recent.id)) == 2  # undone yesterday: kept
    assert await message_ids(services, legacy.id) == [l1, l2]
    assert [m.text for m in await services.conversation.active_branch(thread.id)] == ["q1", "a1"]


async def test_collapsed_groups_are_remembered(data_dir: Path) -> None:
    services = build_services(data_dir)
    assert await services.history.collapsed_groups() == set()
    await services.history.set_group_collapsed("month:2024-01", True)
    assert await services.history.toggle_group("yesterday") is True
    assert await services.history.toggle_group("yesterday") is False
    await services.history.set_group_collapsed("pinned", True)
    await services.aclose()
    reopened = build_services(data_dir)
    try:
        assert await reopened.history.collapsed_groups() == {"month:2024-01", "pinned"}
        assert await reopened.settings.get("sidebar.collapsed_groups") == [
            "month:2024-01",
            "pinned",
        ]
    finally:
        await reopened.aclose()


async def test_groups_follow_the_injected_clock_and_zone(services: Services) -> None:
    shanghai = ZoneInfo("Asia/Shanghai")
    now = datetime(2024, 5, 20, 0, 30, tzinfo=shanghai)
    history = HistoryService(
        HistoryStore(services.store.worker), services.settings, now=lambda: now, tz=shanghai
    )
    await make_thread(services, "late", at=datetime(2024, 5, 19, 23, 50, tzinfo=shanghai))
    await make_thread(services, "early", at=datetime(2024, 5, 20, 0, 10, tzinfo=shanghai))
    await make_thread(services, "april", at=datetime(2024, 4, 2, 9, 0, tzinfo=shanghai))
    threads = await history.list_threads()
    groups = [(g.key, ids(ts)) for g, ts in history.group(threads)]
    assert groups == [("today", ["early"]), ("yesterday", ["late"]), ("month:2024-04", ["april"])]
    assert history.group_of(threads[0]).label == "Today"


async def test_purging_a_very_long_conversation(services: Services) -> None:
    thread = await make_thread(services, "long", ["start"])
    (parent,) = await message_ids(services, thread.id)

    def chain(db: Any) -> None:  # 1,500 replies, each the child of the previous
        nonlocal parent
        with write(db) as conn:
            for n in range(1500):
                message_id = new_id()
                conn.execute(
                    "INSERT INTO messages(id, thread_id, parent_id, role, text, created_at,"
                    " updated_at) VALUES (?, ?, ?, 'user', ?, ?, ?)",
                    (
                        message_id,
                        thread.id,
                        parent,
                        f"reply {n}",
                        thread.created_at,
                        thread.created_at,
                    ),
                )
                parent = message_id

    await services.store.worker.run(chain)
    await services.history.trash(thread.id)
    assert await services.history.empty_trash() == 1
    assert await sql(services, "SELECT COUNT(*) FROM messages") == [(0,)]


async def test_a_title_the_user_typed_is_kept_whole_up_to_the_cap(services: Services) -> None:
    """Renames kept 60 characters and cut the rest silently; a typed title is
    now kept whole up to USER_TITLE_LIMIT, and a longer one is refused, not
    cut. Exports take the whole title; their file names stay short."""
    from mira_desktop.services.history import USER_TITLE_LIMIT

    thread = await make_thread(services, "short", ["hello", "hi"])
    long_title = " ".join(f"word{n:03d}" for n in range(40))  # 319 characters
    assert (await services.history.rename(thread.id, long_title)).title == long_title
    assert (await services.threads.get_thread(thread.id)).title == long_title
    most = "x" * USER_TITLE_LIMIT
    assert (await services.threads.rename(thread.id, most)).title == most
    with pytest.raises(ConfigError, match="at most 500 characters; this one has 501"):
        await services.history.rename(thread.id, most + "y")
    assert (await services.threads.get_thread(thread.id)).title == most
    await services.history.rename(thread.id, long_title)
    markdown = await services.exports.render(thread.id, "md")
    assert f"# {long_title}\n" in markdown
    html = await services.exports.render(thread.id, "html")
    assert f"<h1>{long_title}</h1>" in html and "overflow-wrap: anywhere" in html
    name = await services.exports.suggested_filename(thread.id, "md")
    assert name.startswith("word000") and len(name) < 100
