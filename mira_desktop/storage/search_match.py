"""How a search's terms become SQL (PRODUCT.md §8): an FTS5 ``MATCH`` over the
trigram index for terms of three or more characters, ``LIKE`` for shorter ones,
and two checks SQL cannot state, made by Python functions the query calls on
each row it is about to return:

* **Quoted phrases across line breaks.** The trigram index matches a phrase
  only with the very characters typed, so ``"ship on Friday"`` missed "ship
  on\\nFriday" — text copied from a wrapped paragraph. A phrase is matched as
  ``NEAR`` of its words instead (a superset), and each row is checked against
  the phrase with any run of whitespace between its words
  (``mira_phrases``), so only real phrases reach the window.
* **Candidates per thread.** The window holds the newest matches; one thread
  talking about a word two hundred times filled it alone, and the list showed
  that thread's three hits and nothing else. Each thread now takes at most
  ``per_thread`` places (``mira_room``), so older threads get theirs.

The functions are registered once per connection and read the current
search's checks (:class:`RowChecks`): re-registering would expire every
prepared statement of the connection."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..core import apostrophes
from .connection import Database

MIN_MATCH_CHARS = 3
#: the longest run of whitespace between two words of a quoted phrase that
#: its ``NEAR`` still finds ("\r\n", a Markdown hard break, an indent)
PHRASE_SPACE = 8


def fts_string(term: str) -> str:
    """An FTS5 string literal: the term between double quotes, quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


def _literal(term: str) -> str:
    """The term as an FTS5 string; with an apostrophe, either way of writing
    it (``("don't" OR "don’t")``)."""
    forms = apostrophes.variants(term)
    if len(forms) == 1:
        return fts_string(term)
    return "(" + " OR ".join(map(fts_string, forms)) + ")"


def _term_match(term: str, loose: bool) -> str:
    """The FTS5 expression of one term of three or more characters: the term
    as a string; with ``loose``, a phrase as ``NEAR`` of its words that the
    index can match, wide enough for whitespace runs up to
    :data:`PHRASE_SPACE` between them (a superset: rows must then pass
    ``mira_phrases``). Words with an apostrophe are left to that check."""
    parts = term.split()
    long_parts = [
        i
        for i, part in enumerate(parts)
        if len(part) >= MIN_MATCH_CHARS and not apostrophes.has_apostrophe(part)
    ]
    if not loose or len(parts) == 1 or not long_parts:
        return _literal(term)  # a word, the phrase as typed, or no word to NEAR
    if len(long_parts) == 1:
        return fts_string(parts[long_parts[0]])
    first, last = long_parts[0], long_parts[-1]
    # tokens between the first long word and the last: at most a trigram per
    # character of what lies between, plus the two that straddle each gap
    between = sum(len(part) for part in parts[first + 1 : last])
    distance = between + (last - first) * (PHRASE_SPACE + 2)
    words = " ".join(fts_string(parts[i]) for i in long_parts)
    return f"NEAR({words}, {distance})"


def match_expression(terms: Sequence[str], *, loose: bool = False) -> str | None:
    """``"a" AND "b c"`` over the terms long enough for the trigram index
    (``loose``: ``"a" AND NEAR("b" "c", n)``); None when there is none."""
    long_terms = [_term_match(t, loose) for t in terms if len(t) >= MIN_MATCH_CHARS]
    return " AND ".join(long_terms) or None


def like_pattern(term: str) -> str:
    """``%term%`` with LIKE's wildcards in the term escaped (``ESCAPE '\\'``)."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def scan_conditions(column: str, terms: Sequence[str]) -> tuple[list[str], list[Any]]:
    """``LIKE`` conditions for the short terms, on the content table (where
    LIKE works, unlike on the trigram table in 3.40). LIKE folds ASCII case,
    like the trigram index, and reads faster than ``instr(lower(…))``."""
    conditions: list[str] = []
    params: list[Any] = []
    for term in terms:
        if len(term) >= MIN_MATCH_CHARS:
            continue
        forms = apostrophes.variants(term)
        like = f"{column} LIKE ? ESCAPE '\\'"
        conditions.append(like if len(forms) == 1 else "(" + " OR ".join([like] * len(forms)) + ")")
        params += map(like_pattern, forms)
    return conditions, params


def phrase_pattern(term: str) -> re.Pattern[str]:
    """The words of a phrase with any whitespace between them, any case."""
    return re.compile(r"\s+".join(map(apostrophes.escape, term.split())), re.IGNORECASE)


class RowChecks:
    """The current search's row checks, called by SQL (see the module's
    docstring): ``reset`` before a search's first statement, ``loosen``
    before the statement that looks for its phrases across whitespace."""

    __slots__ = ("_counts", "_patterns", "_per_thread", "_taken")

    def __init__(self) -> None:
        self._patterns: list[re.Pattern[str]] = []
        self._per_thread = 0
        self._counts: dict[str, int] = {}
        self._taken: set[int] = set()

    def reset(self, per_thread: int | None) -> None:
        self._patterns = []
        self._per_thread = per_thread or 0
        self._counts = {}
        self._taken = set()

    def tighten(self) -> None:
        self._patterns = []

    def loosen(self, terms: Sequence[str]) -> None:
        self._patterns = [phrase_pattern(t) for t in terms if len(t.split()) > 1]

    def phrases_hold(self, text: str | None) -> bool:
        """Every quoted phrase is in ``text``, whatever whitespace between its words."""
        return text is not None and all(p.search(text) for p in self._patterns)

    def take(self, thread_id: str, seq: int) -> bool:
        """False for a row a statement of this search already returned, and
        for a thread's rows past ``per_thread`` (when set); True otherwise."""
        if seq in self._taken:
            return False
        count = self._counts.get(thread_id, 0)
        if self._per_thread and count >= self._per_thread:
            return False
        self._counts[thread_id] = count + 1
        self._taken.add(seq)
        return True


def row_checks(db: Database, per_thread: int | None = None) -> RowChecks:
    """This connection's :class:`RowChecks`, reset for a new search, with the
    SQL functions ``mira_phrases(text)`` and ``mira_take(thread_id, seq)``
    registered. Their conditions come last in a ``WHERE``: SQLite calls them
    only on rows every other condition kept, in the order the rows come back."""
    checks = db.helpers.get(RowChecks)
    if not isinstance(checks, RowChecks):
        checks = RowChecks()
        db.conn.create_function("mira_phrases", 1, checks.phrases_hold)
        db.conn.create_function("mira_take", 2, checks.take)
        db.helpers[RowChecks] = checks
    checks.reset(per_thread)
    return checks
