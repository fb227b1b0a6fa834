"""Citations and sources of knowledge-base answers in the timeline (PRODUCT.md
§3 path 2).

* :func:`link_citations_html` turns the ``[n]`` markers of a rendered answer
  into ``cite:n`` anchors (only numbers that name a source; never inside code,
  code blocks or links); :class:`CitationRenderer` caches that rendering per
  message widget, so a finished answer with sources shows clickable citations.
* :func:`source_url` / :func:`open_source` open a source's document with the
  desktop's default application. For a PDF the URL carries ``#page=N``: web
  browsers' PDF viewers (and a few desktop ones) honour it; most desktop PDF
  viewers ignore it and open the first page, and when the desktop refuses the
  URL with a fragment the file is opened without it. Other locations (slides,
  sheets, headings, lines) cannot be addressed by a file URL: the file opens at
  its start."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from ...core.citation_links import link_citations
from ...core.opened_files import runs_when_opened

if TYPE_CHECKING:
    from ...core.knowledge import Source
    from ..timeline.markdown import RenderedMarkdown
    from ..timeline.message_state import MessageState

log = logging.getLogger(__name__)

CITE_SCHEME = "cite"


def source_numbers(data: dict[str, Any] | None) -> frozenset[int]:
    """The numbers of the sources stored on an answer."""
    # the knowledge-base value types load with the first answer, not at start-up
    from ...core.knowledge import sources_from_data

    sources = sources_from_data((data or {}).get("sources"))
    return frozenset(s.number for s in sources)


def link_citations_html(html: str, numbers: frozenset[int]) -> str:
    """``html`` with each ``[n]`` of a known source number made a ``cite:n``
    anchor (also ``[1, 2]`` and ``[1-3]``: each number its own anchor)."""
    return link_citations(html, numbers, lambda n: f"{CITE_SCHEME}:{n}")


def cite_number(url: QUrl) -> int | None:
    """The source number of a ``cite:n`` anchor, else None."""
    if url.scheme() != CITE_SCHEME:
        return None
    path = url.path()
    return int(path) if path.isdigit() else None


class CitationRenderer:
    """The cited rendering of one message widget's answer, cached by the
    plain rendering it was made from."""

    def __init__(self) -> None:
        self._base: RenderedMarkdown | None = None
        self._cited: RenderedMarkdown | None = None

    def rendering(self, state: MessageState, dark: bool) -> RenderedMarkdown | None:
        """The answer's rendering with clickable citations; None while it
        streams or when it has no sources (the timeline's own rendering)."""
        if state.is_streaming:
            return None
        numbers = source_numbers(state.message.data)
        if not numbers:
            return None
        from ..timeline.markdown import RenderedMarkdown  # the timeline imports this module

        base = state.rendered(dark)
        if self._base is not base or self._cited is None:
            html = link_citations_html(base.html, numbers)
            self._base, self._cited = base, RenderedMarkdown(html, base.code_blocks)
        return self._cited


def source_url(source: Source) -> QUrl:
    """The file URL of a source's document (``#page=N`` for a PDF page)."""
    url = QUrl.fromLocalFile(source.path)
    page = source.location.get("page")
    if source.path.lower().endswith(".pdf") and isinstance(page, int) and page > 1:
        url.setFragment(f"page={page}")
    return url


def open_source(source: Source) -> bool:
    """Open the source's document at its place where the viewer can; False
    when the file is gone or the desktop could not open it. The path comes
    from the answer's data (an imported one's too): a file the system would
    run rather than show is never opened — its folder is, with nothing run."""
    if not Path(source.path).is_file():
        log.info("source file is gone: %s", source.path)
        return False
    if runs_when_opened(source.path):
        log.warning("not running %s: its folder is shown instead", source.path)
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(Path(source.path).parent)))
    url = source_url(source)
    if QDesktopServices.openUrl(url):
        return True
    if url.hasFragment():  # some desktops refuse a file URL with a fragment
        return QDesktopServices.openUrl(QUrl.fromLocalFile(source.path))
    return False


__all__ = [
    "CITE_SCHEME",
    "CitationRenderer",
    "cite_number",
    "link_citations_html",
    "open_source",
    "source_numbers",
    "source_url",
]
