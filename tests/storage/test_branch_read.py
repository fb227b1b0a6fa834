"""``messages_repo.branch``: the parent chain of a message, walked over the
thread's rows read in one pass, with sibling positions counted on the way.
Checked against the recursive query it replaced (kept for chains that leave
the thread), node by node, on a real SQLite file with random trees: edits and
regenerations (siblings), trashed messages, several roots."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mira_desktop.core.ids import utc_now
from mira_desktop.core.models import MessageRole, MessageStatus, Usage
from mira_desktop.storage import messages_repo, rows
from mira_desktop.storage.connection import Database
from mira_desktop.storage.database import ensure_default_workspace, open_database

from .raw_rows import insert_message, insert_thread


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = open_database(tmp_path)
    yield database
    database.close()


def _thread(db: Database) -> str:
    return insert_thread(db, ensure_default_workspace(db))


def _message(db: Database, thread_id: str, parent: str | None, **extra: object) -> str:
    return insert_message(db, thread_id, "text", parent_id=parent, **extra)


def _random_tree(db: Database, thread_id: str, rng: random.Random, size: int) -> list[str]:
    ids: list[str] = []
    for n in range(size):
        # mostly a chain, often a sibling of a recent message, now and then a new root
        roll = rng.random()
        if not ids or roll < 0.05:
            parent = None
        elif roll < 0.7:
            parent = ids[-1]
        else:
            parent = rng.choice(ids[-6:])
        deleted = utc_now() if rng.random() < 0.15 else None
        extra: dict[str, object] = {"role": "assistant" if n % 2 else "user"}
        if n % 5 == 0:
            extra.update(prompt_tokens=10 + n, completion_tokens=n, usage_estimated=1)
        if n % 7 == 0:
            extra.update(data_json='{"note": "retry"}', status="stopped")
        ids.append(_message(db, thread_id, parent, deleted_at=deleted, **extra))
    return ids


@pytest.mark.parametrize("seed", range(6))
def test_every_branch_equals_the_recursive_query(db: Database, seed: int) -> None:
    rng = random.Random(seed)
    thread_id = _thread(db)
    other = _thread(db)  # a second thread whose rows must stay out of the first's
    _random_tree(db, other, rng, 20)
    ids = _random_tree(db, thread_id, rng, 60)
    for message_id in ids:
        fast = messages_repo.branch(db, message_id)
        reference = messages_repo._branch_by_query(db, message_id)
        assert fast == reference, message_id
        assert fast[-1].id == message_id
        assert fast[0].parent_id is None


def test_sibling_positions_skip_trashed_messages(db: Database) -> None:
    thread_id = _thread(db)
    root = _message(db, thread_id, None)
    first = _message(db, thread_id, root, role="assistant")
    gone = _message(db, thread_id, root, role="assistant", deleted_at=utc_now())
    third = _message(db, thread_id, root, role="assistant")
    last = {leaf: messages_repo.branch(db, leaf)[-1] for leaf in (first, gone, third)}
    positions = {leaf: (m.sibling_index, m.sibling_count) for leaf, m in last.items()}
    # two live answers: the trashed one counts for no one, itself included
    assert positions == {first: (0, 2), gone: (1, 2), third: (1, 2)}
    assert messages_repo.branch(db, root)[0].sibling_count == 1


def test_rows_become_messages_with_every_field(db: Database) -> None:
    thread_id = _thread(db)
    root = _message(db, thread_id, None, thinking="hmm", thinking_ms=1200)
    answer = _message(
        db,
        thread_id,
        root,
        role="assistant",
        status="failed",
        model="m1",
        provider="p1",
        prompt_tokens=7,
        completion_tokens=3,
        reasoning_tokens=2,
        reasoning_estimated=1,
        error_json='{"message": "boom"}',
        data_json='{"note": "n"}',
    )
    first, second = messages_repo.branch(db, answer)
    assert (first.id, first.role, first.thinking, first.thinking_ms, first.usage) == (
        root,
        MessageRole.USER,
        "hmm",
        1200,
        None,
    )
    assert second.role == MessageRole.ASSISTANT and second.status == MessageStatus.FAILED
    assert (second.model, second.provider, second.parent_id) == ("m1", "p1", root)
    assert second.usage == Usage(7, 3, 2, counts_estimated=False, reasoning_estimated=True)
    assert second.error == {"message": "boom"} and second.data == {"note": "n"}


def test_unknown_message_has_no_branch(db: Database) -> None:
    assert messages_repo.branch(db, "no-such-id") == []


def test_a_chain_into_another_thread_is_followed_like_the_query(db: Database) -> None:
    # Mira never links threads, but an imported or hand-edited file might: the
    # answer is what the recursive query gives, not a cut-off chain
    first, second = _thread(db), _thread(db)
    root = _message(db, first, None)
    middle = _message(db, first, root, role="assistant")
    leaf = _message(db, second, middle)
    branch = messages_repo.branch(db, leaf)
    assert [m.id for m in branch] == [root, middle, leaf]
    assert branch == messages_repo._branch_by_query(db, leaf)


def test_a_parent_written_after_its_child_is_followed_like_the_query(db: Database) -> None:
    # the walk reads the rows up to the message; a parent with a later seq
    # (an odd import, a hand-edited file) sends it to the recursive query
    thread_id = _thread(db)
    db.execute("PRAGMA foreign_keys = OFF")
    child = _message(db, thread_id, "parent-to-come")
    parent = _message(db, thread_id, None, role="assistant")
    db.execute("UPDATE messages SET id = 'parent-to-come' WHERE id = ?", (parent,))
    branch = messages_repo.branch(db, child)
    assert [m.id for m in branch] == ["parent-to-come", child]
    assert branch == messages_repo._branch_by_query(db, child)


def test_later_siblings_of_the_chain_are_counted(db: Database) -> None:
    thread_id = _thread(db)
    root = _message(db, thread_id, None)
    answer = _message(db, thread_id, root, role="assistant")
    _message(db, thread_id, root, role="assistant")  # a regeneration, after it
    _message(db, thread_id, root, role="assistant", deleted_at=utc_now())  # trashed
    last = messages_repo.branch(db, answer)[-1]
    assert (last.sibling_index, last.sibling_count) == (0, 2)


def test_a_cycle_ends_the_walk(db: Database) -> None:
    # a parent loop cannot be made through the app; the walk must still end
    thread_id = _thread(db)
    a = _message(db, thread_id, None)
    b = _message(db, thread_id, a)
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("UPDATE messages SET parent_id = ? WHERE id = ?", (b, a))
    assert [m.id for m in messages_repo.branch(db, b)] == [a, b]


def test_reader_names_the_missing_columns() -> None:
    with pytest.raises(ValueError, match="thread_id"):
        rows.message_reader(["id", "role", "text"])
