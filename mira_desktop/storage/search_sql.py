"""SQL of full-text search over thread titles and message text (PRODUCT.md §8).

The FTS5 tables use the ``trigram`` tokenizer, so a term of three or more
characters — an English word or a Chinese substring alike — is a ``MATCH``
(each term quoted as an FTS5 string, so no user text can change the query's
syntax; several terms must all match; ``search_match.py`` builds the
expression and the row checks of quoted phrases and threads). Shorter terms cannot be matched by a
trigram index (and SQLite 3.40's ``LIKE`` on a trigram table wrongly returns
nothing for them), so they become ``LIKE`` conditions on the content table:
alongside a ``MATCH`` when the query has a long term too, or as a bounded scan
of the newest rows when it has none.

Speed (issue 5 asks for < 30 ms at 1M messages): candidates come back newest
first and bounded (``window``; an import's old history walked by its time,
``search_order.py``; each thread at most ``per_thread`` of them). Walking the FTS index in rowid order lets SQLite
stop after ``window`` matches; FTS5's ``bm25()`` is deliberately not used here,
because its IDF counts every match of every phrase (a full doclist scan, 20–60
ms for a common word at 200k messages) — the service scores the window itself.
A time filter on messages also bounds the rowid from below
(:func:`since_floor`), so a search for "today" never walks old matches. Join
orders are pinned (``CROSS JOIN``, ``NOT INDEXED``) because without
``sqlite_stat1`` the planner drives a scan from the threads index and sorts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.search import SearchCandidate, SearchFilters
from .connection import Database
from .search_match import match_expression, row_checks, scan_conditions
from .search_order import Segment, walk_ranges


def _thread_conditions(filters: SearchFilters) -> tuple[list[str], list[Any]]:
    conditions = ["t.deleted_at IS NULL"]
    params: list[Any] = []
    if not filters.include_archived:
        conditions.append("t.archived = 0")
    if filters.workspace_id is not None:
        conditions.append("t.workspace_id = ?")
        params.append(filters.workspace_id)
    return conditions, params


def _candidates(db: Database, sql: str, params: Sequence[Any]) -> list[SearchCandidate]:
    """The rows as candidates. Plain tuples straight into the named tuple: the
    column dicts of ``db.query`` cost a quarter of the query itself (1–2 ms for
    400 rows); the ``SELECT`` lists name the columns in the fields' order."""
    return list(map(SearchCandidate._make, db.execute(sql, list(params))))


def since_floor(db: Database, since: str) -> int:
    """A lower bound of the ``seq`` of every message created at or after
    ``since``. It stays a valid bound while the database lives (new messages
    get higher seqs; deletions only raise the true minimum), so callers may
    cache it per ``since``."""
    row = db.execute(
        "SELECT MIN(seq) FROM messages INDEXED BY messages_created WHERE created_at >= ?",
        [since],
    ).fetchone()
    if row[0] is not None:
        return int(row[0])
    top = db.execute("SELECT MAX(seq) FROM messages").fetchone()[0]
    return int(top or 0) + 1


#: runs one statement: (expression, extra conditions, limit, lowest seq,
#: highest seq or None) → candidates
_Run = Callable[[str, list[str], int, int, int | None], list[SearchCandidate]]


def _walk(
    db: Database,
    terms: Sequence[str],
    run: _Run,
    window: int,
    segments: Sequence[Segment],
    per_thread: int | None,
    columns: tuple[str, str, str],
) -> list[SearchCandidate]:
    """The candidates of a ``MATCH``, segment by segment
    (``search_order.walk_ranges``: newest first) until the window is full.
    In each, quoted phrases are matched as typed first (the index's own
    phrase search, as fast as it gets); when that leaves room in the window,
    again across whitespace (``search_match``), for the rows the first
    statement could not find. ``columns``: the text, thread and seq columns
    the row checks read."""
    text, thread, seq = columns
    checks = row_checks(db, per_thread)
    exact = match_expression(terms)
    loose = match_expression(terms, loose=True)
    if exact is None or loose is None:
        return []
    take = [f"mira_take({thread}, {seq})"]
    rows: list[SearchCandidate] = []
    for lo, hi in segments:
        room = window - len(rows)
        if room <= 0:
            break
        checks.tighten()
        found = run(exact, take if per_thread or loose != exact else [], room, lo, hi)
        rows += found
        if loose != exact and len(found) < room:
            checks.loosen(terms)
            rows += run(loose, [f"mira_phrases({text})", *take], window - len(rows), lo, hi)
    return rows


def _newest_floor(db: Database, table: str, scan_rows: int) -> int:
    row = db.execute(f"SELECT MAX(seq) FROM {table}").fetchone()
    return int(row[0] or 0) - max(0, scan_rows) + 1


_MESSAGE_COLUMNS = (
    "t.id AS thread_id, t.title AS thread_title, t.workspace_id AS workspace_id,"
    " m.id AS message_id, m.text AS text, m.created_at AS created_at"
)


def message_candidates(
    db: Database,
    terms: Sequence[str],
    filters: SearchFilters,
    *,
    window: int = 200,
    scan_rows: int = 50_000,
    floor: int = 0,
    per_thread: int | None = None,
) -> list[SearchCandidate]:
    """Messages (user and assistant, not deleted, in a thread outside the
    trash) containing every term, newest first, at most ``window`` and at
    most ``per_thread`` of one thread, with ``seq >= floor``. Without a long
    term only the newest ``scan_rows`` messages are scanned."""
    where, params = _thread_conditions(filters)
    where += ["m.deleted_at IS NULL", "m.role IN ('user', 'assistant')"]
    if filters.since is not None:
        where.append("m.created_at >= ?")
        params.append(filters.since)
    scan, scan_params = scan_conditions("m.text", terms)
    where += scan
    params += scan_params
    segments = walk_ranges(db, floor)
    if match_expression(terms) is not None:

        def run(
            match: str, checks: list[str], limit: int, lo: int, hi: int | None
        ) -> list[SearchCandidate]:
            sql = (
                f"SELECT {_MESSAGE_COLUMNS} FROM messages_fts"
                " CROSS JOIN messages m ON m.seq = messages_fts.rowid"
                " CROSS JOIN threads t ON t.id = m.thread_id"
                " WHERE messages_fts MATCH ? AND messages_fts.rowid >= ?"
                + ("" if hi is None else " AND messages_fts.rowid <= ?")
                + f" AND {' AND '.join(where + checks)}"
                " ORDER BY messages_fts.rowid DESC LIMIT ?"
            )
            bounds = [lo] if hi is None else [lo, hi]
            return _candidates(db, sql, [match, *bounds, *params, limit])

        return _walk(db, terms, run, window, segments, per_thread, ("m.text", "t.id", "m.seq"))
    return _scan(db, where, params, segments, window, scan_rows, per_thread)


def _scan(
    db: Database,
    where: list[str],
    params: list[Any],
    segments: Sequence[Segment],
    window: int,
    scan_rows: int,
    per_thread: int | None,
) -> list[SearchCandidate]:
    """Messages without a term the index can match: a scan of the newest
    ``scan_rows`` seqs, segment by segment (newest first), until the window
    is full."""
    row_checks(db, per_thread)
    if per_thread:
        where = [*where, "mira_take(t.id, m.seq)"]
    top = _newest_floor(db, "messages", 0)  # the highest seq + 1
    rows: list[SearchCandidate] = []
    budget = max(0, scan_rows)
    for lo, hi in segments:
        high = top - 1 if hi is None else hi
        low = max(lo, high - budget + 1)
        if budget <= 0 or len(rows) >= window:
            break
        if low > high:
            continue
        budget -= high - low + 1
        sql = (
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m NOT INDEXED"
            " CROSS JOIN threads t ON t.id = m.thread_id"
            f" WHERE m.seq BETWEEN ? AND ? AND {' AND '.join(where)}"
            " ORDER BY m.seq DESC LIMIT ?"
        )
        rows += _candidates(db, sql, [low, high, *params, window - len(rows)])
    return rows


def title_candidates(
    db: Database,
    terms: Sequence[str],
    filters: SearchFilters,
    *,
    window: int = 200,
    scan_rows: int = 50_000,
) -> list[SearchCandidate]:
    """Threads whose title contains every term (``since`` applies to the
    thread's last activity, reported as ``created_at``), newest first."""
    where, params = _thread_conditions(filters)
    if filters.since is not None:
        where.append("t.updated_at >= ?")
        params.append(filters.since)
    scan, scan_params = scan_conditions("t.title", terms)
    where += scan
    params += scan_params
    columns = (
        "t.id AS thread_id, t.title AS thread_title, t.workspace_id AS workspace_id,"
        " NULL AS message_id, t.title AS text, t.updated_at AS created_at"
    )
    if match_expression(terms) is not None:

        def run(
            match: str, checks: list[str], limit: int, _lo: int, _hi: int | None
        ) -> list[SearchCandidate]:
            sql = (
                f"SELECT {columns} FROM threads_fts"
                " CROSS JOIN threads t ON t.seq = threads_fts.rowid"
                f" WHERE threads_fts MATCH ? AND {' AND '.join(where + checks)}"
                " ORDER BY threads_fts.rowid DESC LIMIT ?"
            )
            return _candidates(db, sql, [match, *params, limit])

        return _walk(db, terms, run, window, [(0, None)], None, ("t.title", "t.id", "t.seq"))
    sql = (
        f"SELECT {columns} FROM threads t NOT INDEXED"
        f" WHERE t.seq >= ? AND {' AND '.join(where)} ORDER BY t.seq DESC LIMIT ?"
    )
    return _candidates(db, sql, [_newest_floor(db, "threads", scan_rows), *params, window])


def candidates(
    db: Database,
    terms: Sequence[str],
    filters: SearchFilters,
    *,
    window: int = 200,
    scan_rows: int = 50_000,
    floor: int = 0,
    shown: int | None = None,
    per_thread: int | None = None,
) -> tuple[list[SearchCandidate], list[SearchCandidate]]:
    """Title candidates and message candidates of one search. When the titles
    fill the list no message is read: every title hit ranks above every
    message hit, and a search shows at most ``shown`` hits (its limit; at
    most ``window``), so those messages could never be shown."""
    titles = title_candidates(db, terms, filters, window=window, scan_rows=scan_rows)
    if len(titles) >= (window if shown is None else min(window, shown)):
        return titles, []
    messages = message_candidates(
        db,
        terms,
        filters,
        window=window,
        scan_rows=scan_rows,
        floor=floor,
        per_thread=per_thread,
    )
    return titles, messages
