"""Value types of full-text search (PRODUCT.md §8, Ctrl+K): the filters a search
applies, the raw candidates storage finds, and the ranked :class:`SearchHit` the
dialog shows. No behaviour beyond serialisation, and a hit's snippet cut when
first read."""

from __future__ import annotations

from collections.abc import Callable
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


Span = tuple[int, int]
#: cuts a hit's snippet when first asked: (snippet, highlights)
SnippetCut = Callable[[], tuple[str, tuple[Span, ...]]]


_HIT_FIELDS = (
    "thread_id",
    "thread_title",
    "message_id",
    "snippet",
    "highlights",
    "score",
    "created_at",
    "workspace_id",
)


class SearchHit:
    """One search result, in rank order. ``highlights`` are ``(start, end)``
    character offsets of the matches inside ``snippet``; ``score`` is higher
    for better hits (only the order of the list is meaningful). A value:
    equal to a hit with the same fields; not to be changed once made.

    The search service makes hits with :meth:`cut_later`: the snippet is cut
    the first time ``snippet`` or ``highlights`` is read. The dialog paints
    the ~10 rows it shows, so the other ~40 of a search's 50 hits are never
    cut — on the Qt thread, where the service ranks, snippets were a third of
    a search's ranking (~0.5 ms)."""

    __slots__ = (
        "_cut",
        "_snippet",
        "created_at",
        "message_id",
        "score",
        "thread_id",
        "thread_title",
        "workspace_id",
    )

    thread_id: str
    thread_title: str
    message_id: str | None
    score: float
    created_at: str
    workspace_id: str

    def __init__(
        self,
        thread_id: str,
        thread_title: str,
        message_id: str | None,
        snippet: str,
        highlights: tuple[Span, ...],
        score: float,
        created_at: str,
        workspace_id: str,
    ) -> None:
        self.thread_id = thread_id
        self.thread_title = thread_title
        self.message_id = message_id
        self.score = score
        self.created_at = created_at
        self.workspace_id = workspace_id
        self._cut: SnippetCut | None = None
        self._snippet: tuple[str, tuple[Span, ...]] | None = (snippet, tuple(highlights))

    @classmethod
    def cut_later(
        cls,
        thread_id: str,
        thread_title: str,
        message_id: str | None,
        cut: SnippetCut,
        score: float,
        created_at: str,
        workspace_id: str,
    ) -> SearchHit:
        """A hit whose snippet and highlights ``cut()`` gives when first read."""
        hit = cls(thread_id, thread_title, message_id, "", (), score, created_at, workspace_id)
        hit._cut = cut
        hit._snippet = None
        return hit

    def _cut_snippet(self) -> tuple[str, tuple[Span, ...]]:
        snippet = self._snippet
        if snippet is None:
            assert self._cut is not None
            snippet = self._snippet = self._cut()
            self._cut = None  # the text it held is no longer needed
        return snippet

    @property
    def is_cut(self) -> bool:
        """Whether the snippet has been cut (always, for a hit made with it)."""
        return self._snippet is not None

    @property
    def snippet(self) -> str:
        return self._cut_snippet()[0]

    @property
    def highlights(self) -> tuple[Span, ...]:
        return self._cut_snippet()[1]

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.thread_id,
            self.thread_title,
            self.message_id,
            *self._cut_snippet(),
            self.score,
            self.created_at,
            self.workspace_id,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SearchHit):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = _HIT_FIELDS
        pairs = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields(), strict=True))
        return f"SearchHit({pairs})"

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
