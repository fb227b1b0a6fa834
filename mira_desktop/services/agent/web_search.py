"""The agent's ``web_search`` tool (PRODUCT.md §11): a search endpoint the
user configured (``agent.search_url``, an address with ``{query}``, e.g. a
SearXNG instance's ``…/search?q={query}&format=json``; asked by
``providers/web_search.SearchEndpoint``) gives results that become a
numbered list of titles, addresses and snippets for the model. Offered only
when an endpoint is set; read-only, so never asked."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from ...core.agent import ToolOutcome, ToolPreview, ToolRefused, WebResult
from ...core.errors import ConfigError, MiraError
from ...core.models import ToolSpec
from ...core.ports import WebSearcher

log = logging.getLogger(__name__)

NAME = "web_search"
MAX_RESULTS = 10
SNIPPET_CHARS = 400
SPEC = ToolSpec(
    NAME,
    "Search the web. Returns a numbered list of results: title, address and a snippet."
    " Use it for facts that are not in the project folder, and cite the addresses you used.",
    {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to search for."},
            "max_results": {
                "type": "integer",
                "description": f"How many results (1-{MAX_RESULTS}, default 5).",
                "minimum": 1,
                "maximum": MAX_RESULTS,
            },
        },
        "required": ["query"],
    },
)


def check_search_url(url: str) -> str:
    """``url`` as given when it can be a search endpoint; ConfigError otherwise."""
    url = url.strip()
    parts = urlsplit(url.replace("{query}", "q"))
    if parts.scheme not in ("http", "https") or not parts.netloc or "{query}" not in url:
        raise ConfigError(
            "A search address starts with http:// or https:// and has {query} where the words go.",
            hint="For example http://localhost:8888/search?q={query}&format=json (SearXNG).",
        )
    return url


class WebSearch:
    def __init__(self, searcher: WebSearcher) -> None:
        self._searcher = searcher

    def preview(self, arguments: dict[str, Any]) -> ToolPreview:
        return ToolPreview.worded("Search the web for {query}", query=_query(arguments))

    async def run(self, arguments: dict[str, Any]) -> ToolOutcome:
        query = _query(arguments)
        count = arguments.get("max_results", 5)
        count = count if isinstance(count, int) and 1 <= count <= MAX_RESULTS else 5
        try:
            results = await self._searcher.search(query)
        except MiraError as exc:
            log.info("web search failed: %s", exc)
            return ToolOutcome(False, f"The web search failed: {exc.message}")
        if not results:
            return ToolOutcome(True, f"No results for {query!r}.")
        return ToolOutcome(True, _listed(results[:count]))


def _query(arguments: dict[str, Any]) -> str:
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolRefused("web_search needs the argument query.")
    return " ".join(query.split())


def _listed(results: list[WebResult]) -> str:
    lines = []
    for number, result in enumerate(results, 1):
        snippet = " ".join(result.snippet.split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 1] + "…"
        lines.append(f"{number}. {result.title} — {result.url}")
        if snippet:
            lines.append(f"   {snippet}")
    return "\n".join(lines)
