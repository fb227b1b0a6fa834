"""Hybrid retrieval over one knowledge base.

Up to three ranked lists are made for a question, then fused by reciprocal-rank
fusion (RRF, ``k = 60``: a passage scores ``Σ 1 / (60 + rank)`` over the lists
that found it):

* ``lexical`` — FTS5 bm25 over the trigram index, terms OR-ed (always on; needs
  no model at all). Common terms are left out within a budget of scored
  documents, or a bounded window is ranked instead (``plan``);
* ``short`` — one- and two-character terms (``AI``, 学习) through the trigram
  vocabulary (``storage/kb_search_sql.py``), bm25-ranked, Latin terms kept only
  as whole words; an ``instr()`` scan when nothing else matched at all (in an
  index of at most ``SCAN_MAX_PASSAGES``);
* ``dense`` — when the base has an embedding model: the question's vector
  against the stored ones (sign-bit first pass, exact cosine rescoring; see
  ``vectors``).

With a rerank model configured, the best ``RERANK_POOL`` fused passages are
reordered by the provider's rerank endpoint. A failing embedding or rerank
server degrades to the lists that worked, with a warning, never an error."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.errors import MiraError
from ...core.knowledge import KnowledgeBase, SearchHit
from .embedding import EmbeddingClient
from .plan import backoff_terms, plan, with_backoff
from .query import QueryTerms, analyse, occurrence_pattern, word_pattern
from .snippet import passage_snippet
from .vectors import SignatureIndex, rescore

if TYPE_CHECKING:
    from ...storage.kb_store import KnowledgeStore

log = logging.getLogger(__name__)

RRF_K = 60
#: Passages taken from each ranked list before fusion.
LIST_DEPTH = 50
#: bm25's best passages re-ordered by the distinct terms they contain.
LEXICAL_POOL = 100
#: Passages the reranker reorders.
RERANK_POOL = 20
#: Passages read for the short-term list (then checked for whole words).
SHORT_POOL = 100
#: Passages of the window ranked when every term is common.
WINDOW = 500
#: Rows the last-resort short-term scan reads at most…
SCAN_LIMIT = 2_000
#: … and only in an index of at most this many passages (it reads them all).
SCAN_MAX_PASSAGES = 20_000


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: tuple[SearchHit, ...]
    terms: QueryTerms
    methods: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


Fused = tuple[int, float, dict[str, int]]


def fuse(rankings: Mapping[str, Sequence[int]], k: int = RRF_K) -> list[Fused]:
    """Reciprocal-rank fusion: ``(seq, score, ranks)`` best first; ties go to
    the better single rank, then the older passage."""
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, seqs in rankings.items():
        for rank, seq in enumerate(seqs, 1):
            scores[seq] = scores.get(seq, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(seq, {})[name] = rank
    ordered = sorted(scores, key=lambda s: (-scores[s], min(ranks[s].values()), s))
    return [(seq, scores[seq], ranks[seq]) for seq in ordered]


def coordinated(rows: Sequence[tuple[int, str]], terms: Sequence[str]) -> list[int]:
    """bm25-ordered rows re-ordered by how many distinct terms each contains
    (bm25 order kept among equals): with OR-ed terms, bm25 alone can put a
    passage repeating one term above one containing them all."""
    lowered = [term.lower() for term in terms]
    distinct = {seq: sum(1 for t in lowered if t in text.lower()) for seq, text in rows}
    order = {seq: n for n, (seq, _) in enumerate(rows)}
    return sorted(distinct, key=lambda seq: (-distinct[seq], order[seq]))


def rank_by_occurrences(rows: Sequence[tuple[int, str]], terms: Sequence[str]) -> list[int]:
    """Seqs of ``rows`` ordered by how many distinct terms they contain, then
    by occurrences (short Latin terms only as whole words); rows with none
    are dropped."""
    patterns = [occurrence_pattern(term) for term in terms]
    counts: Counter[int] = Counter()
    for seq, text in rows:
        found = [len(p.findall(text)) for p in patterns]
        if any(found):
            counts[seq] = sum(1 for n in found if n) * 1000 + sum(found)
    return [seq for seq, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


class Retriever:
    """Searches knowledge bases; caches each base's vector signatures by its
    ``index_version``."""

    def __init__(self, store: KnowledgeStore, embeddings: EmbeddingClient | None) -> None:
        self._store = store
        self._embeddings = embeddings
        self._indexes: dict[str, SignatureIndex] = {}

    async def search(self, kb: KnowledgeBase, query: str, *, limit: int = 8) -> SearchResult:
        """The best ``limit`` passages of ``kb`` for ``query``."""
        terms = analyse(query)
        warnings: list[str] = []
        rankings = await self._lexical(kb.id, terms)
        if kb.embedding is not None and self._embeddings is not None and query.strip():
            dense = await self._dense_or_warn(kb, query, warnings)
            if dense is not None:
                rankings["dense"] = dense
        fused = fuse({name: seqs for name, seqs in rankings.items() if seqs})
        pool = fused[: max(limit, RERANK_POOL) if kb.rerank else limit]
        hits = await self._hits(pool, terms)
        methods = tuple(name for name, seqs in rankings.items() if seqs)
        if kb.rerank is not None and self._embeddings is not None and len(hits) > 1:
            reranked = await self._rerank_or_warn(kb, query, hits, limit, warnings)
            if reranked is not None:
                hits, methods = reranked, (*methods, "rerank")
        return SearchResult(tuple(hits[:limit]), terms, methods, tuple(warnings))

    async def _lexical(self, kb_id: str, terms: QueryTerms) -> dict[str, list[int]]:
        """The keyword lists: bm25 over the selective terms (``lexical``) and
        the short terms' expansions (``short``, Latin ones kept as whole
        words); a ranked window when every term is common; a scan only as the
        last resort (nothing else matched)."""
        if terms.empty:
            return {}
        stats = await self._store.term_stats(terms.match, terms.short)
        extra = backoff_terms(terms, stats)
        if extra:
            more = await self._store.term_stats((), extra)
            terms, stats = with_backoff(terms, stats, extra, more)
        steps = plan(terms, stats)
        rankings: dict[str, list[int]] = {}
        if steps.ranked:
            rows = await self._store.ranked_matches(kb_id, steps.ranked, LEXICAL_POOL)
            rankings["lexical"] = coordinated(rows, steps.ranked)[:LIST_DEPTH]
        if steps.short:
            rows = await self._store.ranked_matches(kb_id, steps.short, SHORT_POOL)
            patterns = [word_pattern(term) for term in terms.short]
            found = [seq for seq, text in rows if any(p.search(text) for p in patterns)]
            rankings["short"] = found[:LIST_DEPTH]
        if steps.window:
            rows = await self._store.recent_matches(kb_id, steps.window, WINDOW)
            ranked = rank_by_occurrences(rows, [*terms.match, *terms.short])
            rankings["lexical"] = ranked[:LIST_DEPTH]
        if terms.short and not any(rankings.values()) and stats.total <= SCAN_MAX_PASSAGES:
            lowered = [t.lower() for t in terms.short]
            rows = await self._store.scan_terms(kb_id, lowered, SCAN_LIMIT)
            rankings["short"] = rank_by_occurrences(rows, terms.short)[:LIST_DEPTH]
        return rankings

    async def _hits(self, pool: Sequence[Fused], terms: QueryTerms) -> list[SearchHit]:
        records = await self._store.chunk_records([seq for seq, _, _ in pool])
        hits = []
        for seq, score, ranks in pool:
            record = records.get(seq)
            if record is None:
                continue  # removed meanwhile
            snippet, spans = passage_snippet(record.text, terms.highlight)
            hits.append(SearchHit(record, score, snippet, spans, dict(ranks)))
        return hits

    async def _dense_or_warn(
        self, kb: KnowledgeBase, query: str, warnings: list[str]
    ) -> list[int] | None:
        try:
            return await self.dense(kb, query, LIST_DEPTH)
        except MiraError as exc:
            log.warning("vector search of %s failed: %s", kb.name, exc)
            warnings.append(f"Vector search failed, keyword search only: {exc}")
            return None

    async def dense(self, kb: KnowledgeBase, query: str, limit: int) -> list[int]:
        """Seqs of the passages nearest to the question's embedding."""
        assert kb.embedding is not None and self._embeddings is not None
        index = await self._signature_index(kb.id)
        if not len(index):
            return []
        [(vector, signature)] = await self._embeddings.embed(kb.embedding, [query])
        candidates = await asyncio.to_thread(index.candidates, signature)
        vectors = await self._store.embeddings(candidates)
        scored = await asyncio.to_thread(rescore, vector, vectors, limit)
        return [seq for seq, _ in scored]

    async def _signature_index(self, kb_id: str) -> SignatureIndex:
        version = await self._store.index_version(kb_id)
        cached = self._indexes.get(kb_id)
        if cached is not None and cached.version == version:
            return cached
        version, seqs, signatures = await self._store.signatures(kb_id)
        index = await asyncio.to_thread(SignatureIndex, version, seqs, signatures)
        self._indexes[kb_id] = index
        return index

    async def _rerank_or_warn(
        self,
        kb: KnowledgeBase,
        query: str,
        hits: list[SearchHit],
        limit: int,
        warnings: list[str],
    ) -> list[SearchHit] | None:
        assert kb.rerank is not None and self._embeddings is not None
        try:
            pairs = await self._embeddings.rerank(
                kb.rerank, query, [hit.chunk.text for hit in hits], top_n=min(limit, len(hits))
            )
        except MiraError as exc:
            log.warning("rerank of %s failed: %s", kb.name, exc)
            warnings.append(f"Reranking failed, fused order kept: {exc}")
            return None
        ordered: list[SearchHit] = []
        chosen: set[int] = set()
        for index, relevance in pairs:
            if index in chosen:
                continue
            chosen.add(index)
            hit = hits[index]
            ranks = {**hit.ranks, "rerank": len(chosen)}
            ordered.append(SearchHit(hit.chunk, relevance, hit.snippet, hit.highlights, ranks))
        ordered.extend(hit for i, hit in enumerate(hits) if i not in chosen)
        return ordered
