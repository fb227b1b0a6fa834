"""What ``mira-desktop chat`` prints about the knowledge-base path (PRODUCT.md
§3 path 2) once an answer is finished: read from the answer's ``data``.

* ``--json``: one ``sources`` event, printed right before the terminal line::

    {"type": "sources", "thread_id": …, "message_id": …, "kb_id": …,
     "kb_name": "Farm", "kb_path": "answer" | "refusal" | "fallback" | "agent",
     "note": null | "The knowledge base was not searched: …",
     "warnings": [...], "cited": [1, 3],
     "sources": [{"number", "document", "path", "location", "location_label",
                  "snippet", "highlights", "chunk_id", "score", …}, …]}

  ``sources`` lists every passage the model was given (empty for a refusal or
  a fallback; for ``agent``, every passage its searches of the base found);
  ``cited`` the numbers the answer cites, in order.
* plain: ``Sources:`` and one line per cited source (every source when the
  answer cites none) — ``[1] report.pdf (page 3)`` — after the answer."""

from __future__ import annotations

import logging
from typing import Any

from ..core.events import Completed, Failed, Stopped
from ..core.knowledge import Source, sources_from_data
from ..services.kb import parse_citations

log = logging.getLogger(__name__)


def _kb_data(event: Completed | Stopped | Failed) -> dict[str, Any] | None:
    data = event.message.data if event.message is not None else None
    return data if data and data.get("kb_path") else None


def cited_sources(text: str, sources: list[Source]) -> list[Source]:
    """The sources the answer cites, in citation order."""
    return [citation.source for citation in parse_citations(text, sources)]


def sources_event(event: Completed | Stopped | Failed) -> dict[str, Any] | None:
    """The ``sources`` JSON event of a knowledge-base answer, else None."""
    data = _kb_data(event)
    if data is None:
        return None
    sources = sources_from_data(data.get("sources"))
    return {
        "type": "sources",
        "thread_id": event.thread_id,
        "message_id": event.message_id,
        "kb_id": data.get("kb_id"),
        "kb_name": data.get("kb_name"),
        "kb_path": data.get("kb_path"),
        "note": data.get("kb_note"),
        "warnings": list(data.get("kb_warnings") or []),
        "cited": [s.number for s in cited_sources(event.text, sources)],
        "sources": [s.to_data() for s in sources],
    }


def source_line(source: Source) -> str:
    place = f" ({source.label})" if source.label else ""
    return f"[{source.number}] {source.document}{place}"


def sources_lines(event: Completed | Stopped | Failed) -> list[str]:
    """The plain-text lines after an answer from sources (none otherwise)."""
    data = _kb_data(event)
    sources = sources_from_data(data.get("sources")) if data else []
    if not sources:
        return []
    shown = cited_sources(event.text, sources) or sources
    return ["Sources:", *(source_line(s) for s in shown)]


def kb_notices(event: Completed | Stopped | Failed) -> list[str]:
    """Notes for standard error: the fallback note and degraded retrieval."""
    data = _kb_data(event) or {}
    notes = [str(data["kb_note"])] if data.get("kb_note") else []
    return notes + [str(w) for w in data.get("kb_warnings") or []]
