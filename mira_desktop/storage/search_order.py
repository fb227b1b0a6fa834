"""The order in which search walks messages (PRODUCT.md §8): newest first.

A search reads a bounded window of matches, walking the full-text index by
rowid (``seq``: insertion order) from the top, because that lets SQLite stop
early (``search_sql.py``). Insertion order is time order for messages written
here, but not for an import: a year of ChatGPT history imported today takes
the highest seqs, and every common word's window filled with those old
messages, hiding what was said yesterday.

So storage keeps the seq ranges of messages that arrived late — created more
than :data:`LATE_DAYS` before a message inserted earlier — in
``search_ranges`` (migration 9 found those already there, with the same
rule as :data:`RECORD_LATE_SQL`; each import adds its own). :func:`walk_ranges` cuts the seq space at them into segments and
orders the segments by their newest message, so the walk takes recent
messages first, whatever their seq. With no late range (the usual case) it is
one segment: the walk as it always was, for one query of an empty table."""

from __future__ import annotations

import sqlite3

from .connection import Database

#: how far back a message's time may go from those inserted before it and
#: still count as in order (a clock set right, answers written out of order)
LATE_DAYS = 1.0

#: Records the late runs among messages with ``seq > :after``: each message's
#: time against the newest before it (``:newest``, the newest message before
#: ``:after``, seeds it); runs of late messages are grouped as islands
#: (row number minus row number among the late ones).
RECORD_LATE_SQL = """
INSERT INTO search_ranges(lo, hi, newest)
SELECT MIN(seq), MAX(seq), MAX(created_at) FROM (
    SELECT seq, created_at, late,
        ROW_NUMBER() OVER (ORDER BY seq) - ROW_NUMBER() OVER (PARTITION BY late ORDER BY seq)
            AS island
    FROM (
        SELECT seq, created_at,
            julianday(created_at) < julianday(MAX(
                COALESCE(MAX(created_at) OVER (
                    ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
                ), :newest),
                COALESCE(:newest, '')
            )) - {late_days} AS late
        FROM messages WHERE seq > :after
    )
)
WHERE late
GROUP BY island
""".replace("{late_days}", repr(LATE_DAYS))


def newest_before(conn: sqlite3.Connection) -> tuple[int, str | None]:
    """(the highest seq, the newest message time) now: what
    :func:`record_late` needs, taken before an import writes."""
    top = conn.execute("SELECT MAX(seq) FROM messages").fetchone()[0]
    newest = conn.execute("SELECT MAX(created_at) FROM messages").fetchone()[0]
    return int(top or 0), newest


def record_late(conn: sqlite3.Connection, before: tuple[int, str | None]) -> None:
    """Record the late runs among the messages written since ``before``
    (:func:`newest_before`), in the caller's transaction."""
    after, newest = before
    conn.execute(RECORD_LATE_SQL, {"after": after, "newest": newest})


Segment = tuple[int, int | None]


def walk_ranges(db: Database, floor: int = 0) -> list[Segment]:
    """The seq ranges ``(lo, hi)`` (``hi`` None: no upper bound) at or above
    ``floor`` in the order search walks them: newest message first."""
    late = db.execute(
        "SELECT lo, hi, newest FROM search_ranges WHERE hi >= ? ORDER BY lo", [floor]
    ).fetchall()
    if not late:
        return [(floor, None)]
    segments: list[tuple[str, int, int | None]] = []
    start = floor
    for lo, hi, newest in late:
        if lo > start:  # the messages in order below this late run
            segments.append((_newest_in(db, start, lo - 1), start, lo - 1))
        segments.append((str(newest), max(lo, start), int(hi)))
        start = max(start, int(hi) + 1)
    segments.append((_newest_in(db, start, None), start, None))
    segments.sort(key=lambda s: s[0], reverse=True)
    return [(lo, hi) for _, lo, hi in segments]


def _newest_in(db: Database, lo: int, hi: int | None) -> str:
    """The time of the message with the highest seq in ``lo``…``hi`` (in
    order, so the newest of its segment); "" when there is none."""
    row = db.execute(
        "SELECT created_at FROM messages WHERE seq BETWEEN ? AND ? ORDER BY seq DESC LIMIT 1",
        [lo, (1 << 63) - 1 if hi is None else hi],
    ).fetchone()
    return str(row[0]) if row else ""
