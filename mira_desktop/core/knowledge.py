"""Value types of knowledge bases (PRODUCT.md §1, §3 path 2): a knowledge base
and its settings, its documents, index statistics, what ingestion reports, the
ranked hits of a search, and what the knowledge-base chat path hands to the chat
service — the numbered :class:`Source` s, the :class:`Citation` s found in an
answer and the :class:`RagContext` of one question.

``Source.to_data()`` is the JSON form stored in an assistant message's
``data["sources"]`` (see :func:`sources_to_data`); the window's Sources list and
exports read it back with :func:`sources_from_data`. Standard library only.

The bases' and documents' types are defined here; ingestion's reports, search
hits, sources, citations and the RAG context (:mod:`.knowledge_results`) are
imported on first use through this module: the window's start-up (the
picker's statistics, through the knowledge-base store) needs only the
former, and each frozen dataclass costs ~1 ms to define."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

#: The fixed refusal of an empty knowledge base (no model is called).
EMPTY_KB_REFUSAL = "This knowledge base has no documents yet."
#: The visible note when a message has files or images but no text question.
NOT_SEARCHED_NOTE = "The knowledge base was not searched: the message has no text question."


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A configured provider (by name) and one of its models."""

    provider: str
    model: str


@dataclass(frozen=True, slots=True)
class KnowledgeBase:
    """A knowledge base. ``settings`` is the parsed ``settings_json``:
    ``{"embedding": {"provider", "model", "dims"?}, "rerank": {"provider", "model"},
    "folders": [...], "top_k": 6, "chunk_size": 1200, "chunk_overlap": 200}``."""

    id: str
    name: str
    settings: dict[str, Any] = field(default_factory=dict)
    index_version: int = 0
    created_at: str = ""
    updated_at: str = ""

    @property
    def embedding(self) -> ModelRef | None:
        return _model_ref(self.settings.get("embedding"))

    @property
    def rerank(self) -> ModelRef | None:
        return _model_ref(self.settings.get("rerank"))


def _model_ref(value: Any) -> ModelRef | None:
    if isinstance(value, dict) and value.get("provider") and value.get("model"):
        return ModelRef(str(value["provider"]), str(value["model"]))
    return None


@dataclass(frozen=True, slots=True)
class KnowledgeBaseStats:
    """Counts and index size of one knowledge base. ``index_bytes`` is
    approximate: UTF-8 bytes of the chunk text + embedding bytes + this base's
    share of the full-text index (its share of all chunk text, times the FTS
    tables' stored size)."""

    kb: KnowledgeBase
    documents: int = 0
    chunks: int = 0
    embedded_chunks: int = 0
    text_bytes: int = 0
    embedding_bytes: int = 0
    fts_bytes: int = 0

    @property
    def index_bytes(self) -> int:
        return self.text_bytes + self.embedding_bytes + self.fts_bytes


@dataclass(frozen=True, slots=True)
class KbDocument:
    """A file of a knowledge base. ``chunks`` counts the passages it owns plus
    those it shares with another document (stored once, see deduplication)."""

    id: str
    kb_id: str
    path: str
    name: str
    sha256: str
    mime: str = ""
    size: int = 0
    mtime: float | None = None
    status: str = "indexed"
    error: str | None = None
    #: the error whole (``MiraError.to_dict``) when it was one of Mira's
    error_detail: Mapping[str, Any] | None = None
    chunks: int = 0
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class DocumentInput:
    """What ingestion writes for one file."""

    path: str
    name: str
    sha256: str
    mime: str
    size: int
    mtime: float


@dataclass(frozen=True, slots=True)
class ChunkInput:
    """One passage to store: ``sha256`` of its normalised text (the dedupe key),
    and optionally its embedding (float32 bytes) and sign signature."""

    ordinal: int
    text: str
    location: dict[str, Any]
    sha256: str
    embedding: bytes | None = None
    signature: bytes | None = None


@dataclass(frozen=True, slots=True)
class StoredChunks:
    """What one document write did: passages stored, and passages already in
    the knowledge base (recorded as shared, not stored again)."""

    document: KbDocument
    stored: int
    shared: int


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A stored passage with its document, as retrieval reads it."""

    seq: int
    chunk_id: str
    document_id: str
    document_name: str
    path: str
    text: str
    location: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TermStats:
    """What the full-text index's vocabulary says of a query's terms:
    ``total`` passages (all bases, an upper bound); per term of three or more
    characters its estimated document count (its rarest trigram's; 0 means it
    cannot match); per shorter term the trigrams starting with it and their
    document counts, most frequent first."""

    total: int
    frequency: dict[str, int] = field(default_factory=dict)
    expansions: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)


if TYPE_CHECKING:
    from .knowledge_results import (
        NOT_FOUND,
        Citation,
        IngestFailure,
        IngestProgress,
        IngestReport,
        IngestStatus,
        RagContext,
        RagOutcome,
        SearchHit,
        Source,
        location_label,
        sources_from_data,
        sources_to_data,
    )

__all__ = [
    "EMPTY_KB_REFUSAL",
    "NOT_FOUND",
    "NOT_SEARCHED_NOTE",
    "ChunkInput",
    "ChunkRecord",
    "Citation",
    "DocumentInput",
    "IngestFailure",
    "IngestProgress",
    "IngestReport",
    "IngestStatus",
    "KbDocument",
    "KnowledgeBase",
    "KnowledgeBaseStats",
    "ModelRef",
    "RagContext",
    "RagOutcome",
    "SearchHit",
    "Source",
    "StoredChunks",
    "TermStats",
    "location_label",
    "sources_from_data",
    "sources_to_data",
]

#: Names of :mod:`.knowledge_results`, read through this module on first use.
_RESULTS = frozenset(
    {
        "Citation",
        "IngestFailure",
        "IngestProgress",
        "IngestReport",
        "IngestStatus",
        "NOT_FOUND",
        "RagContext",
        "RagOutcome",
        "SearchHit",
        "Source",
        "location_label",
        "sources_from_data",
        "sources_to_data",
    }
)


def __getattr__(name: str) -> Any:
    if name in _RESULTS:
        from . import knowledge_results

        return getattr(knowledge_results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
