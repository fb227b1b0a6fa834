"""Knowledge-base keyword SQL on a real database file: ``ranked_matches`` picks
the best passages by bm25 (scores alone, then texts) exactly as a one-step
query over every match would, within one knowledge base."""

from __future__ import annotations

import random
from pathlib import Path

from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.storage.connection import Database
from mira_desktop.storage.database import open_database, write
from mira_desktop.storage.kb_search_sql import fts_string, ranked_matches

WORDS = [
    "socket",
    "timeout",
    "thread",
    "lock",
    "json",
    "parse",
    "cleanup",
    "directory",
    "cache",
    "retry",
]
FILLER = ["the", "a", "of", "and", "to", "in", "is", "for", "on", "with", "as", "by", "at", "from"]


def _add_kb(db: Database, name: str, texts: list[str]) -> str:
    kb_id, document_id, now = new_id(), new_id(), utc_now()
    with write(db) as conn:
        conn.execute(
            "INSERT INTO knowledge_bases (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (kb_id, name, now, now),
        )
        conn.execute(
            "INSERT INTO kb_documents (id, kb_id, path, name, sha256, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, '', ?, ?)",
            (document_id, kb_id, f"/{name}.txt", f"{name}.txt", now, now),
        )
        for ordinal, text in enumerate(texts):
            conn.execute(
                "INSERT INTO kb_chunks (id, kb_id, document_id, ordinal, text, sha256)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (new_id(), kb_id, document_id, ordinal, text, f"{name}-{ordinal}"),
            )
    return kb_id


def _passage(rng: random.Random) -> str:
    words = [rng.choice(FILLER) for _ in range(rng.randint(5, 40))]
    for _ in range(rng.randint(0, 4)):
        words.insert(rng.randrange(len(words) + 1), rng.choice(WORDS))
    return " ".join(words)


def _one_step(db: Database, kb_id: str, phrases: list[str], limit: int) -> list[tuple[int, str]]:
    """The plain query: every match joined to its passage, sorted, cut."""
    rows = db.execute(
        "SELECT c.seq, c.text, bm25(kb_chunks_fts) AS score FROM kb_chunks_fts"
        " JOIN kb_chunks c ON c.seq = kb_chunks_fts.rowid"
        " WHERE kb_chunks_fts MATCH ? AND c.kb_id = ? ORDER BY score, c.seq LIMIT ?",
        [" OR ".join(map(fts_string, phrases)), kb_id, limit],
    ).fetchall()
    return [(int(seq), str(text)) for seq, text, _ in rows]


def test_ranked_matches_are_the_best_passages_of_that_base_only(data_dir: Path) -> None:
    db = open_database(data_dir)
    rng = random.Random(5)
    # two bases share the index; the other one's passages are denser in the
    # terms, so leaking them would change the answer
    mine = _add_kb(db, "mine", [_passage(rng) for _ in range(400)])
    other = _add_kb(db, "other", [f"socket timeout socket {_passage(rng)}" for _ in range(300)])
    # identical passages score alike: the older comes first
    twins = _add_kb(db, "twins", ["socket timeout here"] * 5 + ["timeout"] * 3)

    for phrases, limit in (
        (["socket"], 10),
        (["socket", "timeout"], 25),
        (["thread", "lock", "json"], 100),
        (["cleanup", "directory", "retry", "cache"], 1000),
    ):
        got = ranked_matches(db, mine, phrases, limit)
        assert got == _one_step(db, mine, phrases, limit)
        assert 0 < len(got) <= limit
        own = {seq for (seq,) in db.execute("SELECT seq FROM kb_chunks WHERE kb_id = ?", [mine])}
        assert {seq for seq, _ in got} <= own
        assert all(any(p in text for p in phrases) for _, text in got)

    got = ranked_matches(db, twins, ["socket", "timeout"], 8)
    seqs = [seq for seq, _ in got]
    assert [text for _, text in got] == ["socket timeout here"] * 5 + ["timeout"] * 3
    assert seqs[:5] == sorted(seqs[:5]) and seqs[5:] == sorted(seqs[5:])
    assert ranked_matches(db, twins, ["socket"], 3) == got[:3]  # cut among equals: the oldest
    assert ranked_matches(db, other, [], 10) == []
    assert ranked_matches(db, mine, ["zzzqqq"], 10) == []
