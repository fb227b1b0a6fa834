"""``RagService``: the knowledge-base chat path's preparation (PRODUCT.md §3
path 2) and the reading of citations in its answers.

:meth:`RagService.prepare` decides, for one question to a thread with a bound
knowledge base (or to a base directly), one of three outcomes
(:class:`~mira_desktop.core.knowledge.RagContext`):

1. no text question (only files or images) → ``FALLBACK``: normal chat, with the
   visible note that the base was not searched;
2. an empty base → ``REFUSAL`` with the fixed text; no model is called;
3. otherwise → ``ANSWER``: the best passages (hybrid retrieval, optional
   rerank) numbered as sources, and a system prompt that asks the model to
   answer only from them, cite them as ``[1]``, ``[2]`` and say so when they do
   not hold the answer.

:func:`parse_citations` maps the ``[n]`` markers of an answer (also ``[1, 2]``,
``[1-3]`` and ``[1][3]``) back to sources."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.errors import ConfigError, NotFoundError
from ...core.knowledge import (
    EMPTY_KB_REFUSAL,
    NOT_SEARCHED_NOTE,
    Citation,
    KnowledgeBase,
    RagContext,
    RagOutcome,
    SearchHit,
    Source,
    location_label,
)

if TYPE_CHECKING:
    from ...storage.kb_store import KnowledgeStore
    from .retrieval import Retriever

log = logging.getLogger(__name__)

DEFAULT_TOP_K = 6
_CITATION = re.compile(r"\[(\s*\d+(?:\s*(?:[,，、;]|[-–—])\s*\d+)*\s*)\](?!\()")
_RANGE = re.compile(r"(\d+)\s*[-–—]\s*(\d+)")
_MAX_RANGE = 50

_INSTRUCTIONS = """You answer questions from the knowledge base "{name}". Use ONLY the numbered sources below; do not use outside knowledge.
- Cite the sources you use with their numbers in square brackets, such as [1] or [2][3], right after the statement they support.
- If the sources do not contain the answer, say clearly that the knowledge base does not contain it (you may mention related information the sources do contain). Never invent facts, sources or numbers.
- Answer in the language of the question."""

_NO_SOURCES = """

No passage of the knowledge base matched the question. Say that the knowledge base does not contain the answer, and suggest rephrasing the question or adding documents."""


@dataclass(frozen=True, slots=True)
class Lookup:
    """What one search of a base found: its best passages, best first;
    ``empty``: the base has no documents; ``warnings``: degraded retrieval."""

    kb: KnowledgeBase
    hits: tuple[SearchHit, ...] = ()
    warnings: tuple[str, ...] = ()
    empty: bool = False


def has_text_question(text: str) -> bool:
    """Whether the input holds a question in words (any letter or digit)."""
    return any(ch.isalnum() for ch in text)


def source_of(hit: SearchHit, number: int, kb_id: str) -> Source:
    """The source ``[number]`` a passage becomes in an answer."""
    return Source(
        number=number,
        document=hit.chunk.document_name,
        path=hit.chunk.path,
        location=dict(hit.chunk.location),
        snippet=hit.snippet,
        chunk_id=hit.chunk.chunk_id,
        score=hit.score,
        document_id=hit.chunk.document_id,
        kb_id=kb_id,
        highlights=hit.highlights,
    )


def build_sources(hits: Sequence[SearchHit], kb_id: str) -> tuple[Source, ...]:
    return tuple(source_of(hit, n, kb_id) for n, hit in enumerate(hits, 1))


def passage_block(number: int, hit: SearchHit) -> str:
    """A passage as the model reads it: ``[n] document, place`` and its text."""
    place = location_label(hit.chunk.location)
    title = f"{hit.chunk.document_name}, {place}" if place else hit.chunk.document_name
    return f"[{number}] {title}\n{hit.chunk.text.strip()}"


def build_system_prompt(kb_name: str, hits: Sequence[SearchHit]) -> str:
    """The instructions plus the numbered sources, each with its document,
    location and full passage text."""
    prompt = _INSTRUCTIONS.format(name=kb_name)
    if not hits:
        return prompt + _NO_SOURCES
    blocks = [passage_block(n, hit) for n, hit in enumerate(hits, 1)]
    return prompt + "\n\nSources:\n\n" + "\n\n".join(blocks)


def parse_citations(answer_text: str, sources: Sequence[Source]) -> list[Citation]:
    """The sources an answer cites, in order of first citation, each once.
    Numbers without a source (the model invented them) are ignored."""
    by_number = {source.number: source for source in sources}
    seen: dict[int, Citation] = {}
    for match in _CITATION.finditer(answer_text):
        for number in _numbers(match.group(1)):
            if number in by_number and number not in seen:
                seen[number] = Citation(number, by_number[number])
    return list(seen.values())


def _numbers(group: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"[,，、;]", group):
        span = _RANGE.search(part)
        if span:
            low, high = int(span.group(1)), int(span.group(2))
            if low <= high and high - low <= _MAX_RANGE:
                numbers.extend(range(low, high + 1))
        elif part.strip().isdigit():
            numbers.append(int(part.strip()))
    return numbers


class RagService:
    """Prepares knowledge-base answers (see the module docstring)."""

    def __init__(self, store: KnowledgeStore, retriever: Retriever) -> None:
        self._store = store
        self._retriever = retriever

    async def prepare(
        self, thread_or_kb_id: str, question: str, *, has_files: bool = False
    ) -> RagContext:
        """The context of one question. ``thread_or_kb_id``: a knowledge base's
        id, or a thread's id (its bound base is used; an unbound thread is a
        ``ConfigError``). ``has_files``: the input carries files or images."""
        kb = await self._resolve(thread_or_kb_id)
        if not has_text_question(question):
            log.debug("no text question (files: %s): %s not searched", has_files, kb.name)
            return RagContext(RagOutcome.FALLBACK, kb.id, kb.name, question, note=NOT_SEARCHED_NOTE)
        if await self._store.chunk_count(kb.id) == 0:
            return RagContext(RagOutcome.REFUSAL, kb.id, kb.name, question, text=EMPTY_KB_REFUSAL)
        result = await self._retriever.search(kb, question, limit=top_k(kb))
        return RagContext(
            RagOutcome.ANSWER,
            kb.id,
            kb.name,
            question,
            sources=build_sources(result.hits, kb.id),
            system_prompt=build_system_prompt(kb.name, result.hits),
            warnings=result.warnings,
        )

    async def knowledge_base(self, kb_id: str) -> KnowledgeBase:
        """The knowledge base ``kb_id`` (NotFoundError when it is gone)."""
        return await self._store.get(kb_id)

    async def lookup(self, kb_id: str, query: str, *, limit: int | None = None) -> Lookup:
        """The best passages of the base ``kb_id`` for ``query`` (the agent's
        retrieval tool): ``limit`` or the base's ``top_k``."""
        kb = await self._store.get(kb_id)
        if await self._store.chunk_count(kb.id) == 0:
            return Lookup(kb, empty=True)
        result = await self._retriever.search(kb, query, limit=limit or top_k(kb))
        return Lookup(kb, result.hits, result.warnings)

    async def _resolve(self, thread_or_kb_id: str) -> KnowledgeBase:
        kb = await self._store.find(thread_or_kb_id)
        if kb is not None:
            return kb
        try:
            thread = await self._store.get_thread(thread_or_kb_id)
        except NotFoundError:  # a base deleted after it was chosen (a new chat's)
            raise NotFoundError(
                "The knowledge base chosen for this chat no longer exists.",
                hint="Pick another one, or none, above the conversation.",
            ) from None
        if thread.kb_id is None:
            raise ConfigError(
                "This thread has no knowledge base.",
                hint="Bind one with `mira-desktop kb bind NAME --thread ID`.",
            )
        return await self._store.get(thread.kb_id)


def top_k(kb: KnowledgeBase) -> int:
    """Sources per answer: the base's ``top_k`` setting (1–20), else 6."""
    value = kb.settings.get("top_k")
    return value if isinstance(value, int) and 1 <= value <= 20 else DEFAULT_TOP_K
