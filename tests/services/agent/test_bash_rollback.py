"""A shell command's file changes can be rolled back like write's and edit's
(PRODUCT.md §11): the folder is read before and after a command that may
change files, real commands in a real folder, through the agent and the
loopback server; what cannot be put back is said."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import (
    AgentMode,
    RollbackConflict,
    ToolCardChanged,
    ToolStatus,
    answer_cards,
)
from mira_desktop.core.events import Completed, Stopped
from mira_desktop.services.agent import folder_snapshot
from mira_desktop.services.agent.shell_syntax import command_words
from tests.support.loopback import LoopbackServer, openai_stream, openai_tool_stream

from ..conftest import CHAT
from .chat_support import request, run

pytestmark = pytest.mark.skipif(not Path("/bin/sh").exists(), reason="the shell tool's POSIX path")

CHANGE_ALL = (
    "sed -i 's/hello/bonjour/' src/app.py && rm README.md && mkdir -p docs"
    " && printf 'made\\n' > docs/new.txt"
)


async def bash(
    services: Services, loopback: LoopbackServer, workspace_id: str, command: str
) -> Completed:
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "bash", {"command": command})]))
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    events = await run(services, request("Go", workspace_id, agent_mode=AgentMode.AUTO))
    assert isinstance(events[-1], Completed), events[-1]
    return events[-1]


async def test_a_commands_changes_are_rolled_back(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    answer = await bash(services, loopback, workspace_id, CHANGE_ALL)
    assert (project / "src" / "app.py").read_text() == "print('bonjour')\n"
    assert not (project / "README.md").exists() and (project / "docs" / "new.txt").exists()
    [card] = answer_cards(answer.message.data)
    assert card.status is ToolStatus.DONE and card.can_roll_back
    assert sorted(card.changed) == ["README.md", "docs/new.txt", "src/app.py"]
    result = loopback.requests[-1].json["messages"][-1]["content"]
    assert "Changed: README.md, docs/new.txt, src/app.py." in result  # the model is told too

    message, restored = await services.agent.rollback(answer.message_id, "b1")
    assert sorted(restored) == ["README.md", "docs/new.txt", "src/app.py"]
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before
    [rolled] = answer_cards(message.data)
    assert rolled.rolled_back and not rolled.can_roll_back


async def test_a_file_changed_since_refuses_the_rollback_and_nothing_is_written(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    answer = await bash(services, loopback, workspace_id, CHANGE_ALL)
    (project / "docs" / "new.txt").write_text("kept by hand\n")
    with pytest.raises(RollbackConflict) as refused:
        await services.agent.rollback(answer.message_id)
    assert refused.value.files == ["docs/new.txt"]
    assert (project / "src" / "app.py").read_text() == "print('bonjour')\n"  # untouched
    assert not (project / "README.md").exists()


async def test_a_command_that_failed_half_way_can_be_rolled_back(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    answer = await bash(services, loopback, workspace_id, "printf 'x\\n' > src/app.py && exit 3")
    [card] = answer_cards(answer.message.data)
    assert card.status is ToolStatus.FAILED and card.can_roll_back
    await services.agent.rollback(answer.message_id)
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"


async def test_what_cannot_be_put_back_is_said(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0old")
    command = "printf '\\211PNG\\0new' > logo.png && printf 'v2\\n' > VERSION"
    answer = await bash(services, loopback, workspace_id, command)
    [card] = answer_cards(answer.message.data)
    assert card.changed == ("VERSION",)
    assert "a rollback cannot put them back: logo.png" in card.output
    await services.agent.rollback(answer.message_id)
    assert not (project / "VERSION").exists()


def test_tool_folders_are_not_read_and_a_huge_folder_is_said(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: main\n")
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "index.js").write_text("1\n")
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "big.txt").write_text("b" * (folder_snapshot.MAX_FILE_BYTES + 1))
    shot = folder_snapshot.take(tmp_path)
    assert set(shot.texts) == {"a.txt"} and set(shot.others) == {"big.txt"}
    assert shot.complete


def test_a_folder_past_the_file_limit_records_nothing_a_rollback_could_misread(
    tmp_path: Path,
) -> None:
    """Both readings stop at the limit; a file removed before it moves the
    second reading one file further, and that untouched file must not be
    taken for one the command created (a rollback would delete it)."""
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(name)
    before = folder_snapshot.take(tmp_path, max_files=2)
    (tmp_path / "a.txt").unlink()
    after = folder_snapshot.take(tmp_path, max_files=2)
    assert not before.complete and "c.txt" in after.texts and "c.txt" not in before.texts
    found = folder_snapshot.compare(before, after)
    assert found.changes == () and found.unrecoverable == ()
    assert "a rollback cannot put back what this command changed" in found.note()


def test_more_changed_text_than_a_rollback_keeps_is_said_not_kept(tmp_path: Path) -> None:
    size = folder_snapshot.MAX_FILE_BYTES - 10
    for n in range(9):
        (tmp_path / f"part{n}.txt").write_text("a" * size)
    before = folder_snapshot.take(tmp_path)
    for n in range(9):
        (tmp_path / f"part{n}.txt").write_text("b" * size)
    found = folder_snapshot.compare(before, folder_snapshot.take(tmp_path))
    assert found.changes == () and len(found.unrecoverable) == 9
    assert "more text than a rollback keeps" in found.note()


async def test_an_approved_edit_in_a_build_folder_is_rolled_back(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    """``src/build/`` is source like any other folder; ``build/`` at the top
    is not read, but a file the command names there is."""
    for folder in (project / "src" / "build", project / "build"):
        folder.mkdir(parents=True)
        (folder / "config.py").write_text("DEBUG = False\n")
    command = "sed -i 's/False/True/' src/build/config.py build/config.py"
    answer = await bash(services, loopback, workspace_id, command)
    [card] = answer_cards(answer.message.data)
    assert sorted(card.changed) == ["build/config.py", "src/build/config.py"]
    await services.agent.rollback(answer.message_id)
    assert (project / "src" / "build" / "config.py").read_text() == "DEBUG = False\n"
    assert (project / "build" / "config.py").read_text() == "DEBUG = False\n"


async def test_a_skipped_folder_named_whole_is_said_not_hidden(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "index.js").write_text("1\n")
    answer = await bash(services, loopback, workspace_id, "rm -r node_modules/x && ls")
    [card] = answer_cards(answer.message.data)
    assert "a rollback cannot put back what it changed in: node_modules/x/." in card.output


def test_named_paths_in_skipped_folders(tmp_path: Path) -> None:
    (tmp_path / "dist" / "js").mkdir(parents=True)
    (tmp_path / "dist" / "js" / "a.js").write_text("a\n")
    (tmp_path / "dist" / "js" / "b.js").write_text("b\n")
    (tmp_path / ".git").mkdir()
    words = command_words(
        "dd of=dist/js/a.js; cat dist/js/*.js; sort -odist/new.txt x; rm -r dist $(ls dist/x)"
        "; cat .git/config /etc/hosts"
    )
    files, folders = folder_snapshot.skipped_paths(tmp_path, words)
    assert files == ["dist/js/a.js", "dist/js/b.js", "dist/new.txt", "dist/x"]
    assert folders == [".git/", "dist/"]
    shot = folder_snapshot.take(tmp_path, named=words)
    assert set(shot.texts) == {"dist/js/a.js", "dist/js/b.js"} and shot.unread == {".git/", "dist/"}


async def test_a_branched_chat_rolls_back_the_same_files_once(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    """Branch into a new chat takes the journal along: the copy's card puts
    the files back; the original's then finds them changed and writes nothing."""
    answer = await bash(services, loopback, workspace_id, CHANGE_ALL)
    copy = await services.conversation.branch_into_new_thread(answer.thread_id, answer.message_id)
    copied = (await services.conversation.active_branch(copy.id))[-1]
    [card] = answer_cards(copied.data)
    assert card.can_roll_back
    await services.agent.rollback(copied.id, "b1")
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"
    with pytest.raises(RollbackConflict) as refused:
        await services.agent.rollback(answer.message_id, "b1")
    assert "src/app.py" in refused.value.files
    assert (project / "README.md").exists() and not (project / "docs" / "new.txt").exists()
    await services.history.purge(copy.id, force=True)  # the copy's journal goes with it
    assert await services.store.agent_trace(copied.id) is None
    assert await services.store.agent_trace(answer.message_id) is not None


async def test_an_imported_answers_cards_offer_no_rollback(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path, tmp_path: Path,
) -> None:  # fmt: skip
    """A JSON export carries the cards, not the journal (the files are
    another folder's, maybe another computer's): imported, the cards say
    what was changed but offer no Roll back that could only fail."""
    answer = await bash(services, loopback, workspace_id, CHANGE_ALL)
    path = tmp_path / "thread.json"
    path.write_text(await services.exports.thread_json(answer.thread_id), "utf-8")
    report = await services.imports.import_file(path)
    imported = (await services.conversation.active_branch(report.imported[0].id))[-1]
    [card] = answer_cards(imported.data)
    assert card.imported and not card.can_roll_back
    assert sorted(card.changed) == ["README.md", "docs/new.txt", "src/app.py"]
    [original] = answer_cards((await services.store.get_message(answer.message_id)).data)
    assert original.can_roll_back and not original.imported


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permission bits")
async def test_a_removed_or_moved_script_comes_back_executable(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    script = project / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o750)
    answer = await bash(services, loopback, workspace_id, "mv run.sh go.sh && rm README.md")
    assert not script.exists() and (project / "go.sh").exists()
    await services.agent.rollback(answer.message_id)
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert not (project / "go.sh").exists() and (project / "README.md").exists()


async def test_a_command_stopped_with_the_answer_can_be_rolled_back(
    services: Services, loop_provider: str, loopback: LoopbackServer, workspace_id: str,
    project: Path,
) -> None:  # fmt: skip
    """Stop while a command runs: it is killed, and what it changed before
    goes to the journal — the card (expired) offers Roll back."""
    command = "printf 'half\\n' > src/app.py && rm README.md && echo changed; sleep 30"
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "bash", {"command": command})]))
    send = request("Go", workspace_id, agent_mode=AgentMode.AUTO, new_thread_id="t-half")
    events = []
    async for event in services.chat.send(send):
        events.append(event)
        if isinstance(event, ToolCardChanged) and "changed" in event.card.output:
            services.chat.stop("t-half")
    assert isinstance(events[-1], Stopped)
    assert (project / "src" / "app.py").read_text() == "half\n"
    saved = await services.store.get_message(events[-1].message_id)
    [card] = answer_cards(saved.data)
    assert card.status is ToolStatus.EXPIRED and card.can_roll_back
    assert sorted(card.changed) == ["README.md", "src/app.py"]
    assert card.output.startswith("changed\nStopped with the answer.")  # what it had shown
    await services.agent.rollback(saved.id)
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"
    assert (project / "README.md").read_text(encoding="utf-8") == "# Demo\n\n你好，世界\n"


async def test_closing_the_answer_while_its_reader_is_elsewhere_stops_the_command_and_keeps_its_changes(
    loopback: LoopbackServer, project: Path
) -> None:
    """The answer's reader may be stopped while it is not waiting on the
    agent (between two events): the agent's stream is then closed, not
    cancelled. The command stops at once and its changes still reach the
    journal and the card kept for the run's end."""
    from mira_desktop.core.models import ChatMessage, ChatRequest
    from mira_desktop.providers.openai_compat import OpenAIProvider
    from mira_desktop.services.agent.runner import AgentLoop
    from mira_desktop.services.agent.scope import WorkspaceScope
    from mira_desktop.services.agent.toolbox import Toolbox

    command = "printf 'half\\n' > src/app.py && echo changed; sleep 30; touch late.txt"
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "bash", {"command": command})]))
    journal: list[tuple[str, list[str]]] = []

    async def record(card, changes):  # type: ignore[no-untyped-def]
        journal.append((card.call_id, [c.path for c in changes]))

    provider = OpenAIProvider("loop", loopback.url + "/v1", "sk")
    loop = AgentLoop(
        provider, Toolbox(WorkspaceScope(project)), thread_id="t", message_id="m",
        mode=AgentMode.AUTO, on_changes=record,
    )  # fmt: skip
    stream = loop.stream_chat(ChatRequest(model="m", messages=(ChatMessage("user", "Go"),)))
    try:
        async for event in stream:
            if isinstance(event, ToolCardChanged) and "changed" in event.card.output:
                break  # the reader leaves between two events
        await stream.aclose()
    finally:
        await provider.aclose()
    assert journal == [("b1", ["src/app.py"])]
    stopped = loop.stopped_cards["b1"]
    assert stopped.changed == ("src/app.py",) and stopped.can_roll_back
    await asyncio.sleep(0.5)
    assert not (project / "late.txt").exists()  # the command was stopped, not left to run
