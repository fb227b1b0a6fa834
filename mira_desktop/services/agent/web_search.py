"""The agent's ``web_search`` tool (PRODUCT.md §11): a search endpoint the
user configured (``agent.search_url``, an address with ``{query}``, e.g. a
SearXNG instance's ``…/search?q={query}&format=json``) answers JSON; its
results become a numbered list of titles, addresses and snippets for the
model. Offered only when an endpoint is set; read-only, so never asked."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote_plus, urlsplit

import httpx

from ...core.agent import ToolOutcome, ToolPreview, ToolRefused
from ...core.errors import ConfigError
from ...core.models import ToolSpec

log = logging.getLogger(__name__)

NAME = "web_search"
TIMEOUT_S = 20.0
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
    def __init__(self, url: str, client: httpx.AsyncClient | None = None) -> None:
        self.url = check_search_url(url)
        self._client = client

    def preview(self, arguments: dict[str, Any]) -> ToolPreview:
        return ToolPreview.worded("Search the web for {query}", query=_query(arguments))

    async def run(self, arguments: dict[str, Any]) -> ToolOutcome:
        query = _query(arguments)
        count = arguments.get("max_results", 5)
        count = count if isinstance(count, int) and 1 <= count <= MAX_RESULTS else 5
        address = self.url.replace("{query}", quote_plus(query))
        try:
            if self._client is not None:
                response = await self._client.get(address, timeout=TIMEOUT_S)
            else:
                async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
                    response = await client.get(address)
        except httpx.HTTPError as exc:
            return ToolOutcome(False, f"The search endpoint could not be reached: {exc}")
        if not response.is_success:
            return ToolOutcome(False, f"The search endpoint answered HTTP {response.status_code}.")
        try:
            results = _results(response.json())
        except ValueError:
            return ToolOutcome(False, "The search endpoint did not answer JSON results.")
        if not results:
            return ToolOutcome(True, f"No results for {query!r}.")
        return ToolOutcome(True, _listed(results[:count]))


def _query(arguments: dict[str, Any]) -> str:
    query = arguments.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolRefused("web_search needs the argument query.")
    return " ".join(query.split())


def _results(payload: Any) -> list[dict[str, str]]:
    """SearXNG's ``{"results": [...]}`` or a bare list, each with a title, an
    address (``url`` / ``link``) and a snippet (``content`` / ``snippet`` /
    ``description``); ValueError for anything else."""
    items = payload.get("results") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise ValueError("no results list")
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        url = item.get("url") or item.get("link")
        if not isinstance(url, str) or not url:
            continue
        snippet = next(
            (
                item[k]
                for k in ("content", "snippet", "description")
                if isinstance(item.get(k), str)
            ),
            "",
        )
        out.append({"title": str(item.get("title") or url), "url": url, "snippet": snippet})
    return out


def _listed(results: list[dict[str, str]]) -> str:
    lines = []
    for number, result in enumerate(results, 1):
        snippet = " ".join(result["snippet"].split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 1] + "…"
        lines.append(f"{number}. {result['title']} — {result['url']}")
        if snippet:
            lines.append(f"   {snippet}")
    return "\n".join(lines)
