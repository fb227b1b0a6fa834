"""Results of knowledge-base work (PRODUCT.md §1, §3 path 2): what ingestion
reports, the ranked hits of a search, and what the knowledge-base chat path
hands to the chat service — the numbered :class:`Source` s, the
:class:`Citation` s found in an answer and the :class:`RagContext` of one
question. Import them from :mod:`mira_desktop.core.knowledge` (which loads
this module on first use). Standard library only."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from .errors import MiraError
    from .knowledge import ChunkRecord


class IngestStatus(StrEnum):
    READING = "reading"
    INDEXED = "indexed"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    FAILED = "failed"
    REMOVED = "removed"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """One step of an ingestion: ``done`` of ``total`` files finished;
    ``current`` is the file this step is about."""

    done: int
    total: int
    current: str
    status: IngestStatus
    message: str = ""


class IngestFailure(NamedTuple):
    """A file that could not be indexed: its path, why (in English, as the
    CLI prints it) and the error itself when there is one (the window words
    it in its own language)."""

    path: str
    error: str
    cause: MiraError | None = None


#: The ``skipped`` reason of a path given to ingest that does not exist.
NOT_FOUND = "not found"


@dataclass(frozen=True, slots=True)
class IngestReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    chunks_stored: int = 0
    chunks_shared: int = 0
    failed: tuple[IngestFailure, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    cancelled: bool = False

    @property
    def missing(self) -> tuple[str, ...]:
        """The paths given that do not exist (in ``skipped`` as :data:`NOT_FOUND`)."""
        return tuple(path for path, why in self.skipped if why == NOT_FOUND)

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "chunks_stored": self.chunks_stored,
            "chunks_shared": self.chunks_shared,
            "failed": [{"path": f.path, "error": f.error} for f in self.failed],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "warnings": list(self.warnings),
            "cancelled": self.cancelled,
        }


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A ranked passage. ``score``: the fused reciprocal-rank score, or the
    reranker's relevance when a reranker ordered the hits; ``highlights``:
    ``(start, end)`` offsets of query terms in ``snippet``; ``ranks``: the
    1-based rank in each list that found it (``lexical``, ``short``, ``dense``,
    ``rerank``)."""

    chunk: ChunkRecord
    score: float
    snippet: str
    highlights: tuple[tuple[int, int], ...] = ()
    ranks: dict[str, int] = field(default_factory=dict)


def location_label(location: dict[str, Any] | None) -> str:
    """A short readable place: ``page 3``, ``slide 2 (notes)``, ``sheet 销售``,
    ``Budget`` (a heading), ``line 120``."""
    if not location:
        return ""
    if "page" in location:
        return f"page {location['page']}"
    if "slide" in location:
        return f"slide {location['slide']}" + (" (notes)" if location.get("notes") else "")
    if "sheet" in location:
        return f"sheet {location['sheet']}"
    heading = location.get("heading")
    if heading:
        return str(heading)
    if "line" in location:
        return f"line {location['line']}"
    if "paragraph" in location:
        return f"paragraph {location['paragraph']}"
    return ""


@dataclass(frozen=True, slots=True)
class Source:
    """One numbered source of a knowledge-base answer, cited as ``[number]``."""

    number: int
    document: str
    path: str
    location: dict[str, Any]
    snippet: str
    chunk_id: str
    score: float
    document_id: str = ""
    kb_id: str = ""
    highlights: tuple[tuple[int, int], ...] = ()

    @property
    def label(self) -> str:
        return location_label(self.location)

    def to_data(self) -> dict[str, Any]:
        """The JSON form (``data["sources"]`` items of an assistant message)."""
        return {
            "number": self.number,
            "document": self.document,
            "document_id": self.document_id,
            "path": self.path,
            "location": dict(self.location),
            "location_label": self.label,
            "snippet": self.snippet,
            "highlights": [list(span) for span in self.highlights],
            "chunk_id": self.chunk_id,
            "kb_id": self.kb_id,
            "score": self.score,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Source:
        """A source from its JSON form; raises ``ValueError`` when it has no
        usable number (it could not be cited). Any other field that is not
        of its kind (an imported or hand-edited file) is left out."""
        number = _number(data.get("number"))
        if number is None:
            raise ValueError(f"a source needs a number, not {data.get('number')!r}")
        location = data.get("location")
        score = _number(data.get("score"), float)
        return cls(
            number=number,
            document=str(data.get("document", "")),
            path=str(data.get("path", "")),
            location=dict(location) if isinstance(location, dict) else {},
            snippet=str(data.get("snippet", "")),
            chunk_id=str(data.get("chunk_id", "")),
            score=score if score is not None else 0.0,
            document_id=str(data.get("document_id", "")),
            kb_id=str(data.get("kb_id", "")),
            highlights=_spans(data.get("highlights")),
        )


def _number(value: Any, kind: type[int] | type[float] = int) -> Any:
    """``value`` as ``kind`` when it is one (or its digits); None otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = kind(value)
    except (ValueError, OverflowError):
        return None
    return number if number == number else None  # NaN is no number


def _spans(value: Any) -> tuple[tuple[int, int], ...]:
    """The highlighted ``(start, end)`` spans; malformed ones are left out."""
    if not isinstance(value, list):
        return ()
    spans = []
    for item in value:
        if isinstance(item, list | tuple) and len(item) == 2:
            start, end = _number(item[0]), _number(item[1])
            if start is not None and end is not None:
                spans.append((start, end))
    return tuple(spans)


def sources_to_data(sources: tuple[Source, ...] | list[Source]) -> list[dict[str, Any]]:
    """The ``data["sources"]`` list of an assistant message."""
    return [source.to_data() for source in sources]


def sources_from_data(data: Any) -> list[Source]:
    """Sources read back from ``data["sources"]``: an item that is not a
    source (no usable number) is skipped and bad fields are left out, so an
    imported or edited thread's answer still shows (this runs each time an
    answer is shown)."""
    if not isinstance(data, list):
        return []
    sources = []
    for item in data:
        if not isinstance(item, dict):
            continue
        try:
            sources.append(Source.from_data(item))
        except ValueError:
            continue
    return sources


@dataclass(frozen=True, slots=True)
class Citation:
    """A ``[n]`` marker of an answer and the source it names."""

    number: int
    source: Source


class RagOutcome(StrEnum):
    ANSWER = "answer"  # retrieve and answer from the sources
    REFUSAL = "refusal"  # empty knowledge base: show ``text``, call no model
    FALLBACK = "fallback"  # no text question: normal chat, show ``note``


@dataclass(frozen=True, slots=True)
class RagContext:
    """What the knowledge-base path decided for one question.

    * ``ANSWER``: send ``system_prompt`` (instructions + the numbered sources)
      with the question (``services/chat_knowledge.py`` puts it before the
      question's text, after the history); store ``sources_to_data(sources)``
      in the assistant message's ``data["sources"]``. ``sources`` may be empty (nothing matched):
      the prompt then tells the model to say the knowledge base has no answer.
    * ``REFUSAL``: the assistant message is ``text``; no model call.
    * ``FALLBACK``: normal chat; show ``note`` on the message.
    ``warnings``: degraded retrieval (e.g. the embedding server failed and only
    keyword search ran)."""

    outcome: RagOutcome
    kb_id: str
    kb_name: str = ""
    question: str = ""
    sources: tuple[Source, ...] = ()
    system_prompt: str = ""
    text: str = ""
    note: str = ""
    warnings: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """What to merge into the assistant message's ``data``."""
        data: dict[str, Any] = {"kb_id": self.kb_id, "kb_path": self.outcome.value}
        if self.outcome is RagOutcome.ANSWER:
            data["sources"] = sources_to_data(self.sources)
        if self.note:
            data["kb_note"] = self.note
        if self.warnings:
            data["kb_warnings"] = list(self.warnings)
        return data
