"""The agent's retrieval tool (PRODUCT.md §3 path 3): with a knowledge base
bound to the thread, ``search_knowledge_base`` finds its best passages for a
query (the same hybrid retrieval as the knowledge-base path) and hands them
to the model numbered ``[1]``, ``[2]``… The numbers hold for the whole answer
— a passage found again keeps its number, sub-agents share them — so the
answer's citations point into one Sources list: :meth:`KnowledgeSearch.data`
is what the answer's ``data`` records (``kb_path`` "agent", ``sources``),
shown and exported like a knowledge-base answer's. Read-only, never asked."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ...core.agent import ToolOutcome, ToolPreview, ToolRefused
from ...core.errors import MiraError
from ...core.knowledge import SearchHit, Source, sources_to_data
from ...core.models import ToolSpec
from ..kb.rag import passage_block, source_of

if TYPE_CHECKING:
    from ..kb.rag import RagService

log = logging.getLogger(__name__)

NAME = "search_knowledge_base"
MAX_PASSAGES = 20
#: what the answer's ``data["kb_path"]`` says of sources the agent found
AGENT_PATH = "agent"


def spec(kb_name: str) -> ToolSpec:
    return ToolSpec(
        NAME,
        f"Search the knowledge base “{kb_name}” bound to this chat (the user's documents)."
        " Returns its best passages for the query, each numbered [n] with its document and"
        " place. Cite the passages you use as [n] right after the statement they support;"
        " a number stays the same for the whole answer.",
        {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What to look for: words or a question, in any language.",
                },
                "max_results": {
                    "type": "integer",
                    "description": f"How many passages (1-{MAX_PASSAGES}; default: the base's).",
                    "minimum": 1,
                    "maximum": MAX_PASSAGES,
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    )


class KnowledgeSearch:
    """The bound base's passages for one answer, numbered as they are found."""

    def __init__(self, rag: RagService, kb_id: str, kb_name: str) -> None:
        self.kb_id = kb_id
        self.kb_name = kb_name
        self.spec = spec(kb_name)
        self._rag = rag
        self._sources: dict[str, Source] = {}  # by chunk id, in the order found
        self._warnings: list[str] = []
        self._empty = False  # the base had no documents when last searched
        self.searches = 0  # searches that reached the base (sources may be none)

    def preview(self, arguments: dict[str, Any]) -> ToolPreview:
        return ToolPreview.worded("Search the knowledge base for {query}", query=_query(arguments))

    async def run(self, arguments: dict[str, Any]) -> ToolOutcome:
        query = _query(arguments)
        limit = arguments.get("max_results")
        try:
            found = await self._rag.lookup(
                self.kb_id, query, limit=limit if isinstance(limit, int) else None
            )
        except MiraError as exc:
            log.info("knowledge base search failed: %s", exc)
            return ToolOutcome(False, f"The knowledge base search failed: {exc.message}")
        self.searches += 1
        self.kb_name = found.kb.name
        self._empty = found.empty
        for warning in found.warnings:
            if warning not in self._warnings:
                self._warnings.append(warning)
        if found.empty:
            return ToolOutcome(True, f"The knowledge base “{self.kb_name}” has no documents yet.")
        if not found.hits:
            return ToolOutcome(
                True,
                f"No passage of the knowledge base “{self.kb_name}” matched {query!r}."
                " Try other words, or say that the base does not hold it.",
            )
        return ToolOutcome(True, "\n\n".join(self._passage(hit) for hit in found.hits))

    def _passage(self, hit: SearchHit) -> str:
        """``[n] document, place`` and the passage's text; ``n`` given on first sight."""
        source = self._sources.get(hit.chunk.chunk_id)
        if source is None:
            source = source_of(hit, len(self._sources) + 1, self.kb_id)
            self._sources[hit.chunk.chunk_id] = source
        return passage_block(source.number, hit)

    def sources(self) -> tuple[Source, ...]:
        return tuple(self._sources.values())

    def data(self) -> dict[str, Any] | None:
        """What the answer's ``data`` records once the base was searched
        (None before): the base, ``kb_path`` "agent", the numbered sources,
        retrieval's warnings, and ``kb_empty`` when the base had no documents."""
        if not self.searches:
            return None
        data: dict[str, Any] = {
            "kb_id": self.kb_id,
            "kb_name": self.kb_name,
            "kb_path": AGENT_PATH,
            "sources": sources_to_data(self.sources()),
        }
        if self._warnings:
            data["kb_warnings"] = list(self._warnings)
        if self._empty and not self._sources:
            data["kb_empty"] = True  # said as such, not as "nothing matched"
        return data


def _query(arguments: dict[str, Any]) -> str:
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolRefused(f"{NAME} needs the argument query.")
    return " ".join(query.split())
