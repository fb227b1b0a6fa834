"""The agent answering in a chat (PRODUCT.md §11), end to end: a real data
folder, a real workspace folder on disk, the model played by the loopback
server over HTTP (its tool calls in the OpenAI wire format), approvals
decided while the run waits, the tool cards kept on the answer, the journal
and rollbacks."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import (
    AgentMode,
    ApprovalState,
    ProgressChanged,
    RollbackConflict,
    StepStatus,
    ToolCardChanged,
    ToolStatus,
    answer_cards,
    answer_progress,
    is_plan,
)
from mira_desktop.core.events import ChatEvent, Completed, Failed, Stopped
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import (
    LoopbackServer,
    openai_json_error,
    openai_stream,
    openai_tool_stream,
)

from ..conftest import CHAT
from .chat_support import cards, request, run


async def test_auto_mode_writes_a_file_and_keeps_its_card(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    loopback.enqueue(
        CHAT,
        openai_tool_stream([("c1", "write", {"path": "notes/todo.md", "content": "- 买牛奶\n"})]),
    )
    loopback.enqueue(CHAT, openai_stream(["I wrote notes/todo.md."]))
    events = await run(
        services, request("Make a todo list", workspace_id, agent_mode=AgentMode.AUTO)
    )

    done = events[-1]
    assert isinstance(done, Completed), done
    assert (project / "notes" / "todo.md").read_text(encoding="utf-8") == "- 买牛奶\n"
    assert [c.card.status for c in cards(events)] == [ToolStatus.RUNNING, ToolStatus.DONE]
    saved = await services.store.get_message(done.message_id)
    assert saved.text == "I wrote notes/todo.md."
    [card] = answer_cards(saved.data)
    assert (card.name, card.status, card.approval, card.changed) == (
        "write",
        ToolStatus.DONE,
        None,
        ("notes/todo.md",),
    )
    # the model was offered the tools, and heard the result of its call
    first, second = (r.json for r in loopback.requests if r.path == CHAT)
    assert {t["function"]["name"] for t in first["tools"]} >= {"read", "write", "edit", "bash"}
    assert (
        first["messages"][0]["role"] == "system" and str(project) in first["messages"][0]["content"]
    )
    call, result = second["messages"][-2:]
    assert call["tool_calls"][0]["id"] == "c1"
    assert (result["role"], result["tool_call_id"]) == ("tool", "c1")
    trace = await services.store.agent_trace(done.message_id)
    assert trace is not None and trace["root"] == str(project.resolve())
    assert trace["calls"][0]["changes"] == [
        {"path": "notes/todo.md", "before": None, "after": "- 买牛奶\n"}
    ]


async def test_manual_mode_asks_before_an_edit_and_runs_it_when_approved(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    edit = {"path": "src/app.py", "old_string": "hello", "new_string": "bonjour"}
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", edit)], "Let me change it."))
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    events = await run(services, request("Say bonjour", workspace_id), {"edit": True})

    assert isinstance(events[-1], Completed)
    assert (project / "src" / "app.py").read_text() == "print('bonjour')\n"
    waiting = next(c.card for c in cards(events) if c.card.status is ToolStatus.WAITING)
    assert waiting.approval is ApprovalState.PENDING
    assert "-print('hello')" in waiting.diff and "+print('bonjour')" in waiting.diff
    final = cards(events)[-1].card
    assert (final.status, final.approval) == (ToolStatus.DONE, ApprovalState.EXECUTED)
    assert events[-1].message.text == "Let me change it.\n\nDone."


async def test_an_approval_shows_all_of_a_long_change_and_says_what_it_cannot_keep(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    long = "".join(f"line {n}\n" for n in range(3_000))  # a diff of about 30,000 characters
    lines = 150_000
    (project / "huge.txt").write_text("".join(f"a{n}\n" for n in range(lines)))
    every = {"path": "huge.txt", "old_string": "a", "new_string": "b", "replace_all": True}
    loopback.enqueue(
        CHAT,
        openai_tool_stream(
            [("w1", "write", {"path": "long.txt", "content": long}), ("e1", "edit", every)]
        ),
    )
    loopback.enqueue(CHAT, openai_stream(["Not written."]))
    events = await run(services, request("Write", workspace_id), {"write": False, "edit": False})
    assert isinstance(events[-1], Completed)
    first, second = (c.card for c in cards(events) if c.card.status is ToolStatus.WAITING)
    assert first.diff.endswith("+line 2999\n") and first.diff_cut == 0
    assert second.diff_cut > 0 and second.diff.endswith("\n")
    assert second.diff.count("\n") + second.diff_cut == 2 * lines + 3  # + the header lines
    kept = answer_cards(events[-1].message.data)
    assert [c.diff_cut for c in kept] == [0, second.diff_cut]  # kept with the answer


async def test_a_denied_write_changes_nothing_and_the_model_is_told(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    loopback.enqueue(
        CHAT, openai_tool_stream([("w1", "write", {"path": "README.md", "content": "x"})])
    )
    loopback.enqueue(CHAT, openai_stream(["OK, I left it."]))
    events = await run(services, request("Empty the readme", workspace_id), {"write": False})

    assert isinstance(events[-1], Completed)
    assert (project / "README.md").read_text(encoding="utf-8") == "# Demo\n\n你好，世界\n"
    final = cards(events)[-1].card
    assert (final.status, final.approval) == (ToolStatus.DENIED, ApprovalState.DENIED)
    result = loopback.requests[-1].json["messages"][-1]
    assert result["role"] == "tool" and "denied" in result["content"]
    assert await services.store.agent_trace(events[-1].message_id) is None


async def test_reading_needs_no_approval_and_a_path_outside_is_refused_without_asking(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    loopback.enqueue(
        CHAT,
        openai_tool_stream(
            [
                ("r1", "read", {"path": "README.md"}),
                ("r2", "write", {"path": "../evil.txt", "content": "x"}),
            ]
        ),
    )
    loopback.enqueue(CHAT, openai_stream(["The readme greets the world."]))
    events = await run(services, request("What does the readme say?", workspace_id))

    assert isinstance(events[-1], Completed)
    assert not (project.parent / "evil.txt").exists()
    read, refused = answer_cards(events[-1].message.data)
    assert (read.status, read.approval) == (ToolStatus.DONE, None)
    assert "你好，世界" in read.output
    assert (refused.status, refused.approval) == (ToolStatus.FAILED, None)
    results = [m for m in loopback.requests[-1].json["messages"] if m["role"] == "tool"]
    assert "你好，世界" in results[0]["content"]
    assert "outside" in results[1]["content"]


async def test_stop_while_waiting_expires_the_call_and_writes_nothing(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    loopback.enqueue(
        CHAT, openai_tool_stream([("w1", "write", {"path": "new.txt", "content": "x"})])
    )
    send = request("Write a file", workspace_id, new_thread_id="draft-1")
    events: list[ChatEvent] = []
    async for event in services.chat.send(send):
        events.append(event)
        if isinstance(event, ToolCardChanged) and event.card.status is ToolStatus.WAITING:
            assert services.chat.stop("draft-1")
    assert isinstance(events[-1], Stopped)
    assert not (project / "new.txt").exists()
    saved = await services.store.get_message(events[-1].message_id)
    [card] = answer_cards(saved.data)
    assert (card.status, card.approval) == (ToolStatus.EXPIRED, ApprovalState.EXPIRED)
    assert not services.chat.decide("draft-1", "w1", True)


async def test_rollback_puts_files_back_and_refuses_over_a_later_change(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    loopback.enqueue(
        CHAT,
        openai_tool_stream(
            [
                ("w1", "write", {"path": "docs/plan.md", "content": "plan\n"}),
                ("e1", "edit", {"path": "src/app.py", "old_string": "hello", "new_string": "bye"}),
            ]
        ),
    )
    loopback.enqueue(CHAT, openai_stream(["Both done."]))
    events = await run(services, request("Plan", workspace_id, agent_mode=AgentMode.AUTO))
    answer = events[-1]
    assert isinstance(answer, Completed)
    app = project / "src" / "app.py"
    assert app.read_text() == "print('bye')\n"

    app.write_text("print('edited by hand')\n")  # the person changed it since
    with pytest.raises(RollbackConflict) as refused:
        await services.agent.rollback(answer.message_id)
    assert refused.value.files == ["src/app.py"]
    assert (project / "docs" / "plan.md").exists()  # nothing was written
    assert app.read_text() == "print('edited by hand')\n"

    message, restored = await services.agent.rollback(answer.message_id, "w1")
    assert restored == ["docs/plan.md"] and not (project / "docs" / "plan.md").exists()
    write_card, edit_card = answer_cards(message.data)
    assert write_card.rolled_back and not write_card.can_roll_back
    assert edit_card.can_roll_back
    with pytest.raises(Exception, match="nothing to roll back"):
        await services.agent.rollback(answer.message_id, "w1")


async def test_a_workspace_without_a_folder_is_refused_and_nothing_is_saved(
    services: Services, loop_provider: str, loopback: LoopbackServer
) -> None:
    base = await services.workspaces.default_workspace()
    events = [e async for e in services.chat.send(request("Hi", base.id))]
    [failed] = events
    assert isinstance(failed, Failed) and failed.thread_id is None
    assert "project folder" in failed.error["message"]
    assert loopback.requests == []
    assert await services.store.count_threads() == 0


async def test_a_model_that_never_stops_calling_tools_is_stopped_with_its_cards_kept(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.set_default(CHAT, openai_tool_stream([("l1", "ls", {})]))
    events = await run(services, request("Loop", workspace_id))
    failed = events[-1]
    assert isinstance(failed, Failed)
    assert "40 rounds" in failed.error["message"]
    assert len(answer_cards(failed.message.data)) == 40


async def test_malformed_arguments_are_reported_to_the_model(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "read", '{"path": "READ')]))
    loopback.enqueue(CHAT, openai_stream(["Sorry."]))
    events = await run(services, request("Read", workspace_id))
    assert isinstance(events[-1], Completed)
    [card] = answer_cards(events[-1].message.data)
    assert card.status is ToolStatus.FAILED and "JSON" in card.output


async def test_a_bad_glob_fails_its_call_not_the_answer(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("f1", "find", {"pattern": "[z-a]*.py"})]))
    loopback.enqueue(CHAT, openai_stream(["That pattern was wrong."]))
    events = await run(services, request("Find files", workspace_id))
    assert isinstance(events[-1], Completed)
    [card] = answer_cards(events[-1].message.data)
    assert card.status is ToolStatus.FAILED and "not a valid glob" in card.output
    results = [m for m in loopback.requests[-1].json["messages"] if m["role"] == "tool"]
    assert "not a valid glob" in results[0]["content"]


async def test_the_agent_switch_of_a_draft_is_kept_on_its_thread(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["Plain agent answer."]))
    events = await run(services, request("Hello", workspace_id))
    assert isinstance(events[-1], Completed)
    thread = await services.store.get_thread(events[-1].thread_id)
    assert thread.agent_enabled
    await services.threads.set_agent(thread.id, False)
    loopback.enqueue(CHAT, openai_stream(["Plain chat again."]))
    later = [e async for e in services.chat.send(SendRequest("And now?", thread_id=thread.id))]
    assert isinstance(later[-1], Completed)
    assert "tools" not in loopback.requests[-1].json


async def test_the_memory_goes_with_the_instructions_and_a_skill_expands_in_the_question(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    (project / ".agent" / "skills" / "review").mkdir(parents=True)
    (project / ".agent" / "memory.md").write_text("The tests run with `make check`.\n")
    (project / ".agent" / "skills" / "review" / "SKILL.md").write_text("Review for 安全 issues.\n")
    loopback.enqueue(CHAT, openai_stream(["Looks safe."]))
    events = await run(services, request("/skill:review src/app.py please", workspace_id))
    assert isinstance(events[-1], Completed)
    body = loopback.requests[-1].json
    assert "The tests run with `make check`." in body["messages"][0]["content"]
    asked = body["messages"][-1]["content"]
    assert asked.startswith('<skill name="review">\nReview for 安全 issues.\n</skill>')
    assert asked.endswith("src/app.py please")
    history = await services.threads.get_active_messages(events[-1].thread_id)
    assert history[0].text == "/skill:review src/app.py please"  # what the person typed


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
async def test_a_memory_linking_outside_the_folder_never_reaches_the_provider(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
    tmp_path: Path,
) -> None:
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret_access_key = SECRET-KEY\n")
    (project / ".agent").mkdir()
    (project / ".agent" / "memory.md").symlink_to(secret)
    loopback.enqueue(CHAT, openai_stream(["Hello."]))
    events = await run(services, request("Hi", workspace_id))
    assert isinstance(events[-1], Completed)
    assert "SECRET-KEY" not in loopback.requests[-1].body.decode()


async def test_an_unknown_skill_is_refused_before_anything_is_written(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    [failed] = [e async for e in services.chat.send(request("/skill:nope go", workspace_id))]
    assert isinstance(failed, Failed) and failed.thread_id is None
    assert failed.error["message"] == "There is no skill named nope in .agent/skills/."
    assert loopback.requests == [] and await services.store.count_threads() == 0


STEPS = [
    {"title": "Read the code", "status": "completed"},
    {"title": "改问候语", "status": "in_progress"},
    {"title": "Run it", "status": "pending"},
]


async def test_update_progress_reports_the_steps_and_keeps_them_on_the_answer(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("p1", "update_progress", {"steps": STEPS})]))
    loopback.enqueue(CHAT, openai_tool_stream([("p2", "update_progress", {"steps": "all"})]))
    loopback.enqueue(CHAT, openai_stream(["Working on it."]))
    events = await run(services, request("Greet in French", workspace_id))
    assert isinstance(events[-1], Completed)
    [reported] = [e for e in events if isinstance(e, ProgressChanged)]  # the malformed one: none
    assert [(s.title, s.status) for s in reported.steps] == [
        ("Read the code", StepStatus.COMPLETED),
        ("改问候语", StepStatus.IN_PROGRESS),
        ("Run it", StepStatus.PENDING),
    ]
    assert cards(events) == []  # progress is not a tool card
    saved = await services.store.get_message(events[-1].message_id)
    assert answer_progress(saved.data) == list(reported.steps)
    results = [m for r in loopback.requests[1:] for m in r.json["messages"][-1:]]
    assert results[0]["content"] == "Progress shown to the user: 1 of 3 steps completed."
    assert "steps" in results[1]["content"] and "list" in results[1]["content"]


async def test_plan_mode_looks_changes_nothing_and_answers_a_proposed_plan(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    loopback.enqueue(
        CHAT,
        openai_tool_stream(
            [
                ("r1", "read", {"path": "src/app.py"}),
                ("b1", "bash", {"command": "rm src/app.py"}),
                ("b2", "bash", {"command": "git status || ls"}),
            ]
        ),
    )
    loopback.enqueue(CHAT, openai_stream(["1. Edit src/app.py to say bonjour."]))
    events = await run(services, request("Plan the French greeting", workspace_id, plan=True))
    done = events[-1]
    assert isinstance(done, Completed)
    assert is_plan(done.message.data)
    assert (project / "src" / "app.py").exists()  # nothing changed, nothing asked
    first = loopback.requests[0].json
    offered = {t["function"]["name"] for t in first["tools"]}
    assert "write" not in offered and "edit" not in offered and "read" in offered
    assert "plan mode" in first["messages"][0]["content"]
    read, rm, status = answer_cards(done.message.data)
    assert read.status is ToolStatus.DONE and status.status is ToolStatus.DONE
    assert rm.status is ToolStatus.FAILED and "plan mode" in rm.output
    thread = await services.store.get_thread(done.thread_id)
    assert thread.mode == "plan"

    # leaving plan mode: the agent may change files again
    loopback.enqueue(CHAT, openai_tool_stream([("w1", "write", {"path": "x.txt", "content": "x"})]))
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    later = SendRequest(
        "Implement the plan.", thread_id=done.thread_id, plan=False, agent=True,
        agent_mode=AgentMode.AUTO,
    )  # fmt: skip
    events = await run(services, later)
    assert isinstance(events[-1], Completed) and not is_plan(events[-1].message.data)
    assert (project / "x.txt").read_text() == "x"
    assert (await services.store.get_thread(done.thread_id)).mode == "chat"


ASKED = {
    "questions": [
        {"question": "Which greeting?", "options": ["bonjour", "salut"]},
        {"question": "用什么语气？"},
    ]
}


@pytest.mark.parametrize("mode", [AgentMode.MANUAL, AgentMode.AUTO])
async def test_questions_wait_for_the_answers_in_any_mode(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    mode: AgentMode,
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("q1", "ask_user_question", ASKED)]))
    loopback.enqueue(CHAT, openai_stream(["Bonjour it is."]))
    send = request("Greet", workspace_id, agent_mode=mode)
    events = await run(services, send, answers=["salut", "正式"])
    assert isinstance(events[-1], Completed)
    waiting, done = (c.card for c in cards(events))
    assert (waiting.status, waiting.summary) == (ToolStatus.WAITING, "Which greeting? (+1)")
    assert done.status is ToolStatus.DONE
    result = loopback.requests[-1].json["messages"][-1]["content"]
    assert result == (
        "The user answered:\n1. Which greeting?\n   → salut\n2. 用什么语气？\n   → 正式"
    )


async def test_dismissed_questions_let_the_agent_go_on_and_bad_ones_are_sent_back(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    too_many = {"questions": [{"question": f"Q{n}?"} for n in range(4)]}
    loopback.enqueue(CHAT, openai_tool_stream([("q0", "ask_user_question", too_many)]))
    loopback.enqueue(CHAT, openai_tool_stream([("q1", "ask_user_question", ASKED)]))
    loopback.enqueue(CHAT, openai_stream(["I assumed bonjour."]))
    events = await run(services, request("Greet", workspace_id), answers=None)
    assert isinstance(events[-1], Completed)
    refused, dismissed = answer_cards(events[-1].message.data)
    assert refused.status is ToolStatus.FAILED and "at most 3" in refused.output
    assert dismissed.status is ToolStatus.DENIED
    assert "dismissed" in loopback.requests[-1].json["messages"][-1]["content"]


async def test_an_approval_is_not_an_answer_and_an_answer_is_not_an_approval(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("q1", "ask_user_question", ASKED)]))
    loopback.enqueue(CHAT, openai_stream(["Fine."]))
    events: list[ChatEvent] = []
    async for event in services.chat.send(request("Greet", workspace_id, new_thread_id="t-q")):
        events.append(event)
        if isinstance(event, ToolCardChanged) and event.card.status is ToolStatus.WAITING:
            assert not services.chat.decide("t-q", "q1", True)  # questions want answers
            assert services.chat.answer("t-q", "q1", ["bonjour", ""])
    assert isinstance(events[-1], Completed)
    assert "→ (no answer)" in loopback.requests[-1].json["messages"][-1]["content"]


async def test_a_sub_agent_researches_read_only_and_reports_back(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    task = {"description": "Find the greeting", "task": "Which file prints the greeting?"}
    loopback.enqueue(CHAT, openai_tool_stream([("s1", "subagent", task)], "Let me delegate."))
    loopback.enqueue(CHAT, openai_tool_stream([("r1", "read", {"path": "src/app.py"})]))  # the sub
    loopback.enqueue(CHAT, openai_stream(["src/app.py line 1 prints it."]))  # its report
    loopback.enqueue(CHAT, openai_stream(["It is in src/app.py."]))
    events = await run(services, request("Where is the greeting?", workspace_id))
    done = events[-1]
    assert isinstance(done, Completed)
    assert done.message.text == "Let me delegate.\n\nIt is in src/app.py."  # no sub words
    [card] = answer_cards(done.message.data)  # the sub-agent's own calls are not cards
    assert (card.name, card.status, card.summary) == (
        "subagent",
        ToolStatus.DONE,
        "Sub-agent: Find the greeting",
    )
    _, sub_first, sub_second, parent = (r.json for r in loopback.requests)
    assert [m["role"] for m in sub_first["messages"]] == ["system", "user"]
    assert sub_first["messages"][1]["content"] == "Which file prints the greeting?"
    assert "sub-agent" in sub_first["messages"][0]["content"]
    offered = {t["function"]["name"] for t in sub_first["tools"]}
    assert "read" in offered and not offered & {"write", "edit", "subagent", "ask_user_question"}
    assert sub_second["messages"][-1]["role"] == "tool"
    result = parent["messages"][-1]["content"]
    assert result == "src/app.py line 1 prints it.\n\n(The sub-agent used: Read src/app.py.)"
    # the usage of every round, the sub-agent's too (42 in / 17 out per tool round)
    assert done.usage.prompt_tokens is not None and done.usage.prompt_tokens >= 84


async def test_a_sub_agent_that_fails_is_reported_and_the_agent_goes_on(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    task = {"description": "Look", "task": "Look around."}
    loopback.enqueue(CHAT, openai_tool_stream([("s1", "subagent", task)]))
    loopback.enqueue(CHAT, openai_json_error(500, "the model crashed", type="server_error"))
    loopback.enqueue(CHAT, openai_stream(["I will look myself."]))
    events = await run(services, request("Look around", workspace_id))
    assert isinstance(events[-1], Completed)
    [card] = answer_cards(events[-1].message.data)
    assert card.status is ToolStatus.FAILED
    result = loopback.requests[-1].json["messages"][-1]["content"]
    assert result.startswith("The sub-agent failed:") and "the model crashed" in result


async def test_exports_show_what_the_agent_did(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    edit = {"path": "src/app.py", "old_string": "hello", "new_string": "bonjour"}
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", edit)]))
    loopback.enqueue(CHAT, openai_stream(["Changed."]))
    events = await run(services, request("Greet", workspace_id, agent_mode=AgentMode.AUTO))
    thread_id = events[-1].thread_id
    markdown = await services.exports.thread_markdown(thread_id)
    assert "**Tool call:** `edit` (done) — Edit src/app.py: 1 replacement" in markdown
    html = await services.exports.thread_html(thread_id)
    assert "Tool call <code>edit</code> · done · Edit src/app.py: 1 replacement" in html
    document = await services.exports.thread_document(thread_id)
    calls = [m["tool_calls"] for m in document["messages"] if m["role"] == "assistant"]
    assert calls[0][0]["summary"] == "Edit src/app.py: 1 replacement"


async def test_later_turns_are_told_what_the_agent_did_and_undid(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    edit = {"path": "src/app.py", "old_string": "hello", "new_string": "bonjour"}
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", edit), ("l1", "ls", {})]))
    loopback.enqueue(CHAT, openai_stream(["Changed."]))
    events = await run(services, request("Greet", workspace_id, agent_mode=AgentMode.AUTO))
    done = events[-1]
    assert isinstance(done, Completed)
    await services.agent.rollback(done.message_id)
    loopback.enqueue(CHAT, openai_stream(["Noted."]))
    await run(services, SendRequest("What did you do?", thread_id=done.thread_id))
    earlier = loopback.requests[-1].json["messages"][-2]
    assert earlier["role"] == "assistant"
    assert earlier["content"] == (
        "Changed.\n\n[Tool calls in this answer: Edit src/app.py: 1 replacement (rolled back);"
        " List . (done)]"
    )


async def test_a_commands_output_shows_while_it_runs(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    command = "for i in 1 2 3; do echo line$i; sleep 0.4; done"
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "bash", {"command": command})]))
    loopback.enqueue(CHAT, openai_stream(["Counted."]))
    events = await run(services, request("Count", workspace_id, agent_mode=AgentMode.AUTO))
    assert isinstance(events[-1], Completed)
    live = [c.card.output for c in cards(events) if c.card.status is ToolStatus.RUNNING]
    assert any(out.startswith("line1") and "line3" not in out for out in live), live
    assert cards(events)[-1].card.output == "line1\nline2\nline3\nexit code 0"


async def test_stop_while_a_command_runs_stops_it(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    command = "echo started; sleep 30; touch late.txt"
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "bash", {"command": command})]))
    send = request("Wait", workspace_id, agent_mode=AgentMode.AUTO, new_thread_id="t-stop")
    loop = asyncio.get_running_loop()
    events: list[ChatEvent] = []
    started = loop.time()
    async for event in services.chat.send(send):
        events.append(event)
        if isinstance(event, ToolCardChanged) and "started" in event.card.output:
            services.chat.stop("t-stop")
    assert isinstance(events[-1], Stopped)
    assert loop.time() - started < 10
    [card] = answer_cards((await services.store.get_message(events[-1].message_id)).data)
    assert card.status is ToolStatus.EXPIRED
    await asyncio.sleep(0.3)
    assert not (project / "late.txt").exists()


async def test_a_card_keeps_the_start_and_end_of_a_long_output_and_the_model_all_of_it(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "bash", {"command": "seq 1 5000"})]))
    loopback.enqueue(CHAT, openai_stream(["Counted."]))
    events = await run(services, request("Count", workspace_id, agent_mode=AgentMode.AUTO))
    [card] = answer_cards(events[-1].message.data)
    assert card.output.startswith("1\n2\n3\n") and card.output.endswith("4999\n5000\nexit code 0")
    assert "characters not kept here" in card.output and len(card.output) < 4_100
    result = loopback.requests[-1].json["messages"][-1]["content"]
    assert "\n2500\n" in result and result.endswith("5000\nexit code 0")


async def test_the_rings_peak_after_an_agent_answer_is_its_largest_round(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    """Its rounds' prompts add up in the answer's usage (what they cost), but
    the context the ring shows at its peak is the largest request sent."""
    (project / "notes.md").write_text("a note")
    usage = {"prompt_tokens": 9000, "completion_tokens": 5}
    for _ in range(3):
        loopback.enqueue(
            CHAT, openai_tool_stream([("c", "read", {"path": "notes.md"})], usage=usage)
        )
    final = {"prompt_tokens": 9500, "completion_tokens": 7}
    loopback.enqueue(CHAT, openai_stream(["Read it."], usage=final))
    events = await run(services, request("read the notes", workspace_id))
    done = events[-1]
    assert isinstance(done, Completed) and done.thread_id
    assert done.usage.prompt_tokens == 3 * 9000 + 9500  # what was sent in all
    meter = await services.meter.measure(done.thread_id)
    assert meter.peak_tokens == 9500


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
async def test_git_status_asks_first_where_the_repositorys_settings_run_a_program(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
    tmp_path: Path,
) -> None:
    """A project received with its own .git/config can name a program that
    git runs for a read-only "git status" (core.fsmonitor): it ran with no
    approval in manual mode. Now such a repository's git commands ask first,
    and a denial runs nothing; in a plain repository they still run at once."""
    marker = tmp_path / "ran"
    hook = tmp_path / "monitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    hook.chmod(0o755)
    _git(project, "init", "-q")
    status = {"command": "git status --short"}
    loopback.enqueue(CHAT, openai_tool_stream([("g1", "bash", status)]))
    loopback.enqueue(CHAT, openai_stream(["Clean enough."]))
    events = await run(services, request("Status?", workspace_id))  # no approval asked
    statuses = [c.card.status for c in cards(events)]
    assert ToolStatus.WAITING not in statuses and statuses[-1] is ToolStatus.DONE

    _git(project, "config", "core.fsmonitor", str(hook))
    loopback.enqueue(CHAT, openai_tool_stream([("g2", "bash", status)]))
    loopback.enqueue(CHAT, openai_stream(["I did not look."]))
    events = await run(services, request("Status?", workspace_id), {"bash": False})
    assert ToolStatus.WAITING in [c.card.status for c in cards(events)]
    assert cards(events)[-1].card.status is ToolStatus.DENIED
    assert not marker.exists()  # nothing ran
    loopback.enqueue(CHAT, openai_tool_stream([("l1", "bash", {"command": "ls"})]))
    loopback.enqueue(CHAT, openai_stream(["Listed."]))
    events = await run(services, request("List?", workspace_id))  # not git: no question
    assert cards(events)[-1].card.status is ToolStatus.DONE
