"""SQL of knowledge-base retrieval and embeddings.

Lexical search: ``kb_chunks_fts`` is an FTS5 ``trigram`` index, so terms of
three or more characters (English words and Chinese substrings alike) are
``MATCH``-ed, each as a quoted FTS5 string (user text can never change the
query's syntax), OR-ed and ranked by ``bm25()``. bm25 scores every matching
passage, so a term found in a fifth of 100,000 passages costs ~100 ms: the
services first read :func:`term_stats` from the index's vocabulary
(``kb_chunks_fts_vocab``, no doclist read) and leave such common terms out, or
rank a bounded window (:func:`recent_matches`) when nothing else is left.

Terms of one or two characters (学习, AI) cannot be a trigram ``MATCH`` (and
``LIKE`` on a trigram table is broken in SQLite 3.40). A table scan with
``instr()`` would work but reads every passage (about 0.3 s at 100,000), so
:func:`short_matches` expands each short term through the index's vocabulary
(a range query on the sorted terms) into the trigrams that start with it — 学习 → 学习。, 学习中, 学习的… — and ``MATCH``-es those,
still ranked by bm25 (a Latin term only expands to trigrams that end the word
there: ``ai`` → ``ai ``, ``ai,``). Only an occurrence in a passage's last two
characters escapes it; :func:`scan_terms` (``instr()`` on the content table)
remains as the last resort when nothing else matched.

Vectors: float32 embeddings and their packed sign bits (``embedding_sig``);
the services keep the signatures in memory and fetch full vectors only for
the candidates they rescore."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.knowledge import ChunkRecord, TermStats
from .connection import Database
from .database import write
from .rows import loads

#: SQLite's bound on ``?`` parameters is 32766 (3.32+); stay well below it.
PARAM_BATCH = 900


def fts_string(term: str) -> str:
    """An FTS5 string literal: the term between double quotes, quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


def term_stats(db: Database, long_terms: Sequence[str], short_terms: Sequence[str]) -> TermStats:
    """What the index knows of a query's terms (read from the vocabulary, no
    doclist is touched): the passage count, each long term's document count
    (estimated as its rarest trigram's; 0: it cannot match), and each short
    term's expansions with their document counts, most frequent first."""
    total = db.execute("SELECT COALESCE(MAX(seq), 0) FROM kb_chunks").fetchone()[0]
    frequency = {term: _rarest_trigram(db, term) for term in long_terms}
    expansions = {term: tuple(_expansions(db, term)) for term in short_terms}
    return TermStats(int(total), frequency, expansions)


def _doc_count(db: Database, trigram: str) -> int:
    row = db.execute("SELECT doc FROM kb_chunks_fts_vocab WHERE term = ?", [trigram]).fetchone()
    return int(row[0]) if row else 0


def _rarest_trigram(db: Database, term: str) -> int:
    """The smallest document count of (up to three of) the term's trigrams:
    an upper bound of the term's own. Each look-up reads that trigram's
    doclist, so only the first, middle and last are read."""
    folded = term.lower()
    last = len(folded) - 3
    return min(_doc_count(db, folded[i : i + 3]) for i in sorted({0, last // 2, last}))


#: Trigrams a short term expands to at most (the most frequent first).
EXPANSIONS_PER_TERM = 32


def _expansions(db: Database, term: str) -> list[tuple[str, int]]:
    """The indexed trigrams that start with ``term`` (see the module docstring)."""
    rows = db.execute(
        "SELECT term, doc FROM kb_chunks_fts_vocab WHERE term >= ? AND term < ?",
        [term, term + "\U0010ffff"],
    ).fetchall()
    if term != term.upper():  # has letters: the word must end after the term
        rows = [r for r in rows if len(r[0]) > len(term) and not r[0][len(term)].isalnum()]
    rows.sort(key=lambda row: -int(row[1]))
    return [(str(t), int(n)) for t, n in rows[:EXPANSIONS_PER_TERM]]


def ranked_matches(
    db: Database, kb_id: str, phrases: Sequence[str], limit: int
) -> list[tuple[int, str]]:
    """``(seq, text)`` of the passages of ``kb_id`` matching any phrase, best
    bm25 first (equal scores: the older passage first). Every matching passage
    is scored: callers keep common phrases out (see ``services/kb/plan.py``).

    Two steps: the best ``limit`` seqs are chosen with their scores alone,
    then only their texts are read. In one step SQLite's sorter carried the
    text of every match (thousands of ~1 kB passages) to keep 100 of them:
    35–47 ms against 22–26 ms for three-term questions at 100,000 passages,
    where bm25 itself takes 14–18 ms. A subquery with ``LIMIT`` is never
    flattened into the join around it, so the order of the steps holds."""
    if not phrases:
        return []
    sql = (
        "SELECT best.seq, c.text FROM ("
        " SELECT kb_chunks_fts.rowid AS seq, bm25(kb_chunks_fts) AS score FROM kb_chunks_fts"
        " CROSS JOIN kb_chunks k ON k.seq = kb_chunks_fts.rowid"
        " WHERE kb_chunks_fts MATCH ? AND k.kb_id = ? ORDER BY score, seq LIMIT ?"
        ") AS best CROSS JOIN kb_chunks c ON c.seq = best.seq ORDER BY best.score, best.seq"
    )
    expression = " OR ".join(fts_string(p) for p in phrases)
    return [(int(s), str(t)) for s, t in db.execute(sql, [expression, kb_id, limit]).fetchall()]


def recent_matches(
    db: Database, kb_id: str, phrases: Sequence[str], limit: int
) -> list[tuple[int, str]]:
    """``(seq, text)`` of the newest ``limit`` passages of ``kb_id`` matching
    any phrase, in index order: a bounded window (SQLite stops after ``limit``
    rows) for queries made only of very common terms."""
    if not phrases:
        return []
    sql = (
        "SELECT c.seq, c.text FROM kb_chunks_fts"
        " CROSS JOIN kb_chunks c ON c.seq = kb_chunks_fts.rowid"
        " WHERE kb_chunks_fts MATCH ? AND c.kb_id = ? ORDER BY kb_chunks_fts.rowid DESC LIMIT ?"
    )
    expression = " OR ".join(fts_string(p) for p in phrases)
    return [(int(s), str(t)) for s, t in db.execute(sql, [expression, kb_id, limit]).fetchall()]


def scan_terms(db: Database, kb_id: str, terms: Sequence[str], limit: int) -> list[tuple[int, str]]:
    """``(seq, text)`` of up to ``limit`` passages of ``kb_id`` containing any
    of ``terms`` (lower-case; those with letters are compared with the
    ASCII-lowered text)."""
    if not terms:
        return []
    # lower() only for terms with letters that have case (it costs per row)
    condition = " OR ".join(
        "instr(lower(text), ?) > 0" if term != term.upper() else "instr(text, ?) > 0"
        for term in terms
    )
    sql = f"SELECT seq, text FROM kb_chunks WHERE kb_id = ? AND ({condition}) LIMIT ?"
    return [(int(s), str(t)) for s, t in db.execute(sql, [kb_id, *terms, limit]).fetchall()]


def chunk_records(db: Database, seqs: Sequence[int]) -> dict[int, ChunkRecord]:
    """The passages with these seqs, with their documents."""
    records: dict[int, ChunkRecord] = {}
    for start in range(0, len(seqs), PARAM_BATCH):
        batch = list(seqs[start : start + PARAM_BATCH])
        marks = ", ".join("?" for _ in batch)
        sql = (
            "SELECT c.seq, c.id, c.document_id, d.name, d.path, c.text, c.location_json"
            " FROM kb_chunks c JOIN kb_documents d ON d.id = c.document_id"
            f" WHERE c.seq IN ({marks})"
        )
        for row in db.execute(sql, batch).fetchall():
            records[int(row[0])] = ChunkRecord(
                seq=int(row[0]),
                chunk_id=row[1],
                document_id=row[2],
                document_name=row[3],
                path=row[4],
                text=row[5],
                location=loads(row[6]) or {},
            )
    return records


def chunk_count(db: Database, kb_id: str) -> int:
    row = db.execute("SELECT COUNT(*) FROM kb_chunks WHERE kb_id = ?", [kb_id]).fetchone()
    return int(row[0])


# -- vectors


def signatures(db: Database, kb_id: str) -> tuple[int, list[int], list[bytes]]:
    """``(index_version, seqs, signatures)`` of the embedded passages of a base,
    read together so the version matches the rows."""
    version = db.execute(
        "SELECT index_version FROM knowledge_bases WHERE id = ?", [kb_id]
    ).fetchone()
    rows = db.execute(
        "SELECT seq, embedding_sig FROM kb_chunks"
        " WHERE kb_id = ? AND embedding_sig IS NOT NULL ORDER BY seq",
        [kb_id],
    ).fetchall()
    return int(version[0] if version else 0), [int(r[0]) for r in rows], [r[1] for r in rows]


def embeddings(db: Database, seqs: Sequence[int]) -> dict[int, bytes]:
    found: dict[int, bytes] = {}
    for start in range(0, len(seqs), PARAM_BATCH):
        batch = list(seqs[start : start + PARAM_BATCH])
        marks = ", ".join("?" for _ in batch)
        sql = (
            f"SELECT seq, embedding FROM kb_chunks WHERE seq IN ({marks}) AND embedding IS NOT NULL"
        )
        found.update((int(s), bytes(e)) for s, e in db.execute(sql, batch).fetchall())
    return found


def stored_vectors(
    db: Database, kb_id: str, hashes: Sequence[str]
) -> dict[str, tuple[bytes, bytes]]:
    """Embeddings already stored for passages with these text hashes (so
    re-indexing a file does not embed unchanged text again)."""
    found: dict[str, tuple[bytes, bytes]] = {}
    for start in range(0, len(hashes), PARAM_BATCH):
        batch = list(hashes[start : start + PARAM_BATCH])
        marks = ", ".join("?" for _ in batch)
        sql = (
            "SELECT sha256, embedding, embedding_sig FROM kb_chunks WHERE kb_id = ?"
            f" AND sha256 IN ({marks}) AND embedding IS NOT NULL"
        )
        for sha, vector, sig in db.execute(sql, [kb_id, *batch]).fetchall():
            found[sha] = (bytes(vector), bytes(sig))
    return found


def pending_embeddings(db: Database, kb_id: str, limit: int) -> list[tuple[int, str]]:
    """``(seq, text)`` of passages without an embedding yet, oldest first."""
    sql = (
        "SELECT seq, text FROM kb_chunks WHERE kb_id = ? AND embedding IS NULL ORDER BY seq LIMIT ?"
    )
    return [(int(s), str(t)) for s, t in db.execute(sql, [kb_id, limit]).fetchall()]


def set_embeddings(db: Database, kb_id: str, rows: Sequence[tuple[int, bytes, bytes]]) -> None:
    """Store ``(seq, embedding, signature)`` rows in one transaction."""
    with write(db) as conn:
        conn.executemany(
            "UPDATE kb_chunks SET embedding = ?, embedding_sig = ? WHERE seq = ? AND kb_id = ?",
            [(vector, sig, seq, kb_id) for seq, vector, sig in rows],
        )
        conn.execute(
            "UPDATE knowledge_bases SET index_version = index_version + 1 WHERE id = ?", (kb_id,)
        )
