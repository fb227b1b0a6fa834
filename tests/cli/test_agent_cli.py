"""The agent from the command line, as a user runs it (PRODUCT.md §11):
``chat --agent`` in a workspace with a project folder, approvals asked on
the terminal (answered through stdin) or given by ``--approve``, ``tool_card``
JSON lines, ``agent changes`` / ``agent rollback`` (a conflict exits 1 and
names the file), ``thread agent`` and ``agent mode``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.documents import make_pdf
from tests.support.loopback import LoopbackServer, openai_stream, openai_tool_stream

from .test_cli import CHAT, REPO, cli, json_lines

EDIT = {"path": "app.py", "old_string": "hello", "new_string": "bonjour"}


@pytest.fixture
def project(tmp_path: Path, data_dir: Path, keyless_provider: str) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    added = cli(data_dir, "workspace", "add", "Demo", "--root", str(root))
    assert added.returncode == 0, added.stderr
    return root


def chat(data_dir: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), "chat"]
    command += ["--provider", "loop", "--model", "m1", *args]
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=60, cwd=REPO, env=os.environ
    )


def test_a_change_is_asked_on_the_terminal_and_approved_with_y(
    data_dir: Path, loopback: LoopbackServer, project: Path
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))
    loopback.enqueue(CHAT, openai_stream(["Changed."]))
    result = chat(
        data_dir, "--agent", "--workspace", "Demo", "--json", "Greet in French", stdin="y\n"
    )
    assert result.returncode == 0, result.stderr
    assert (project / "app.py").read_text() == "print('bonjour')\n"
    assert "The agent wants to edit" in result.stderr and "Allow? [y/N]" in result.stderr
    assert "+print('bonjour')" in result.stderr  # the diff, before deciding
    lines = json_lines(result.stdout)
    states = [
        (line["card"]["status"], line["card"]["approval"])
        for line in lines
        if line["type"] == "tool_card"
    ]
    assert states == [("waiting", "pending"), ("running", "approved"), ("done", "executed")]
    assert lines[-1]["type"] == "completed"
    message_id = lines[-1]["message_id"]

    changes = json.loads(cli(data_dir, "agent", "changes", message_id, "--json").stdout)
    assert changes["calls"] == [{"call_id": "e1", "files": ["app.py"], "rolled_back": False}]
    assert changes["root"] == str(project.resolve())

    (project / "app.py").write_text("print('mine')\n")
    refused = cli(data_dir, "agent", "rollback", message_id, "--json")
    assert refused.returncode == 1
    assert json.loads(refused.stdout) == {
        "rolled_back": False,
        "conflicts": ["app.py"],
        "restored": [],
    }
    assert (project / "app.py").read_text() == "print('mine')\n"

    (project / "app.py").write_text("print('bonjour')\n")
    done = cli(data_dir, "agent", "rollback", message_id, "--call", "e1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "restored app.py"
    assert (project / "app.py").read_text() == "print('hello')\n"
    again = json.loads(cli(data_dir, "agent", "changes", message_id, "--json").stdout)
    assert again["calls"][0]["rolled_back"] is True
    # a message without tool calls changed nothing; an id naming no message is an error
    [asked] = [line["message_id"] for line in lines if line["type"] == "user_message_saved"]
    unchanged = cli(data_dir, "agent", "changes", asked)
    assert unchanged.returncode == 0 and unchanged.stdout == "This answer changed no files.\n"
    unknown = cli(data_dir, "agent", "changes", "no-such-message", "--json")
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert "No message with id no-such-message" in unknown.stderr and "hint:" in unknown.stderr


def test_no_answer_on_stdin_denies_and_approve_no_denies_without_asking(
    data_dir: Path, loopback: LoopbackServer, project: Path
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))
    loopback.enqueue(CHAT, openai_stream(["Left it."]))
    result = chat(data_dir, "--agent", "--workspace", "Demo", "Greet in French")  # stdin ends
    assert result.returncode == 0, result.stderr
    assert (project / "app.py").read_text() == "print('hello')\n"
    assert "[edit: " in result.stderr and "— denied]" in result.stderr
    # asked on the terminal: the question says what waits, no "waiting" line besides
    assert result.stderr.count("Allow? [y/N]") == 1 and "waiting for approval" not in result.stderr
    thread_id = result.stderr.strip().splitlines()[-1].removeprefix("thread: ")

    loopback.enqueue(CHAT, openai_tool_stream([("e2", "edit", EDIT)]))
    loopback.enqueue(CHAT, openai_stream(["Still left."]))
    again = chat(data_dir, "--thread", thread_id, "--approve", "no", "Really?")
    assert again.returncode == 0, again.stderr
    assert "Allow?" not in again.stderr and "denied" in again.stderr
    assert "— waiting for approval]" in again.stderr  # decided by --approve: said as it waits
    assert (project / "app.py").read_text() == "print('hello')\n"


def test_the_terminal_shows_all_of_a_long_change_and_says_what_it_could_not_keep(
    data_dir: Path, loopback: LoopbackServer, project: Path
) -> None:
    long = "".join(f"line {n}\n" for n in range(3_000))  # about 30,000 characters of diff
    (project / "huge.txt").write_text("".join(f"a{n}\n" for n in range(150_000)))
    every = {"path": "huge.txt", "old_string": "a", "new_string": "b", "replace_all": True}
    loopback.enqueue(
        CHAT,
        openai_tool_stream(
            [("w1", "write", {"path": "long.txt", "content": long}), ("e1", "edit", every)]
        ),
    )
    loopback.enqueue(CHAT, openai_stream(["Left them."]))
    result = chat(data_dir, "--agent", "--workspace", "Demo", "Write", stdin="n\nn\n")
    assert result.returncode == 0, result.stderr
    assert "+line 2999\n" in result.stderr  # the end of the long change, before deciding
    assert result.stderr.count("The change is longer than shown: ") == 1
    assert "more lines were not kept" in result.stderr


def test_the_thread_switch_the_mode_and_a_workspace_without_a_folder(
    data_dir: Path, loopback: LoopbackServer, project: Path
) -> None:
    assert json.loads(cli(data_dir, "agent", "mode", "--json").stdout) == {"mode": "manual"}
    assert json.loads(cli(data_dir, "agent", "mode", "auto", "--json").stdout) == {"mode": "auto"}
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    result = chat(data_dir, "--agent", "--workspace", "Demo", "--json", "Go")
    assert result.returncode == 0, result.stderr
    assert (project / "app.py").read_text() == "print('bonjour')\n"  # asked nothing
    completed = json_lines(result.stdout)[-1]
    switched = cli(data_dir, "thread", "agent", completed["thread_id"], "off", "--json")
    assert json.loads(switched.stdout) == {
        "thread_id": completed["thread_id"],
        "agent_enabled": False,
    }

    asked = len(loopback.requests)
    refused = chat(data_dir, "--agent", "Hello")  # Mira BASE has no folder
    assert refused.returncode == 1
    assert "project folder" in refused.stderr
    assert len(loopback.requests) == asked  # no model was asked


def test_the_web_search_endpoint_is_set_shown_refused_and_cleared(data_dir: Path) -> None:
    assert cli(data_dir, "agent", "search-url").stdout.strip() == "No web search endpoint is set."
    url = "http://localhost:8888/search?q={query}&format=json"
    assert json.loads(cli(data_dir, "agent", "search-url", url, "--json").stdout) == {
        "search_url": url
    }
    refused = cli(data_dir, "agent", "search-url", "http://localhost:8888/search")
    assert refused.returncode == 1 and "{query}" in refused.stderr
    assert cli(data_dir, "agent", "search-url").stdout.strip() == url  # kept
    cleared = cli(data_dir, "agent", "search-url", "--clear", "--json")
    assert json.loads(cleared.stdout) == {"search_url": None}


def test_the_agents_steps_print_as_progress_lines(
    data_dir: Path, loopback: LoopbackServer, project: Path
) -> None:
    steps = [
        {"title": "Read", "status": "completed"},
        {"title": "Change the greeting", "status": "in_progress"},
    ]
    for _ in range(2):
        loopback.enqueue(CHAT, openai_tool_stream([("p1", "update_progress", {"steps": steps})]))
        loopback.enqueue(CHAT, openai_stream(["Working."]))
    plain = chat(data_dir, "--agent", "--workspace", "Demo", "Go")
    assert plain.returncode == 0, plain.stderr
    assert "[progress 1/2: Change the greeting]" in plain.stderr
    lines = json_lines(chat(data_dir, "--agent", "--workspace", "Demo", "--json", "Go").stdout)
    [progress] = [line for line in lines if line["type"] == "progress"]
    assert progress["steps"] == steps


def test_plan_mode_proposes_and_says_how_to_carry_it_out(
    data_dir: Path, loopback: LoopbackServer, project: Path
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))
    loopback.enqueue(CHAT, openai_stream(["1. Say bonjour in app.py."]))
    result = chat(data_dir, "--workspace", "Demo", "--plan", "Greet in French")
    assert result.returncode == 0, result.stderr
    assert (project / "app.py").read_text() == "print('hello')\n"
    assert "edit" not in {t["function"]["name"] for t in loopback.requests[0].json["tools"]}
    thread_id = result.stderr.strip().splitlines()[-1].removeprefix("thread: ")
    assert f'--thread {thread_id} --no-plan "Implement the plan."' in result.stderr
    left = cli(data_dir, "thread", "plan", thread_id, "off", "--json")
    assert json.loads(left.stdout) == {"thread_id": thread_id, "plan_mode": False}


def test_the_agents_questions_are_asked_on_the_terminal(
    data_dir: Path, loopback: LoopbackServer, project: Path
) -> None:
    asked = {
        "questions": [
            {"question": "Which greeting?", "options": ["bonjour", "salut"]},
            {"question": "Anything else?"},
        ]
    }
    loopback.enqueue(CHAT, openai_tool_stream([("q1", "ask_user_question", asked)]))
    loopback.enqueue(CHAT, openai_stream(["Salut."]))
    result = chat(data_dir, "--agent", "--workspace", "Demo", "Greet", stdin="2\nkeep it short\n")
    assert result.returncode == 0, result.stderr
    assert "The agent asks (1): Which greeting?\n  1) bonjour\n  2) salut" in result.stderr
    sent = loopback.requests[-1].json["messages"][-1]["content"]
    assert "→ salut" in sent and "→ keep it short" in sent

    loopback.enqueue(CHAT, openai_tool_stream([("q2", "ask_user_question", asked)]))
    loopback.enqueue(CHAT, openai_stream(["OK."]))
    dismissed = chat(data_dir, "--agent", "--workspace", "Demo", "Greet")  # stdin ends
    assert dismissed.returncode == 0, dismissed.stderr
    assert "dismissed" in loopback.requests[-1].json["messages"][-1]["content"]


def test_the_agent_searches_the_base_bound_with_kb_and_lists_its_sources(
    data_dir: Path, loopback: LoopbackServer, project: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.pdf"
    report.write_bytes(make_pdf([["Harvest notes"], ["The cellar holds 300 jars of plum jam."]]))
    for args in (("kb", "create", "Farm"), ("kb", "add", "Farm", str(report))):
        made = cli(data_dir, *args)
        assert made.returncode == 0, made.stderr
    search = {"query": "plum jam cellar"}
    loopback.enqueue(CHAT, openai_tool_stream([("k1", "search_knowledge_base", search)]))
    loopback.enqueue(CHAT, openai_stream(["300 jars [1]."]))
    result = chat(data_dir, "--agent", "--workspace", "Demo", "--kb", "Farm", "--json", "Jam?")
    assert result.returncode == 0, result.stderr
    lines = json_lines(result.stdout)
    assert [line["type"] for line in lines[-2:]] == ["sources", "completed"]
    sources = lines[-2]
    assert (sources["kb_name"], sources["kb_path"], sources["cited"]) == ("Farm", "agent", [1])
    assert sources["sources"][0]["location_label"] == "page 2"
    # a plain follow-up in the same thread: the answer, then its sources
    thread_id = lines[-1]["thread_id"]
    loopback.enqueue(CHAT, openai_tool_stream([("k2", "search_knowledge_base", search)]))
    loopback.enqueue(CHAT, openai_stream(["Still 300 jars [1]."]))
    again = chat(data_dir, "--thread", thread_id, "And now?")
    assert again.returncode == 0, again.stderr
    assert again.stdout.endswith("Still 300 jars [1].\n\nSources:\n[1] report.pdf (page 2)\n")
