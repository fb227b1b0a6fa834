"""``BranchCache``: a thread's active branch is read once while nothing is
written, and read again after any write — by this connection (a new message,
an edit, another leaf) or by another one (a second process on the same file).
Observed with SQLite's own statement trace on a real database file."""

from __future__ import annotations

import random
import sqlite3
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.core.errors import StorageError
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.core.models import Message, MessageRole, MessageStatus, Usage
from mira_desktop.storage import messages_repo, providers_repo, threads_repo
from mira_desktop.storage.branch_cache import BranchCache
from mira_desktop.storage.connection import Database
from mira_desktop.storage.database import (
    DB_FILENAME,
    ensure_default_workspace,
    open_database,
    write,
)

from .raw_rows import insert_message, insert_thread


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = open_database(tmp_path)
    yield database
    database.close()


def _thread(db: Database, length: int) -> tuple[str, list[str]]:
    thread_id = insert_thread(db.conn, ensure_default_workspace(db))
    ids: list[str] = []
    for n in range(length):
        role = "user" if n % 2 == 0 else "assistant"
        ids.append(
            insert_message(
                db.conn, thread_id, f"m{n}", parent_id=ids[-1] if ids else None, role=role
            )
        )
    db.conn.execute("UPDATE threads SET active_leaf_id = ? WHERE id = ?", [ids[-1], thread_id])
    db.conn.commit()
    return thread_id, ids


def _edit_elsewhere(folder: Path, message_id: str, text: str) -> None:
    """A message's text changed and committed by another connection (the CLI)."""
    other = sqlite3.connect(str(folder / DB_FILENAME))
    try:
        other.execute("UPDATE messages SET text = ? WHERE id = ?", [text, message_id])
        other.commit()
    finally:
        other.close()


def _message_reads(db: Database) -> list[str]:
    """Every statement that reads the messages table, from now on."""
    reads: list[str] = []
    db.conn.set_trace_callback(
        lambda sql: reads.append(sql) if "FROM messages" in sql and "SELECT" in sql else None
    )
    return reads


def test_a_second_read_with_nothing_written_is_not_read_again(db: Database) -> None:
    thread_id, ids = _thread(db, 6)
    cache = BranchCache()
    reads = _message_reads(db)
    first = cache.active_branch(db, thread_id)
    assert [m.id for m in first] == ids and reads
    reads.clear()
    second = cache.active_branch(db, thread_id)
    assert second == first and second is not first
    assert reads == []
    second.append(first[0])  # a caller's list is its own
    assert len(cache.active_branch(db, thread_id)) == 6


def test_a_write_on_this_connection_reads_again(db: Database) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    cache.active_branch(db, thread_id)
    extra = insert_message(db.conn, thread_id, "new", parent_id=ids[-1])
    db.conn.execute("UPDATE threads SET active_leaf_id = ? WHERE id = ?", [extra, thread_id])
    db.conn.commit()
    assert [m.id for m in cache.active_branch(db, thread_id)] == [*ids, extra]
    db.conn.execute("UPDATE messages SET text = 'edited' WHERE id = ?", [ids[0]])
    db.conn.commit()
    assert cache.active_branch(db, thread_id)[0].text == "edited"
    assert cache.active_branch(db, thread_id) == messages_repo.active_branch(db, thread_id)


def test_a_write_by_another_connection_reads_again(db: Database, tmp_path: Path) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    assert cache.active_branch(db, thread_id)[1].text == "m1"
    _edit_elsewhere(tmp_path, ids[1], "from the CLI")
    assert cache.active_branch(db, thread_id)[1].text == "from the CLI"


def test_only_a_few_threads_are_kept(db: Database) -> None:
    threads = [_thread(db, 2)[0] for _ in range(5)]
    cache = BranchCache(size=2)
    reads = _message_reads(db)
    for thread_id in threads:
        cache.active_branch(db, thread_id)
    reads.clear()
    cache.active_branch(db, threads[-1])  # kept
    assert reads == []
    cache.active_branch(db, threads[0])  # dropped long ago: read
    assert reads


# --- the writes of a turn: the kept branch follows them without a whole read


def _message(thread_id: str, parent_id: str | None, text: str, role: str = "user") -> Message:
    return Message(
        id=new_id(),
        thread_id=thread_id,
        role=MessageRole(role),
        text=text,
        created_at=utc_now(),
        parent_id=parent_id,
        status=MessageStatus.STREAMING if role == "assistant" else MessageStatus.COMPLETE,
    )


def _append(cache: BranchCache, db: Database, message: Message) -> None:
    cache.appending(db, message, partial(messages_repo.add_message, message=message))


def _rewrite(cache: BranchCache, db: Database, message_id: str, text: str, **extra: Any) -> None:
    write = partial(
        messages_repo.update_stream,
        message_id=message_id,
        text=text,
        thinking="",
        thinking_ms=None,
        **extra,
    )
    cache.updating(db, message_id, write)


def _branch_reads(db: Database) -> list[str]:
    """Every statement that reads a thread's rows (a whole-branch read)."""
    reads: list[str] = []
    db.conn.set_trace_callback(
        lambda sql: reads.append(sql) if "WHERE thread_id = ?" in sql else None
    )
    return reads


def test_a_turn_extends_the_kept_branch_without_reading_it_again(db: Database) -> None:
    thread_id, ids = _thread(db, 6)
    cache = BranchCache()
    cache.active_branch(db, thread_id)
    reads = _branch_reads(db)
    question = _message(thread_id, ids[-1], "a question")
    _append(cache, db, question)
    answer = _message(thread_id, question.id, "", role="assistant")
    _append(cache, db, answer)
    _rewrite(cache, db, answer.id, "the answer so far")
    usage = Usage(prompt_tokens=12, completion_tokens=3)
    _rewrite(cache, db, answer.id, "the whole answer", status="complete", usage=usage)
    kept = cache.active_branch(db, thread_id)
    assert reads == []  # one row read back after each write, never the thread
    db.conn.set_trace_callback(None)
    assert kept == messages_repo.active_branch(db, thread_id)
    assert [m.id for m in kept] == [*ids, question.id, answer.id]
    assert kept[-1].text == "the whole answer" and kept[-1].usage == usage
    assert kept[-1].status is MessageStatus.COMPLETE


def test_a_write_the_kept_branch_cannot_follow_reads_it_again(db: Database) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    cache.active_branch(db, thread_id)
    # a message on another parent (a regenerated answer's sibling) ...
    sibling = _message(thread_id, ids[-2], "another version", role="assistant")
    _append(cache, db, sibling)
    assert cache.active_branch(db, thread_id) == messages_repo.active_branch(db, thread_id)
    assert cache.active_branch(db, thread_id)[-1].sibling_count == 2
    # ... a rewrite of a message that does not end the branch ...
    _rewrite(cache, db, ids[0], "rewritten")
    assert cache.active_branch(db, thread_id)[0].text == "rewritten"


def test_a_commit_by_another_connection_during_a_write_is_not_missed(
    db: Database, tmp_path: Path
) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    cache.active_branch(db, thread_id)
    question = _message(thread_id, ids[-1], "a question")

    def write_while_the_cli_edits(conn_db: Database) -> None:
        _edit_elsewhere(tmp_path, ids[0], "edited by the CLI")
        messages_repo.add_message(conn_db, question)

    cache.appending(db, question, write_while_the_cli_edits)
    kept = cache.active_branch(db, thread_id)
    assert kept[0].text == "edited by the CLI" and kept[-1].id == question.id


def test_a_failed_write_leaves_the_kept_branch_true(db: Database) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    kept = cache.active_branch(db, thread_id)
    question = _message(thread_id, ids[-1], "never written")

    def disk_full(conn_db: Database) -> None:
        with write(conn_db) as conn:
            conn.execute("UPDATE threads SET active_leaf_id = NULL WHERE id = ?", [thread_id])
            raise StorageError("The disk is full.")  # rolled back

    with pytest.raises(StorageError):
        cache.appending(db, question, disk_full)
    assert cache.active_branch(db, thread_id) == kept == messages_repo.active_branch(db, thread_id)
    with pytest.raises(StorageError):
        cache.updating(db, ids[-1], disk_full)
    assert cache.active_branch(db, thread_id) == kept


@pytest.mark.parametrize("seed", range(4))
def test_random_turns_keep_the_branch_a_fresh_read_would_give(db: Database, seed: int) -> None:
    """Questions, answers, rewrites, regenerations, edits, deletions and a
    switch of leaf in random order; after each, the kept branch equals a
    fresh read (and the cache is asked between writes, as the meter does)."""
    rng = random.Random(seed)
    thread_id, ids = _thread(db, 5)
    cache = BranchCache(size=2)
    all_ids = list(ids)
    for _ in range(120):
        leaf = db.conn.execute(
            "SELECT active_leaf_id FROM threads WHERE id = ?", [thread_id]
        ).fetchone()[0]
        action = rng.choice(
            ["ask", "ask", "answer", "rewrite", "sibling", "edit", "delete", "leaf", "beside"]
        )
        if rng.random() < 0.7:
            cache.active_branch(db, thread_id)
        if action in ("ask", "answer"):
            message = _message(
                thread_id,
                leaf,
                f"text {rng.random()}",
                role=("user" if action == "ask" else "assistant"),
            )
            _append(cache, db, message)
            all_ids.append(message.id)
        elif action == "rewrite":
            target = leaf if rng.random() < 0.8 else rng.choice(all_ids)
            _rewrite(
                cache,
                db,
                target,
                f"rewritten {rng.random()}",
                status=rng.choice([None, "complete", "stopped"]),
            )
        elif action == "sibling":
            parent = rng.choice(all_ids)
            message = _message(thread_id, parent, "sibling", role="assistant")
            _append(cache, db, message)
            all_ids.append(message.id)
        elif action == "edit":
            db.conn.execute(
                "UPDATE messages SET text = ? WHERE id = ?",
                [f"edit {rng.random()}", rng.choice(all_ids)],
            )
            db.conn.commit()
        elif action == "beside":
            model = f"model {rng.random()}"
            cache.beside(db, partial(threads_repo.update_thread, thread_id=thread_id, model=model))
        elif action == "delete":
            db.conn.execute(
                "UPDATE messages SET deleted_at = ? WHERE id = ?", [utc_now(), rng.choice(all_ids)]
            )
            db.conn.commit()
        else:
            db.conn.execute(
                "UPDATE threads SET active_leaf_id = ? WHERE id = ?",
                [rng.choice(all_ids), thread_id],
            )
            db.conn.commit()
        assert cache.active_branch(db, thread_id) == messages_repo.active_branch(db, thread_id)


def test_a_rewrite_that_deletes_the_message_drops_it_from_the_branch(db: Database) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    cache.active_branch(db, thread_id)

    def delete(conn_db: Database) -> None:
        with write(conn_db) as conn:
            conn.execute("UPDATE messages SET deleted_at = ? WHERE id = ?", [utc_now(), ids[-1]])

    cache.updating(db, ids[-1], delete)
    assert [m.id for m in cache.active_branch(db, thread_id)] == ids[:-1]


def test_writes_beside_the_branches_keep_them(db: Database, tmp_path: Path) -> None:
    thread_id, ids = _thread(db, 4)
    cache = BranchCache()
    cache.active_branch(db, thread_id)
    reads = _message_reads(db)
    cache.beside(db, partial(providers_repo.set_setting, key="chat.last_model", value={"m": 1}))
    cache.beside(db, partial(threads_repo.update_thread, thread_id=thread_id, model="m2"))
    assert [m.id for m in cache.active_branch(db, thread_id)] == ids
    assert reads == []
    # ... unless another connection committed meanwhile

    def setting_while_the_cli_edits(conn_db: Database) -> None:
        _edit_elsewhere(tmp_path, ids[0], "edited by the CLI")
        providers_repo.set_setting(conn_db, "chat.last_model", {"m": 2})

    cache.beside(db, setting_while_the_cli_edits)
    assert cache.active_branch(db, thread_id)[0].text == "edited by the CLI"


def test_a_write_beside_does_not_revive_a_branch_already_stale(db: Database) -> None:
    first, _ = _thread(db, 3)
    second, second_ids = _thread(db, 3)
    cache = BranchCache()
    cache.active_branch(db, first)
    cache.active_branch(db, second)
    db.conn.execute("UPDATE messages SET text = 'edited' WHERE id = ?", [second_ids[0]])
    db.conn.commit()
    cache.active_branch(db, first)  # read again: current; the second is not
    cache.beside(db, partial(threads_repo.update_thread, thread_id=first, title="renamed"))
    assert cache.active_branch(db, second)[0].text == "edited"
