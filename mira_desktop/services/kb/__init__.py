"""Knowledge bases (issue 8): ingestion with structure-aware chunking and
deduplication (``manager``, ``ingest``, ``chunking``), hybrid retrieval —
FTS5 bm25 + optional vectors fused by reciprocal rank, optional rerank
(``retrieval``, ``query``, ``vectors``, ``embedding``) — and the knowledge-base
chat path's preparation and citations (``rag``). Qt-free."""

from __future__ import annotations

from .manager import KnowledgeBaseService
from .rag import RagService, parse_citations
from .retrieval import Retriever, SearchResult

__all__ = ["KnowledgeBaseService", "RagService", "Retriever", "SearchResult", "parse_citations"]
