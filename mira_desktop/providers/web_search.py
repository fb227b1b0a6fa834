"""``SearchEndpoint``: the web search the agent's ``web_search`` tool asks
(PRODUCT.md §11) — an address with ``{query}`` that answers JSON results:
SearXNG's ``{"results": [...]}`` or a bare list, each with a title, an
address (``url`` / ``link``) and a snippet (``content`` / ``snippet`` /
``description``). Failures are typed errors (``errormap``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

import httpx

from mira_desktop.core.agent import WebResult
from mira_desktop.core.errors import MalformedStreamError

from .base import USER_AGENT, make_timeout
from .errormap import error_from_response, network_error

TIMEOUT_S = 20.0


class SearchEndpoint:
    def __init__(self, url: str, client: httpx.AsyncClient | None = None) -> None:
        """``url``: the address with ``{query}`` (checked by the caller)."""
        self.url = url
        self._client = client

    async def search(self, query: str) -> list[WebResult]:
        """The endpoint's results for ``query``; raises a ``ProviderError``."""
        address = self.url.replace("{query}", quote_plus(query))
        headers = {"accept": "application/json", "user-agent": USER_AGENT}
        try:
            if self._client is not None:
                response = await self._client.get(address, headers=headers)
            else:
                async with httpx.AsyncClient(timeout=make_timeout(TIMEOUT_S)) as client:
                    response = await client.get(address, headers=headers)
        except (httpx.RequestError, httpx.InvalidURL) as exc:
            raise network_error(exc, address, provider="web search") from exc
        if not response.is_success:
            raise error_from_response(response, provider="web search")
        try:
            return results(response.json())
        except ValueError:
            raise MalformedStreamError(
                "The search endpoint did not answer JSON results.", provider="web search"
            ) from None


def results(payload: Any) -> list[WebResult]:
    """The results of an endpoint's JSON (ValueError when it has none)."""
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
        out.append(WebResult(str(item.get("title") or url), url, snippet))
    return out
