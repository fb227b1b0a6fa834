"""A deliberately damaged data folder for the doctor's tests: raw SQL with
foreign keys off (what a crash, an old bug or a hand edit can leave), plus
files in the media folder. :func:`damage` returns the ids it planted so tests
can check each repair.

Everything that must be reported is dated in the past; a few things are fresh
(an empty thread, an unreferenced media row, a stray file) or owned by a live
process, and must be left alone."""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mira_desktop.core.ids import new_id, utc_now

OLD = "2020-01-01T00:00:00.000Z"
OLD_EPOCH = 1_577_836_800.0

#: Every problem code the planted damage must produce.
EXPECTED_CODES = {
    "empty_thread",
    "thread_workspace_missing",
    "message_thread_missing",
    "message_parent_missing",
    "message_parent_other_thread",
    "message_parent_cycle",
    "active_leaf_invalid",
    "streaming_leftover",
    "media_unreferenced",
    "media_count_mismatch",
    "media_file_orphan",
}


@dataclass
class Damage:
    ids: dict[str, str] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)


def dead_owner() -> str:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return f"{socket.gethostname()}:{proc.pid}:1"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _insert(conn: sqlite3.Connection, table: str, **values: object) -> None:
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", tuple(values.values()))


def _thread(conn: sqlite3.Connection, workspace: str, title: str, **extra: object) -> str:
    thread_id = new_id()
    stamp = str(extra.pop("created_at", OLD))
    _insert(
        conn,
        "threads",
        id=thread_id,
        title=title,
        workspace_id=workspace,
        created_at=stamp,
        updated_at=stamp,
        **extra,
    )
    return thread_id


def _message(
    conn: sqlite3.Connection, thread_id: str, parent: str | None, role: str, **extra: object
) -> str:
    message_id = str(extra.pop("id", new_id()))
    _insert(
        conn,
        "messages",
        id=message_id,
        thread_id=thread_id,
        parent_id=parent,
        role=role,
        text=str(extra.pop("text", role)),
        created_at=OLD,
        updated_at=OLD,
        **extra,
    )
    return message_id


def _turn(conn: sqlite3.Connection, thread_id: str, parent: str | None = None) -> tuple[str, str]:
    user = _message(conn, thread_id, parent, "user", text="question")
    answer = _message(conn, thread_id, user, "assistant", text="answer")
    conn.execute("UPDATE threads SET active_leaf_id = ? WHERE id = ?", [answer, thread_id])
    return user, answer


def _media_file(media_dir: Path, digest: str, *, old: bool = True, name: str = "") -> Path:
    path = media_dir / digest[:2] / (name or digest)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"content")
    if old:
        os.utime(path, (OLD_EPOCH, OLD_EPOCH))
    return path


def damage(db_path: Path, media_dir: Path) -> Damage:
    """Plant one of each problem in a migrated database (see EXPECTED_CODES)."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        conn.execute("BEGIN")
        result = _plant(conn, media_dir)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return result


def _plant(conn: sqlite3.Connection, media_dir: Path) -> Damage:
    d = Damage()
    base = conn.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()[0]
    healthy = d.ids["healthy"] = _thread(conn, base, "Healthy")
    d.ids["healthy_user"], d.ids["healthy_answer"] = _turn(conn, healthy)
    d.ids["empty"] = _thread(conn, base, "Empty")
    d.ids["fresh_empty"] = _thread(conn, base, "Just created", created_at=utc_now())
    homeless = d.ids["homeless"] = _thread(conn, "workspace-gone", "Homeless")
    _, d.ids["homeless_answer"] = _turn(conn, homeless)
    d.ids["lost_thread"] = lost = new_id()
    d.ids["lost_root"], d.ids["lost_leaf"] = _turn(conn, lost)
    d.ids["orphan"] = _message(conn, healthy, "parent-gone", "user", text="orphan")
    d.ids["cross"] = _message(conn, healthy, d.ids["homeless_answer"], "user", text="cross")
    _plant_tree_damage(conn, d, base)
    _plant_streaming(conn, d, healthy)
    _plant_media(conn, d, media_dir)
    return d


def _plant_tree_damage(conn: sqlite3.Connection, d: Damage, base: str) -> None:
    looped = d.ids["looped"] = _thread(conn, base, "Looped")
    first, second = new_id(), new_id()
    _message(conn, looped, second, "user", id=first)
    _message(conn, looped, first, "assistant", id=second)
    conn.execute("UPDATE threads SET active_leaf_id = ? WHERE id = ?", [second, looped])
    d.ids["loop_first"], d.ids["loop_second"] = first, second
    leafless = d.ids["leaf_missing"] = _thread(conn, base, "Leaf missing")
    d.ids["leaf_missing_answer"] = _turn(conn, leafless)[1]
    conn.execute("UPDATE threads SET active_leaf_id = 'gone' WHERE id = ?", [leafless])
    trashed = d.ids["leaf_trashed"] = _thread(conn, base, "Leaf in the trash")
    d.ids["leaf_trashed_user"], answer = _turn(conn, trashed)
    conn.execute("UPDATE messages SET deleted_at = ? WHERE id = ?", [OLD, answer])


def _plant_streaming(conn: sqlite3.Connection, d: Damage, thread_id: str) -> None:
    parent = d.ids["healthy_user"]
    d.ids["dead_stream"] = _message(
        conn, thread_id, parent, "assistant", status="streaming", owner=dead_owner()
    )
    from mira_desktop.services.process_owner import current_owner

    d.ids["live_stream"] = _message(
        conn, thread_id, parent, "assistant", status="streaming", owner=current_owner()
    )


def _plant_media(conn: sqlite3.Connection, d: Damage, media_dir: Path) -> None:
    unused, miscounted, fresh = sha("unused"), sha("miscounted"), sha("fresh")
    for digest, count, created in ((unused, 0, OLD), (miscounted, 5, OLD), (fresh, 0, utc_now())):
        _insert(
            conn,
            "media",
            sha256=digest,
            mime="image/png",
            size=7,
            ref_count=count,
            created_at=created,
        )
        d.files[digest] = _media_file(media_dir, digest)
    _insert(
        conn,
        "message_parts",
        id=new_id(),
        message_id=d.ids["healthy_user"],
        ordinal=0,
        kind="image",
        media_sha256=miscounted,
    )
    d.ids.update(unused=unused, miscounted=miscounted, fresh=fresh)
    stray, fresh_stray = sha("stray"), sha("fresh stray")
    d.ids.update(stray=stray, fresh_stray=fresh_stray)
    d.files[stray] = _media_file(media_dir, stray)
    d.files[fresh_stray] = _media_file(media_dir, fresh_stray, old=False)
    d.files["tmp"] = _media_file(media_dir, stray, name=".tmp-partial")
