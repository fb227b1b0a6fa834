"""The sources of an answer from a knowledge base — the knowledge-base path's
or the agent's retrieval tool's (``data["sources"]``) — as the readable
exports list them under the answer, so that its ``[n]`` citations still
point somewhere once the thread has left the app: the cited sources in the
order first cited, or all of them when the answer cites none. The JSON
export keeps the whole ``data`` already."""

from __future__ import annotations

from dataclasses import dataclass

from ...core.knowledge import Source, sources_from_data
from ...core.models import Message

#: longest snippet an export shows of a source
SNIPPET_CHARS = 300


@dataclass(frozen=True, slots=True)
class AnswerSources:
    heading: str  # "Sources · knowledge base “Farm”"
    sources: tuple[Source, ...]


def answer_sources(message: Message) -> AnswerSources | None:
    """What an export lists under ``message`` (None: no sources to list)."""
    data = message.data or {}
    sources = sources_from_data(data.get("sources"))
    if not sources:
        return None
    from ..kb.rag import parse_citations  # the KB stack loads with the first such answer

    cited = [c.source for c in parse_citations(message.text, sources)]
    name = str(data.get("kb_name") or "")
    place = f"knowledge base “{name}”" if name else "knowledge base"
    if data.get("kb_path") == "agent":
        place = f"found by the agent in the {place}"
    return AnswerSources(f"Sources · {place}", tuple(cited or sources))


def source_title(source: Source) -> str:
    """``report.pdf (page 2)``."""
    return f"{source.document} ({source.label})" if source.label else source.document


def source_snippet(source: Source) -> str:
    text = " ".join(source.snippet.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"
