"""The data check on a deliberately damaged database (tests/support/damage.py):
what it reports, that a dry run changes nothing, that a fix repairs each
problem in the right way, and that a second check is healthy."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mira_desktop.bootstrap import Services
from mira_desktop.storage.database import DB_FILENAME
from tests.support.damage import EXPECTED_CODES, Damage, damage


def dump(data_dir: Path) -> tuple[list[str], list[str]]:
    """The database's SQL dump and the media folder's listing. Planner
    statistics (``sqlite_stat1``, refreshed by ``PRAGMA optimize`` on close)
    are not data and are left out."""
    conn = sqlite3.connect(data_dir / DB_FILENAME)
    try:
        lines = [line for line in conn.iterdump() if "sqlite_stat" not in line]
    finally:
        conn.close()
    files = sorted(str(p.relative_to(data_dir)) for p in (data_dir / "media").rglob("*"))
    return lines, files


def query(data_dir: Path, sql: str, *params: object) -> list[tuple]:
    conn = sqlite3.connect(data_dir / DB_FILENAME)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


async def damaged(services: Services) -> Damage:
    return damage(services.data_dir / DB_FILENAME, services.data_dir / "media")


async def test_a_fresh_data_folder_is_healthy(services) -> None:
    report = await services.doctor.check()
    assert report.healthy and report.problems == () and report.to_dict()["healthy"]


async def test_check_reports_every_kind_of_damage_and_leaves_fresh_work_alone(services) -> None:
    d = await damaged(services)
    report = await services.doctor.check()
    assert not report.healthy
    assert {p.code for p in report.problems} == EXPECTED_CODES
    subjects = {(p.code, p.subject) for p in report.problems}
    assert ("empty_thread", d.ids["empty"]) in subjects
    assert ("message_thread_missing", d.ids["lost_thread"]) in subjects
    assert ("message_parent_missing", d.ids["orphan"]) in subjects
    assert ("message_parent_other_thread", d.ids["cross"]) in subjects
    assert ("message_parent_cycle", d.ids["loop_first"]) in subjects
    assert ("active_leaf_invalid", d.ids["leaf_missing"]) in subjects
    assert ("active_leaf_invalid", d.ids["leaf_trashed"]) in subjects
    assert ("streaming_leftover", d.ids["dead_stream"]) in subjects
    assert ("media_unreferenced", d.ids["unused"]) in subjects
    assert ("media_count_mismatch", d.ids["miscounted"]) in subjects
    assert ("media_file_orphan", d.ids["stray"]) in subjects
    untouchable = {d.ids[k] for k in ("fresh_empty", "live_stream", "fresh", "fresh_stray")}
    assert not untouchable & {p.subject for p in report.problems}
    assert all(p.detail and p.fix for p in report.problems)


async def test_dry_run_changes_nothing(services) -> None:
    await damaged(services)
    before = dump(services.data_dir)
    report = await services.doctor.fix(dry_run=True)
    assert report.mode == "dry-run" and not report.healthy
    assert len(report.actions) == len(report.problems) > 0
    assert dump(services.data_dir) == before


async def test_fix_repairs_everything_and_a_second_check_is_healthy(services) -> None:
    d = await damaged(services)
    report = await services.doctor.fix()
    assert report.mode == "fix" and report.healthy, report.remaining
    assert {p.code for p in report.problems} == EXPECTED_CODES
    assert (await services.doctor.check()).healthy
    _assert_threads_repaired(services.data_dir, d)
    _assert_messages_repaired(services.data_dir, d)
    _assert_media_repaired(services.data_dir, d)
    # the repaired trees can be walked (the loop no longer hangs branch queries)
    looped = await services.conversation.active_branch(d.ids["looped"])
    assert [m.id for m in looped] == [d.ids["loop_first"], d.ids["loop_second"]]


def _assert_threads_repaired(data_dir: Path, d: Damage) -> None:
    threads = {r[0]: r[1:] for r in query(data_dir, "SELECT id, title, workspace_id FROM threads")}
    base = query(data_dir, "SELECT id FROM workspaces WHERE is_default = 1")[0][0]
    assert d.ids["empty"] not in threads and d.ids["fresh_empty"] in threads
    assert threads[d.ids["homeless"]][1] == base
    assert threads[d.ids["lost_thread"]] == ("Recovered conversation", base)
    leaves = dict(query(data_dir, "SELECT id, active_leaf_id FROM threads"))
    assert leaves[d.ids["lost_thread"]] == d.ids["lost_leaf"]
    assert leaves[d.ids["leaf_missing"]] == d.ids["leaf_missing_answer"]
    assert leaves[d.ids["leaf_trashed"]] == d.ids["leaf_trashed_user"]


def _assert_messages_repaired(data_dir: Path, d: Damage) -> None:
    rows = {r[0]: r[1:] for r in query(data_dir, "SELECT id, parent_id, status FROM messages")}
    assert rows[d.ids["orphan"]][0] is None and rows[d.ids["cross"]][0] is None
    assert rows[d.ids["loop_first"]][0] is None
    assert rows[d.ids["loop_second"]][0] == d.ids["loop_first"]
    assert rows[d.ids["dead_stream"]][1] == "stopped"
    assert rows[d.ids["live_stream"]][1] == "streaming"  # its process is alive


def _assert_media_repaired(data_dir: Path, d: Damage) -> None:
    media = dict(query(data_dir, "SELECT sha256, ref_count FROM media"))
    assert d.ids["unused"] not in media and not d.files[d.ids["unused"]].exists()
    assert media[d.ids["miscounted"]] == 1 and d.files[d.ids["miscounted"]].exists()
    assert d.ids["fresh"] in media and d.files[d.ids["fresh"]].exists()
    assert not d.files[d.ids["stray"]].exists()
    assert d.files[d.ids["fresh_stray"]].exists() and d.files["tmp"].exists()


async def test_an_attachment_whose_file_is_gone_is_reported_not_hidden(services) -> None:
    """A media row still used by a message whose file was deleted by hand (or
    lost with a disk): named by the attachment's file name; nothing can
    repair it, so it stays reported after a fix."""
    from mira_desktop.core.ids import new_id
    from tests.support.damage import _insert, sha

    d = await damaged(services)
    digest = sha("vanished")
    conn = sqlite3.connect(services.data_dir / DB_FILENAME, isolation_level=None)
    try:
        _insert(conn, "media", sha256=digest, mime="image/png", size=7, ref_count=1, created_at="2020-01-01T00:00:00.000Z")  # fmt: skip
        _insert(conn, "message_parts", id=new_id(), message_id=d.ids["healthy_user"], ordinal=1, kind="image", media_sha256=digest, name="花园.png")  # fmt: skip
    finally:
        conn.close()

    report = await services.doctor.fix()

    [missing] = [p for p in report.problems if p.code == "media_file_missing"]
    assert missing.subject == digest
    assert missing.detail.startswith(f'The file of the attachment "花园.png" (media/{digest[:2]}/')
    assert [p.code for p in report.remaining] == ["media_file_missing"]
    assert not any("vanished" in action or digest in action for action in report.actions)
    assert await services.store.known_media([digest]) == {digest}  # the row is kept


async def test_a_used_file_whose_row_was_lost_is_recorded_again_not_deleted(services) -> None:
    """A damaged page (and its salvage) can lose the media table's row while
    the attachment's part survives: the file is the attachment — neither the
    doctor nor the start-up collection may delete it."""
    import os
    import time

    from tests.services.seed import attach_media, make_thread, message_ids

    thread = await make_thread(services, "kept", ["look at this", "nice"])
    question, _ = await message_ids(services, thread.id)
    digest = await services.media.put(b"the only copy of a photo", "image/jpeg")
    await attach_media(services, question, digest, ref_count=1)
    conn = sqlite3.connect(services.data_dir / DB_FILENAME, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DELETE FROM media WHERE sha256 = ?", [digest])
        conn.execute("UPDATE message_parts SET mime = 'image/jpeg' WHERE media_sha256 = ?", [digest])  # fmt: skip
    finally:
        conn.close()
    path = services.media.path(digest)
    old = time.time() - 7200
    os.utime(path, (old, old))

    await services.media.collect_garbage()  # the start-up collection
    assert path.read_bytes() == b"the only copy of a photo"
    report = await services.doctor.check()
    assert [p.code for p in report.problems] == ["media_row_missing"]
    fixed = await services.doctor.fix()
    assert fixed.healthy, fixed.remaining
    assert path.read_bytes() == b"the only copy of a photo"
    assert query(
        services.data_dir, "SELECT mime, size, ref_count FROM media WHERE sha256 = ?", digest
    ) == [("image/jpeg", 24, 1)]
