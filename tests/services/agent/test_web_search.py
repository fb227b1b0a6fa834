"""The agent's ``web_search`` (PRODUCT.md §11) against a real HTTP endpoint
(the loopback server playing SearXNG), and through a chat: offered only when
an endpoint is set, run without asking."""

from __future__ import annotations

import socket
from urllib.parse import parse_qs

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import ToolRefused, ToolStatus, answer_cards
from mira_desktop.core.errors import ConfigError
from mira_desktop.core.events import Completed
from mira_desktop.providers.web_search import SearchEndpoint
from mira_desktop.services.agent.web_search import WebSearch, check_search_url
from tests.support.loopback import (
    LoopbackServer,
    json_reply,
    openai_stream,
    openai_tool_stream,
    text_reply,
)

from ..conftest import CHAT
from .chat_support import request, run

SEARCH = "/search"
FOUND = {
    "results": [
        {
            "title": "Python 3.13 发布",
            "url": "https://example.org/py313",
            "content": "What is new.",
        },
        {"title": "No address"},
        {"title": "Second", "url": "https://example.org/2", "content": "x " * 400},
        {"title": "Third", "url": "https://example.org/3"},
    ]
}


def endpoint(loopback: LoopbackServer) -> str:
    return loopback.url + SEARCH + "?q={query}&format=json"


def searching(url: str) -> WebSearch:
    """The tool asking the endpoint at ``url`` over HTTP, as the agent's is."""
    return WebSearch(SearchEndpoint(url))


async def test_results_are_listed_and_the_query_is_sent_encoded(loopback: LoopbackServer) -> None:
    loopback.enqueue(SEARCH, json_reply(FOUND))
    outcome = await searching(endpoint(loopback)).run(
        {"query": "python 3.13 新功能", "max_results": 2}
    )
    assert outcome.ok
    lines = outcome.output.splitlines()
    assert lines[0] == "1. Python 3.13 发布 — https://example.org/py313"
    assert lines[1] == "   What is new."
    assert lines[2] == "2. Second — https://example.org/2" and lines[3].endswith("…")
    assert len(lines) == 4  # two results, the one without an address skipped
    query = parse_qs(loopback.requests[-1].query)
    assert query == {"q": ["python 3.13 新功能"], "format": ["json"]}


async def test_a_bare_list_with_links_and_snippets_is_understood(loopback: LoopbackServer) -> None:
    loopback.enqueue(
        SEARCH, json_reply([{"title": "A", "link": "https://a.example", "snippet": "s"}])
    )
    outcome = await searching(endpoint(loopback)).run({"query": "a"})
    assert outcome.output == "1. A — https://a.example\n   s"


async def test_failures_are_told_to_the_model(loopback: LoopbackServer) -> None:
    search = searching(endpoint(loopback))
    loopback.enqueue(SEARCH, text_reply(200, "<html>not json</html>"))
    outcome = await search.run({"query": "x"})
    assert not outcome.ok
    assert (
        outcome.output == "The web search failed: The search endpoint did not answer JSON results."
    )
    loopback.enqueue(SEARCH, text_reply(502, "bad gateway"))
    outcome = await search.run({"query": "x"})
    assert not outcome.ok and outcome.output.startswith("The web search failed:")
    assert "bad gateway" in outcome.output  # what the server said
    loopback.enqueue(SEARCH, json_reply({"results": []}))
    assert (await search.run({"query": "x"})).output == "No results for 'x'."
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/s?q={{query}}"
    outcome = await searching(dead).run({"query": "x"})
    assert not outcome.ok and outcome.output.startswith("The web search failed: Could not connect")
    with pytest.raises(ToolRefused):
        search.preview({"query": "  "})


def test_an_endpoint_needs_http_and_a_query_slot() -> None:
    assert check_search_url(" http://h/s?q={query} ") == "http://h/s?q={query}"
    for bad in ("http://h/s?q=x", "ftp://h/{query}", "{query}", "http:///{query}"):
        with pytest.raises(ConfigError):
            check_search_url(bad)


async def test_the_agent_searches_only_with_an_endpoint_and_without_asking(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["No search here."]))
    await run(services, request("Hi", workspace_id))
    assert "web_search" not in {t["function"]["name"] for t in loopback.requests[-1].json["tools"]}

    await services.agent.set_search_url(endpoint(loopback))
    loopback.enqueue(CHAT, openai_tool_stream([("s1", "web_search", {"query": "python 3.13"})]))
    loopback.enqueue(SEARCH, json_reply(FOUND))
    loopback.enqueue(CHAT, openai_stream(["Python 3.13 is out [1]."]))
    events = await run(services, request("What is new in Python?", workspace_id))  # manual mode
    assert isinstance(events[-1], Completed)
    [card] = answer_cards(events[-1].message.data)
    assert (card.status, card.approval, card.summary) == (
        ToolStatus.DONE,
        None,
        "Search the web for python 3.13",
    )
    assert "https://example.org/py313" in loopback.requests[-1].json["messages"][-1]["content"]
    await services.agent.set_search_url(None)
    assert await services.agent.search_url() is None


async def test_without_a_project_folder_the_agent_searches_the_web_alone(
    services: Services, loop_provider: str, loopback: LoopbackServer
) -> None:
    base = await services.workspaces.default_workspace()  # Mira BASE: no folder
    await services.agent.set_search_url(endpoint(loopback))
    loopback.enqueue(CHAT, openai_tool_stream([("r1", "read", {"path": "README.md"})]))
    loopback.enqueue(CHAT, openai_tool_stream([("s1", "web_search", {"query": "python 3.13"})]))
    loopback.enqueue(SEARCH, json_reply(FOUND))
    loopback.enqueue(CHAT, openai_stream(["Python 3.13 is out."]))
    events = await run(services, request("What is new in Python?", base.id))

    assert isinstance(events[-1], Completed), events[-1]
    first = loopback.requests[0].json
    offered = {t["function"]["name"] for t in first["tools"]}
    assert "web_search" in offered and not offered & {"read", "ls", "bash", "write", "edit"}
    assert "no project folder" in first["messages"][0]["content"]
    read, searched = answer_cards(events[-1].message.data)
    assert read.status is ToolStatus.FAILED and read.output.startswith("There is no tool named")
    assert searched.status is ToolStatus.DONE
