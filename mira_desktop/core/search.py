"""Value types of full-text search (PRODUCT.md §8, Ctrl+K): the filters a search
applies, the raw candidates storage finds, and the ranked :class:`SearchHit` the
dialog shows. No behaviour beyond serialisation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrictions on a search. ``since`` is a UTC ISO-8601 lower bound
    (messages by creation time, titles by the thread's last activity)."""

    since: str | None = None
    workspace_id: str | None = None
    include_archived: bool = False


class SearchCandidate(NamedTuple):
    """A row storage matched: a thread title (``message_id`` None; ``text`` is
    the title, ``created_at`` the thread's last activity) or a message.

    A named tuple, fields in the order of the SQL's columns, so storage builds
    the (up to 400) candidates of a search straight from its rows
    (``SearchCandidate._make``), several times cheaper than a frozen dataclass."""

    thread_id: str
    thread_title: str
    workspace_id: str
    message_id: str | None
    text: str
    created_at: str


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result, in rank order. ``highlights`` are ``(start, end)``
    character offsets of the matches inside ``snippet``; ``score`` is higher
    for better hits (only the order of the list is meaningful)."""

    thread_id: str
    thread_title: str
    message_id: str | None
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    score: float
    created_at: str
    workspace_id: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "thread_title": self.thread_title,
            "message_id": self.message_id,
            "snippet": self.snippet,
            "highlights": [list(span) for span in self.highlights],
            "score": self.score,
            "created_at": self.created_at,
            "workspace_id": self.workspace_id,
        }
