"""Planning a keyword search from what the index knows of the terms.

FTS5's bm25 scores every passage that matches, so its cost grows with the
terms' document counts: a term found in half of 100,000 passages costs about
100 ms, and tells little about relevance. Before searching, the retriever
reads the terms' document counts from the index vocabulary
(``storage/kb_search_sql.term_stats``) and :func:`plan` keeps the rarest terms
within a budget of matching documents (a fifth of the passages, at least
10,000 — so small bases keep their terms); the rest are left out. When even the
rarest term is over the budget, the plan is a *window*: the newest few hundred
passages with that term, ranked by occurrences of all the terms.

Short terms are searched through the trigrams that start with them; a CJK
piece some of whose trigrams do not occur also searches its two-character
substrings (:func:`backoff_terms`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from ...core.knowledge import TermStats
from .query import QueryTerms

log = logging.getLogger(__name__)

#: Documents bm25 may score per query, as a share of the passages…
BUDGET_SHARE = 0.2
#: … and at least this many.
BUDGET_FLOOR = 10_000


@dataclass(frozen=True, slots=True)
class LexicalPlan:
    """``ranked``: terms for bm25; ``short``: trigram expansions of the kept
    short terms, for bm25; ``window``: the rarest term's phrases, for a bounded
    window (every term over the budget); ``dropped``: terms left out."""

    ranked: tuple[str, ...] = ()
    short: tuple[str, ...] = ()
    window: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


def backoff_terms(terms: QueryTerms, stats: TermStats) -> tuple[str, ...]:
    """The two-character substrings of the CJK pieces some of whose trigrams
    do not occur in the index (the question words it differently)."""
    found: list[str] = []
    for trigrams, bigrams in terms.backoff:
        if not all(stats.frequency.get(t, 0) for t in trigrams):
            found.extend(b for b in bigrams if b not in terms.short)
    return tuple(dict.fromkeys(found))


def with_backoff(
    terms: QueryTerms, stats: TermStats, extra: tuple[str, ...], more: TermStats
) -> tuple[QueryTerms, TermStats]:
    """``terms`` and ``stats`` with the back-off short terms added."""
    merged = TermStats(stats.total, stats.frequency, {**stats.expansions, **more.expansions})
    return replace(terms, short=(*terms.short, *extra)), merged


def plan(terms: QueryTerms, stats: TermStats) -> LexicalPlan:
    """Keep the rarest terms within the budget (see the module docstring)."""
    budget = max(BUDGET_SHARE * stats.total, BUDGET_FLOOR)
    counts = {term: stats.frequency.get(term, 0) for term in terms.match}
    for term in terms.short:
        counts[term] = min(stats.total, sum(n for _, n in stats.expansions.get(term, ())))
    possible = sorted((n, term) for term, n in counts.items() if n > 0)
    if not possible:
        return LexicalPlan()
    if possible[0][0] > budget:
        rarest = possible[0][1]
        window = (rarest,) if rarest in stats.frequency else _expanded([rarest], stats)
        return LexicalPlan(window=window, dropped=tuple(t for _, t in possible[1:]))
    kept, spent = [], 0
    for n, term in possible:
        if spent + n > budget:
            break
        kept.append(term)
        spent += n
    dropped = tuple(term for _, term in possible[len(kept) :])
    ranked = tuple(t for t in counts if t in kept and t in stats.frequency)
    short = [t for t in counts if t in kept and t not in stats.frequency]
    return LexicalPlan(ranked, _expanded(short, stats), dropped=dropped)


def _expanded(short: list[str], stats: TermStats) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for term in short for t, _ in stats.expansions.get(term, ())))
