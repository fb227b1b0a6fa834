"""The thread's knowledge base as the agent's retrieval tool (PRODUCT.md §3
path 3), end to end: a real knowledge base of a PDF and a Markdown file, a
real workspace folder, the model played by the loopback server. The model
is offered ``search_knowledge_base``, gets numbered passages, and the
answer records the sources it can cite — numbered once per answer, across
searches and sub-agents."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import AgentMode, ToolStatus, answer_cards
from mira_desktop.core.events import Completed, Failed
from mira_desktop.core.knowledge import sources_from_data
from mira_desktop.services.kb import parse_citations
from tests.support.loopback import LoopbackServer, openai_stream, openai_tool_stream

from ..conftest import CHAT
from ..kb_support import farm_kb
from .chat_support import cards, request, run

SEARCH = "search_knowledge_base"


def bodies(loopback: LoopbackServer) -> list[dict[str, Any]]:
    return [r.json for r in loopback.requests if r.path == CHAT]


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


def results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def test_the_agent_searches_the_bound_base_and_its_answer_cites_numbered_sources(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    tmp_path: Path,
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "apple trees orchard"})]))
    loopback.enqueue(CHAT, openai_stream(["The orchard grows 40 apple trees [1]."]))
    events = await run(services, request("How many apple trees?", workspace_id, kb_id=kb_id))

    done = events[-1]
    assert isinstance(done, Completed), done
    first, second = bodies(loopback)
    assert SEARCH in tool_names(first) and {"read", "bash"} <= tool_names(first)
    system = first["messages"][0]["content"]
    assert "“Farm”" in system and SEARCH in system
    [passages] = results(second)
    assert passages.startswith("[1] orchard.pdf, page 2\nThe orchard grows 40 apple trees.")
    # the card says what was searched, read-only: never asked, even in manual mode
    assert [c.card.status for c in cards(events)] == [ToolStatus.RUNNING, ToolStatus.DONE]
    [card] = answer_cards(done.message.data)
    assert card.summary == "Search the knowledge base for apple trees orchard"
    assert card.template == "Search the knowledge base for {query}"
    # the answer records the base and its numbered sources, as the KB path does
    saved = await services.store.get_message(done.message_id)
    data = saved.data or {}
    assert (data["kb_path"], data["kb_name"], data["kb_id"]) == ("agent", "Farm", kb_id)
    sources = sources_from_data(data["sources"])
    assert sources[0].number == 1 and sources[0].document == "orchard.pdf"
    assert sources[0].location == {"page": 2} and sources[0].kb_id == kb_id
    assert [c.source.number for c in parse_citations(saved.text, sources)] == [1]
    # the exports list what [1] stands for under the answer
    markdown = await services.exports.thread_markdown(done.thread_id)
    assert (
        "**Sources · found by the agent in the knowledge base “Farm”**\n\n"
        "- \\[1\\] orchard.pdf (page 2): The orchard grows 40 apple trees."
    ) in markdown
    html = await services.exports.thread_html(done.thread_id)
    assert '<div class="sources">Sources · found by the agent in the knowledge base' in html
    anchor = f"m-{done.message_id}-s1"
    assert f'<li value="1" id="{anchor}">orchard.pdf (page 2)<br>The orchard grows 40' in html
    assert f'<a href="#{anchor}" style="text-decoration:none;">[1]</a>' in html  # [1] goes there


async def test_a_passage_found_again_keeps_its_number_and_new_ones_follow(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    tmp_path: Path,
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    one = {"query": "apple trees", "max_results": 1}
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, one)]))
    loopback.enqueue(CHAT, openai_tool_stream([("k2", SEARCH, {"query": "pear trees river"})]))
    loopback.enqueue(CHAT, openai_stream(["40 apple trees [1] and 12 pear trees [2]."]))
    events = await run(
        services, request("Count the trees", workspace_id, kb_id=kb_id, agent_mode=AgentMode.AUTO)
    )

    assert isinstance(events[-1], Completed)
    _, second, third = bodies(loopback)
    assert results(second) == ["[1] orchard.pdf, page 2\nThe orchard grows 40 apple trees."]
    later = results(third)[-1]
    assert "\nThere are 12 pear trees by the river." in later
    titles = [line for line in later.splitlines() if line.startswith("[")]
    assert "[2] pears.md, Pears" in titles
    # the apple passage, found again, is [1] again
    assert "[1] orchard.pdf, page 2" in titles
    assert not any(t.endswith("orchard.pdf, page 2") for t in titles if not t.startswith("[1]"))
    saved = await services.store.get_message(events[-1].message_id)
    sources = sources_from_data((saved.data or {})["sources"])
    assert [(s.number, s.document) for s in sources][:2] == [(1, "orchard.pdf"), (2, "pears.md")]
    assert len({s.chunk_id for s in sources}) == len(sources)  # each passage once


async def test_an_empty_base_is_said_to_the_model_and_the_answer_has_no_sources(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
) -> None:
    kb = await services.knowledge.create("Empty")
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "anything"})]))
    loopback.enqueue(CHAT, openai_stream(["The base is empty."]))
    events = await run(services, request("What is in it?", workspace_id, kb_id=kb.id))

    assert isinstance(events[-1], Completed)
    assert results(bodies(loopback)[1]) == ["The knowledge base “Empty” has no documents yet."]
    saved = await services.store.get_message(events[-1].message_id)
    assert (saved.data or {})["kb_path"] == "agent" and saved.data["sources"] == []
    assert saved.data["kb_empty"] is True  # shown as an empty base, not as "nothing matched"


async def test_nothing_matched_tells_the_model_to_try_other_words(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    tmp_path: Path,
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "zebra quantum"})]))
    loopback.enqueue(CHAT, openai_stream(["Nothing about that."]))
    events = await run(services, request("Zebras?", workspace_id, kb_id=kb_id))

    assert isinstance(events[-1], Completed)
    [said] = results(bodies(loopback)[1])
    assert said.startswith("No passage of the knowledge base “Farm” matched 'zebra quantum'.")


async def test_without_a_bound_base_the_tool_is_not_offered_and_a_call_is_refused(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "apples"})]))
    loopback.enqueue(CHAT, openai_stream(["I cannot search a base."]))
    events = await run(services, request("Apples?", workspace_id))

    assert isinstance(events[-1], Completed)
    first, second = bodies(loopback)
    assert SEARCH not in tool_names(first)
    assert "knowledge base" not in first["messages"][0]["content"]
    assert results(second)[0].startswith(f"There is no tool named '{SEARCH}'")
    assert "kb_path" not in (events[-1].message.data or {})


async def test_plan_mode_searches_the_base_too(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    tmp_path: Path,
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "pear trees"})]))
    loopback.enqueue(CHAT, openai_stream(["Plan: plant more pears [1]."]))
    events = await run(services, request("Plan the orchard", workspace_id, kb_id=kb_id, plan=True))

    assert isinstance(events[-1], Completed)
    first, second = bodies(loopback)
    assert SEARCH in tool_names(first) and "write" not in tool_names(first)
    assert "pear trees by the river" in results(second)[0]
    saved = await services.store.get_message(events[-1].message_id)
    assert sources_from_data((saved.data or {})["sources"])[0].document == "pears.md"


async def test_a_sub_agents_search_numbers_the_answers_sources(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    tmp_path: Path,
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    task = {"description": "Look up pears", "task": "How many pear trees are there?"}
    loopback.enqueue(CHAT, openai_tool_stream([("s1", "subagent", task)]))
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "pear trees"})]))
    loopback.enqueue(CHAT, openai_stream(["12 pear trees [1]."]))
    loopback.enqueue(CHAT, openai_stream(["There are 12 pear trees [1]."]))
    events = await run(services, request("Pears?", workspace_id, kb_id=kb_id))

    assert isinstance(events[-1], Completed)
    _, sub_first, sub_second, last = bodies(loopback)
    assert sub_first["messages"][-1]["content"] == "How many pear trees are there?"
    assert SEARCH in tool_names(sub_first) and "write" not in tool_names(sub_first)
    assert "[1] pears.md, Pears" in results(sub_second)[0]
    assert "12 pear trees [1]." in results(last)[0]  # the sub-agent's report
    saved = await services.store.get_message(events[-1].message_id)
    data = saved.data or {}
    assert data["kb_path"] == "agent"
    assert sources_from_data(data["sources"])[0].document == "pears.md"
    assert [
        c.source.number for c in parse_citations(saved.text, sources_from_data(data["sources"]))
    ] == [1]


async def test_a_base_deleted_during_the_answer_fails_the_search_in_words(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    tmp_path: Path,
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "apple trees"})]))
    loopback.enqueue(CHAT, openai_tool_stream([("k2", SEARCH, {"query": "pear trees"})]))
    loopback.enqueue(CHAT, openai_stream(["40 apple trees [1]; the base went away."]))
    events = []
    async for event in services.chat.send(request("Trees?", workspace_id, kb_id=kb_id)):
        events.append(event)
        card = getattr(event, "card", None)
        if card is not None and card.call_id == "k1" and card.status is ToolStatus.DONE:
            await services.knowledge.delete(kb_id)

    assert isinstance(events[-1], Completed)
    said = results(bodies(loopback)[2])[-1]
    assert said.startswith("The knowledge base search failed: No knowledge base with id")
    failed = [c.card for c in cards(events) if c.card.call_id == "k2"][-1]
    assert failed.status is ToolStatus.FAILED
    # what the first search found stays on the answer
    saved = await services.store.get_message(events[-1].message_id)
    assert sources_from_data((saved.data or {})["sources"])[0].document == "orchard.pdf"


async def test_without_a_project_folder_the_agent_works_from_the_base_alone(
    services: Services, loop_provider: str, loopback: LoopbackServer, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    base = await services.workspaces.default_workspace()  # Mira BASE: no folder
    loopback.enqueue(CHAT, openai_tool_stream([("k1", SEARCH, {"query": "pear trees"})]))
    loopback.enqueue(CHAT, openai_stream(["12 pear trees [1]."]))
    events = await run(services, request("Pears?", base.id, kb_id=kb_id))

    assert isinstance(events[-1], Completed), events[-1]
    first, _ = bodies(loopback)
    assert SEARCH in tool_names(first)
    assert not tool_names(first) & {"read", "find", "grep", "ls", "bash", "write", "edit"}
    system = first["messages"][0]["content"]
    assert "no project folder" in system and "“Farm”" in system
    saved = await services.store.get_message(events[-1].message_id)
    assert sources_from_data((saved.data or {})["sources"])[0].document == "pears.md"
    # a skill lives in a project folder: asked for here, it is refused before any request
    asked = len(loopback.requests)
    refused = await run(services, request("/skill:review the notes", base.id, kb_id=kb_id))
    assert isinstance(refused[-1], Failed) and "project folder" in refused[-1].error["message"]
    assert len(loopback.requests) == asked
