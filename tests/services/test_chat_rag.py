"""The knowledge-base path of the chat service (PRODUCT.md §3 path 2, §13)
against the loopback server, a real data folder and real documents: which
path a send takes, the numbered sources with the question and in the answer's
data, the empty base's refusal without any request, the no-question fallback
note, the role's prompt and parameters on the RAG request, and edit and
regenerate retrieving again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.core.events import ChatEvent, Completed, ThreadCreated
from mira_desktop.core.knowledge import EMPTY_KB_REFUSAL, NOT_SEARCHED_NOTE, sources_from_data
from mira_desktop.core.models import MessageStatus, Thread
from mira_desktop.services.chat import ChatPath, SendRequest, choose_path
from mira_desktop.services.kb import parse_citations
from mira_desktop.services.regenerate import RegenerateRequest
from tests.support.documents import make_image
from tests.support.loopback import LoopbackServer, openai_stream

from .conftest import CHAT
from .kb_support import farm_kb

PARAMS = {"temperature": 0.2, "top_p": 0.7, "max_tokens": 222}


async def run(events: Any) -> list[ChatEvent]:
    return [event async for event in events]


async def answered(loopback: LoopbackServer, events: Any, reply: str) -> Completed:
    loopback.enqueue(CHAT, openai_stream([reply]))
    final = (await run(events))[-1]
    assert isinstance(final, Completed), final
    return final


def last_body(loopback: LoopbackServer) -> dict[str, Any]:
    body = loopback.requests[-1].json
    assert isinstance(body, dict)
    return body


def thread(kb_id: str | None, *, agent: bool = False) -> Thread:
    return Thread("t", "T", "w", "", "", kb_id=kb_id, agent_enabled=agent)


def test_the_path_is_chosen_by_the_bound_base_and_the_agent() -> None:
    assert choose_path(None, SendRequest("q")) is ChatPath.NORMAL
    assert choose_path(thread(None)) is ChatPath.NORMAL
    assert choose_path(thread("kb")) is ChatPath.KNOWLEDGE
    assert choose_path(thread("kb", agent=True)) is ChatPath.NORMAL
    assert choose_path(None, SendRequest("q", kb_id="kb")) is ChatPath.KNOWLEDGE
    assert choose_path(thread(None), SendRequest("q", kb_id="kb")) is ChatPath.KNOWLEDGE


async def test_a_question_to_a_bound_base_is_answered_from_numbered_sources(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    request = SendRequest(
        "How many apple trees grow in the orchard?", provider=loop_provider, model="m", kb_id=kb_id
    )
    final = await answered(loopback, services.chat.send(request), "There are 40 apple trees [1].")
    assert final.thread_id and final.message is not None
    assert (await services.threads.get_thread(final.thread_id)).kb_id == kb_id  # bound on commit
    question = last_body(loopback)["messages"][-1]
    assert question["role"] == "user"
    assert question["content"].endswith("Question: How many apple trees grow in the orchard?")
    assert "[1] orchard.pdf, page 2\nThe orchard grows 40 apple trees." in question["content"]
    assert "Use ONLY the numbered sources" in question["content"]
    stored = (await services.threads.get_active_messages(final.thread_id))[-1]
    data = stored.data or {}
    assert (data["kb_path"], data["kb_id"], data["kb_name"]) == ("answer", kb_id, "Farm")
    sources = sources_from_data(data["sources"])
    assert sources[0].document == "orchard.pdf" and sources[0].location == {"page": 2}
    assert sources[0].label == "page 2" and "40 apple trees" in sources[0].snippet
    assert data["sources"][0]["location_label"] == "page 2"
    cited = parse_citations(stored.text, sources)
    assert [(c.number, c.source.document) for c in cited] == [(1, "orchard.pdf")]
    assert final.message.data == data  # the terminal event carries the same data
    first_user = (await services.threads.get_active_messages(final.thread_id))[0]
    assert first_user.text == "How many apple trees grow in the orchard?"  # stored plain


async def test_later_turns_replay_the_plain_question_not_old_sources(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    first = await answered(
        loopback,
        services.chat.send(
            SendRequest("apple trees?", provider=loop_provider, model="m", kb_id=kb_id)
        ),
        "40 [1].",
    )
    assert first.thread_id
    await answered(
        loopback, services.chat.send(SendRequest("pear trees?", thread_id=first.thread_id)), "12"
    )
    messages = last_body(loopback)["messages"]
    assert messages[0] == {"role": "user", "content": "apple trees?"}
    assert messages[1] == {"role": "assistant", "content": "40 [1]."}
    assert "12 pear trees" in messages[2]["content"]
    assert messages[2]["content"].endswith("Question: pear trees?")


async def test_an_empty_base_is_refused_without_any_request(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    kb = await services.knowledge.create("Empty")
    events = await run(
        services.chat.send(SendRequest("Anything?", provider=loop_provider, model="m", kb_id=kb.id))
    )
    final = events[-1]
    assert isinstance(final, Completed) and final.text == EMPTY_KB_REFUSAL
    assert any(isinstance(e, ThreadCreated) for e in events)  # the draft was committed
    assert loopback.requests == []
    assert final.thread_id
    messages = await services.threads.get_active_messages(final.thread_id)
    assert [(str(m.role), m.text) for m in messages] == [
        ("user", "Anything?"),
        ("assistant", "This knowledge base has no documents yet."),
    ]
    answer = messages[-1]
    assert answer.status is MessageStatus.COMPLETE and answer.model is None
    assert answer.data == {"kb_id": kb.id, "kb_path": "refusal", "kb_name": "Empty"}
    # in an existing thread too, and still no request
    again = (await run(services.chat.send(SendRequest("More?", thread_id=final.thread_id))))[-1]
    assert isinstance(again, Completed) and again.text == EMPTY_KB_REFUSAL
    assert loopback.requests == []


async def test_files_without_a_question_fall_back_to_normal_chat_with_a_note(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    image = make_image(tmp_path / "photo.png", "PNG")
    prepared = await services.attachments.prepare(image)
    request = SendRequest(
        "", provider=loop_provider, model="m", kb_id=kb_id, attachments=(prepared,)
    )
    final = await answered(loopback, services.chat.send(request), "A photo.")
    assert final.thread_id
    body = last_body(loopback)
    assert "Question:" not in str(body["messages"][-1]) and "orchard" not in str(body)
    answer = (await services.threads.get_active_messages(final.thread_id))[-1]
    assert answer.data == {
        "kb_id": kb_id,
        "kb_path": "fallback",
        "kb_note": NOT_SEARCHED_NOTE,
        "kb_name": "Farm",
    }


async def test_the_role_prompt_and_parameters_apply_on_the_rag_path(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    role = await services.roles.create("Farmer", persona="You are a patient farmer.", **PARAMS)
    request = SendRequest(
        "apple trees?", provider=loop_provider, model="m", kb_id=kb_id, role_id=role.id
    )
    await answered(loopback, services.chat.send(request), "40 [1].")
    body = last_body(loopback)
    assert {k: body.get(k) for k in PARAMS} == PARAMS
    system = body["messages"][0]
    assert system["role"] == "system" and "You are a patient farmer." in system["content"]
    assert "40 apple trees" in body["messages"][-1]["content"]


async def test_regenerate_and_edit_on_a_knowledge_base_thread_retrieve_again(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    first = await answered(
        loopback,
        services.chat.send(
            SendRequest("apple trees?", provider=loop_provider, model="m", kb_id=kb_id)
        ),
        "40 [1].",
    )
    assert first.thread_id and first.message_id
    # more documents arrive: the regeneration sees them
    extra = tmp_path / "more.md"
    extra.write_text("The new apple orchard adds 8 apple trees.")
    await services.knowledge.add(kb_id, [extra])
    again = await answered(
        loopback,
        services.chat.regenerate(
            RegenerateRequest(first.thread_id, first.message_id, preset="concise")
        ),
        "48 [1][2].",
    )
    content = last_body(loopback)["messages"][-1]["content"]
    assert (
        "more.md" in content and "[Regeneration guidance: Make the answer more concise.]" in content
    )
    assert again.message is not None and (again.message.data or {})["kb_path"] == "answer"
    assert (again.message.data or {})["regenerated_from"] == first.message_id
    documents = {s.document for s in sources_from_data((again.message.data or {})["sources"])}
    assert "more.md" in documents
    branch = await services.conversation.active_branch(first.thread_id)
    edited = await answered(
        loopback, services.chat.edit(first.thread_id, branch[0].id, "pear trees?"), "12 [1]."
    )
    content = last_body(loopback)["messages"][-1]["content"]
    assert content.endswith("Question: pear trees?") and "12 pear trees" in content
    assert edited.message is not None and (edited.message.data or {})["kb_path"] == "answer"


async def test_agent_on_or_no_base_keeps_the_normal_path(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    final = await answered(
        loopback,
        services.chat.send(SendRequest("apple trees?", provider=loop_provider, model="m")),
        "No idea.",
    )
    assert final.thread_id and final.message is not None and final.message.data is None
    assert last_body(loopback)["messages"][-1] == {"role": "user", "content": "apple trees?"}
    await services.knowledge.bind(final.thread_id, kb_id)
    # the agent answers in its workspace's folder, without the base's sources
    (tmp_path / "project").mkdir()
    workspace = await services.workspaces.create("Farm", root_dir=str(tmp_path / "project"))
    await services.workspaces.move_threads([final.thread_id], workspace.id)
    await services.threads.set_agent(final.thread_id, True)
    await answered(
        loopback, services.chat.send(SendRequest("and pears?", thread_id=final.thread_id)), "?"
    )
    assert last_body(loopback)["messages"][-1] == {"role": "user", "content": "and pears?"}
    assert "tools" in last_body(loopback)


async def test_exports_list_the_sources_an_answer_cites(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    request = SendRequest("apple and pear trees?", provider=loop_provider, model="m", kb_id=kb_id)
    final = await answered(loopback, services.chat.send(request), "Pears [2], apples [1].")
    assert final.thread_id is not None
    markdown = await services.exports.thread_markdown(final.thread_id)
    listed = markdown.split("**Sources · knowledge base “Farm”**\n\n", 1)[1].split("\n\n")[0]
    # cited ones only, in the order first cited
    assert final.message is not None
    by_number = {s.number: s for s in sources_from_data((final.message.data or {})["sources"])}
    titles = [f"{by_number[n].document} ({by_number[n].label})" for n in (2, 1)]
    assert [line.split(":")[0] for line in listed.splitlines()] == [
        f"- \\[2\\] {titles[0]}",
        f"- \\[1\\] {titles[1]}",
    ]
    html = await services.exports.thread_html(final.thread_id)
    assert f'<li value="2" id="m-{final.message_id}-s2">{titles[0]}<br>' in html
    assert f'href="#m-{final.message_id}-s2"' in html
    # an answer that cites nothing lists every source it was given
    loopback.enqueue(CHAT, openai_stream(["No citation here."]))
    again = SendRequest("apple trees", thread_id=final.thread_id)
    assert isinstance((await run(services.chat.send(again)))[-1], Completed)
    markdown = await services.exports.thread_markdown(final.thread_id)
    assert markdown.count("**Sources · knowledge base “Farm”**") == 2
