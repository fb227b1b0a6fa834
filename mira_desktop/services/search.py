"""``SearchService``: full-text search over thread titles and message text
(PRODUCT.md §8, the Ctrl+K dialog), Chinese substrings and English words alike.

A query is cut into terms at whitespace (``"quoted words"`` stay one term);
every term must match. Storage finds bounded, newest-first candidates (FTS5
trigram ``MATCH`` for terms of three or more characters, a scan for shorter
ones — see ``storage/search_sql.py``); this module ranks them — title hits
above message hits, then exact phrase before scattered terms, then BM25
relevance, then the most recent — a group and a tier at a time (messages are
not even read when titles fill the list), and gives each hit returned a
highlighted snippet, cut when first read (``SearchHit.cut_later``: the dialog
reads only the rows it paints).
Filters: today / this week / this month / this quarter (local time, injected
clock), workspace, archived threads on or off. Trashed threads never appear."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from functools import lru_cache, partial
from operator import itemgetter
from typing import TYPE_CHECKING

from ..core.ids import format_time
from ..core.search import SearchCandidate, SearchFilters, SearchHit
from .snippets import Folded, FoldedQuery, render_html, render_marked
from .timeframes import Now, since_start, utc_clock

if TYPE_CHECKING:
    from ..storage.history_store import HistoryStore

log = logging.getLogger(__name__)

__all__ = [
    "ParsedQuery",
    "SearchHit",
    "SearchService",
    "parse_query",
    "render_html",
    "render_marked",
]

# a phrase: between quotes, something not a space (nor a quote: "\S" took the
# closing quote, so two phrases in a query became one and two stray words)
_TERM = re.compile(r'"([^"]*[^"\s][^"]*)"|(\S+)')
MAX_TERMS = 16
HITS_PER_THREAD = 3


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    text: str
    terms: tuple[str, ...]


def parse_query(query: str) -> ParsedQuery:
    """Terms of a query: whitespace-separated words, ``"a phrase"`` as one term;
    any other character (``*``, ``-``, ``AND``, a lone ``"``) is literal text."""
    # a lone surrogate (a terminal's undecodable byte) cannot reach SQLite
    clean = query.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    text = " ".join(clean.replace("\x00", " ").split())
    terms: list[str] = []
    for match in _TERM.finditer(text):
        term = " ".join((match.group(1) or match.group(2)).split())
        if term.casefold() not in {t.casefold() for t in terms}:
            terms.append(term)
    return ParsedQuery(text, tuple(terms[:MAX_TERMS]))


K1, B = 1.2, 0.75


def relevance(counts: Sequence[int], length: int, average_length: float) -> float:
    """Okapi BM25 without IDF (k1 = 1.2, b = 0.75) of a text of ``length``
    characters holding each term ``counts[i]`` times: term frequency, saturated
    and normalised by length. Every candidate holds every term, so IDF would
    weigh the terms alike; FTS5's own ``bm25()`` is avoided because computing
    its IDF walks every match in the database (see ``storage/search_sql.py``)."""
    norm = K1 * (1.0 - B + B * length / max(average_length, 1.0))
    total = 0.0
    for f in counts:
        total += f * (K1 + 1.0) / (f + norm)
    return total


# A scored candidate: (minus the relevance to 0.1, created_at, candidate,
# its text as FoldedQuery.measure_all gave it, relevance); plain tuples, 200 of
# them per search.
_Scored = tuple[float, str, SearchCandidate, Folded, float]
_ORDER, _CREATED = itemgetter(0), itemgetter(1)


def _tiers(
    candidates: Sequence[SearchCandidate], query: FoldedQuery
) -> Iterator[tuple[bool, list[_Scored]]]:
    """The candidates (all titles or all messages) in rank order, one tier at a
    time — (exact phrase?, candidates): exact phrase, then scattered terms;
    within a tier by relevance (to 0.1), then the newest, then storage's order.
    Lazy: nothing is read unless the hits before left room in the list."""
    if not candidates:
        return
    texts = [c.text for c in candidates]
    lengths = list(map(len, texts))
    average = max(sum(lengths) / len(lengths), 1.0)
    exact_tier: list[_Scored] = []
    other_tier: list[_Scored] = []
    add_exact, add_other = exact_tier.append, other_tier.append
    k1, b, k1_plus, one_minus_b = K1, B, K1 + 1.0, 1.0 - B
    measured = query.measure_all(texts)
    # relevance() inlined (the same expression, so the same floats: 0.0 + x
    # is x, and 1.0 - B comes first there too), two terms unrolled: a call a
    # candidate was a fifth of this loop
    for c, length, (folded, exact, counts) in zip(candidates, lengths, measured, strict=True):
        norm = k1 * (one_minus_b + b * length / average)
        if len(counts) == 2:
            f, g = counts
            value = f * k1_plus / (f + norm) + g * k1_plus / (g + norm)
        else:
            value = 0.0
            for f in counts:
                value += f * k1_plus / (f + norm)
        (add_exact if exact else add_other)((-round(value, 1), c.created_at, c, folded, value))
    tiers = (exact_tier, other_tier)
    for exact, tier in ((True, tiers[0]), (False, tiers[1])):
        if tier:
            tier.sort(key=_CREATED, reverse=True)
            tier.sort(key=_ORDER)
            yield exact, tier


@lru_cache(maxsize=32)
def _folded_query(terms: tuple[str, ...]) -> FoldedQuery:
    """The :class:`FoldedQuery` of some terms, kept for the next searches (a
    dialog searches as the user types; building one compiles ~5 patterns)."""
    return FoldedQuery(terms)


def rank(
    terms: Sequence[str],
    titles: Sequence[SearchCandidate],
    messages: Sequence[SearchCandidate],
    *,
    limit: int = 50,
    per_thread: int = HITS_PER_THREAD,
) -> list[SearchHit]:
    """Order candidates — title hits first, then exact phrase before scattered
    terms, then relevance, then the newest — into at most ``limit`` hits, with
    at most ``per_thread`` message hits per thread.

    Tier by tier (:func:`_tiers`): when titles fill the list, messages are not
    even read; a hit's snippet is cut when first read. Terms are found and
    counted on lower-cased text (:class:`FoldedQuery`), not by regex."""
    query = _folded_query(tuple(terms))
    if not query.patterns or limit <= 0:
        return []
    hits: list[SearchHit] = []
    per: dict[str, int] = {}
    for is_title, group in ((True, titles), (False, messages)):
        for exact, tier in _tiers(group, query):
            for _, _, c, folded, value in tier:
                if not is_title:
                    if per.get(c.thread_id, 0) >= per_thread:
                        continue
                    per[c.thread_id] = per.get(c.thread_id, 0) + 1
                score = 20.0 * is_title + 10.0 * exact + value / (1.0 + value)
                hits.append(  # positional: SearchHit.cut_later's parameters in order
                    SearchHit.cut_later(
                        c.thread_id,
                        c.thread_title,
                        c.message_id,
                        partial(query.snippet, c.text, folded, phrase_found=exact),
                        round(score, 4),
                        c.created_at,
                        c.workspace_id,
                    )
                )
                if len(hits) >= limit:
                    return hits
    return hits


def candidates_per_thread(window: int, limit: int) -> int:
    """The most message candidates one thread may take in a window: few
    enough that a full window spans the threads to fill the list (``limit``
    hits, :data:`HITS_PER_THREAD` a thread), never fewer than a thread shows.
    Without it one chatty thread filled the window and hid every other."""
    return max(HITS_PER_THREAD, window * HITS_PER_THREAD // max(limit, 1))


class SearchService:
    def __init__(
        self,
        store: HistoryStore,
        *,
        now: Now = utc_clock,
        tz: tzinfo | None = None,
        window: int = 200,
        scan_rows: int = 50_000,
    ) -> None:
        """``window``: candidates read per search (newest matches first);
        ``scan_rows``: newest messages a scan for 1–2-character queries covers."""
        self._store = store
        self._now = now
        self._tz = tz
        self._window = window
        self._scan_rows = scan_rows

    async def search(
        self,
        query: str,
        *,
        since: str | None = None,
        workspace_id: str | None = None,
        include_archived: bool = False,
        limit: int = 50,
        now: datetime | None = None,
    ) -> list[SearchHit]:
        """Hits for ``query``, best first. ``since``: "today", "week", "month",
        "quarter" or None; ``now`` overrides the injected clock."""
        parsed = parse_query(query)
        if not parsed.terms or limit <= 0:
            return []
        start = since_start(since, now or self._now(), self._tz) if since else None
        filters = SearchFilters(
            since=format_time(start) if start else None,
            workspace_id=workspace_id,
            include_archived=include_archived,
        )
        window = max(self._window, limit * 2)
        titles, messages = await self._store.search(
            parsed.terms,
            filters,
            window=window,
            scan_rows=self._scan_rows,
            shown=limit,  # titles that fill the list leave messages unread
            per_thread=candidates_per_thread(window, limit),
        )
        return rank(parsed.terms, titles, messages, limit=limit)
