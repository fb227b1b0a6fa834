"""Knowledge bases (issue 8): ingestion with structure-aware chunking and
deduplication (``manager``, ``ingest``, ``chunking``), hybrid retrieval —
FTS5 bm25 + optional vectors fused by reciprocal rank, optional rerank
(``retrieval``, ``query``, ``vectors``, ``embedding``) — and the knowledge-base
chat path's preparation and citations (``rag``). Qt-free.

The names below are imported from their modules on first access (PEP 562): the
timeline needs ``parse_citations`` at start-up, not the ingestion and retrieval
stack (readers, chunking, query planning) behind the service."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .manager import KnowledgeBaseService
    from .rag import RagService, parse_citations
    from .retrieval import Retriever, SearchResult

_HOMES = {
    "KnowledgeBaseService": ".manager",
    "RagService": ".rag",
    "parse_citations": ".rag",
    "Retriever": ".retrieval",
    "SearchResult": ".retrieval",
}

__all__ = ["KnowledgeBaseService", "RagService", "Retriever", "SearchResult", "parse_citations"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value
    return value
