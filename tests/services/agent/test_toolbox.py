"""The toolbox the runner uses: specs, which calls need approval, previews,
and running calls, where every problem becomes a failed outcome."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.core.agent import ToolRefused
from mira_desktop.core.models import ToolCall
from mira_desktop.services.agent.scope import WorkspaceScope
from mira_desktop.services.agent.toolbox import READ_ONLY_TOOLS, TOOL_SPECS, Toolbox


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall("call-1", name, arguments)


@pytest.fixture
def toolbox(scope: WorkspaceScope) -> Toolbox:
    return Toolbox(scope)


def test_specs_are_complete_json_schemas(toolbox: Toolbox, root: Path) -> None:
    assert [spec.name for spec in toolbox.specs] == [
        "read", "find", "grep", "ls", "bash", "edit", "write",
    ]  # fmt: skip
    assert toolbox.specs == TOOL_SPECS and toolbox.root == root
    for spec in TOOL_SPECS:
        schema = spec.parameters
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])
        assert all(p["description"] and p["type"] for p in schema["properties"].values())
        assert len(spec.description) > 40
    assert {"read", "find", "grep", "ls"} == READ_ONLY_TOOLS


def test_needs_approval(toolbox: Toolbox) -> None:
    assert toolbox.needs_approval(call("write", path="a", content="b"))
    assert toolbox.needs_approval(call("edit", path="a", old_string="b", new_string="c"))
    assert toolbox.needs_approval(call("bash", command="rm -rf build"))
    assert toolbox.needs_approval(call("bash", command="ls && echo x > f"))
    assert not toolbox.needs_approval(call("bash", command="git status"))
    assert not toolbox.needs_approval(call("bash"))
    for name in READ_ONLY_TOOLS:
        assert not toolbox.needs_approval(call(name, path="."))
    assert not toolbox.needs_approval(call("frobnicate"))


async def test_run_file_tools(toolbox: Toolbox, root: Path) -> None:
    written = await toolbox.run(call("write", path="a.txt", content="one\ntwo\n"))
    assert written.ok and written.changes[0].after == "one\ntwo\n"
    read = await toolbox.run(call("read", path="a.txt", offset=2.0, limit=None))
    assert read.ok and read.output == "   2\ttwo"
    edited = await toolbox.run(call("edit", path="a.txt", old_string="two", new_string="2"))
    assert edited.ok and (root / "a.txt").read_text() == "one\n2\n"
    assert (await toolbox.run(call("ls"))).output == "a.txt  6 bytes"
    assert (await toolbox.run(call("find", pattern="*.txt"))).output == "a.txt"
    grep = await toolbox.run(call("grep", pattern="ONE", ignore_case=True))
    assert grep.output == "a.txt:1: one"


async def test_file_tools_run_off_the_event_loop_thread(
    toolbox: Toolbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[int] = []
    real_scandir = os.scandir

    def spy(path: Any) -> Any:
        threads.append(threading.get_ident())
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", spy)
    assert (await toolbox.run(call("ls"))).ok
    assert threads and threading.get_ident() not in threads


async def test_run_bash(toolbox: Toolbox) -> None:
    outcome = await toolbox.run(call("bash", command="echo hi"))
    assert outcome.ok and outcome.output == "hi\nexit code 0"
    slow = await toolbox.run(call("bash", command="sleep 5", timeout=1))
    assert not slow.ok and "Timed out after 1 second;" in slow.output


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("frobnicate", {}, "There is no tool named 'frobnicate'; the tools are read, find"),
        ("read", {}, "read needs the argument path."),
        ("edit", {"path": "a"}, "edit needs the argument old_string and new_string."),
        ("read", {"path": 3}, "The argument path of read must be a string."),
        (
            "read",
            {"path": "a", "offset": "5"},
            "The argument offset of read must be a whole number.",
        ),
        ("read", {"path": "a", "offset": True}, "must be a whole number"),
        ("read", {"path": "a", "offset": 1.5}, "must be a whole number"),
        ("read", {"path": "a", "offset": 0}, "The argument offset of read must be at least 1."),
        ("bash", {"command": "ls", "timeout": 601}, "must be from 1 to 600"),
        ("grep", {"pattern": "x", "ignore_case": "yes"}, "must be true or false"),
        ("read", {"path": "../x"}, "outside the workspace folder"),
        ("grep", {"pattern": "("}, "Invalid regular expression"),
    ],
)
async def test_problems_become_failed_outcomes(
    toolbox: Toolbox, name: str, arguments: dict[str, Any], message: str
) -> None:
    outcome = await toolbox.run(call(name, **arguments))
    assert not outcome.ok
    assert message in outcome.output
    with pytest.raises(ToolRefused):
        toolbox.preview(call(name, **arguments))


async def test_unexpected_errors_become_failed_outcomes(toolbox: Toolbox, root: Path) -> None:
    outcome = await toolbox.run(call("write", path="a.txt", content="bad \ud800 text"))
    assert not outcome.ok and outcome.output.startswith("write failed:")
    assert not (root / "a.txt").exists()
    assert [p.name for p in root.iterdir()] == []


async def test_a_bad_glob_is_a_refusal_not_an_error(toolbox: Toolbox) -> None:
    for bad in (call("find", pattern="[z-a]"), call("grep", pattern="x", glob="[!]x]*[z-a]")):
        with pytest.raises(ToolRefused, match="not a valid glob"):
            toolbox.preview(bad)
        outcome = await toolbox.run(bad)
        assert not outcome.ok and "not a valid glob" in outcome.output


def test_preview_goes_through_argument_checks(toolbox: Toolbox, root: Path) -> None:
    assert toolbox.preview(call("write", path="n.md", content="x\n")).summary == (
        "Create n.md (1 line)"
    )
    assert toolbox.preview(call("bash", command="make")).summary == "make"
    assert toolbox.preview(call("read", path="a.txt", extra="ignored")).summary == "Read a.txt"
