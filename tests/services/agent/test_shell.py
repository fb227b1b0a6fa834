"""The bash tool: real /bin/sh processes in the workspace folder, their
output and exit code, and that timeouts and cancellation stop every process
the command started."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from mira_desktop.services.agent import shell
from mira_desktop.services.agent.scope import WorkspaceScope
from mira_desktop.services.agent.shell import run_bash

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


async def gone(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def test_output_and_exit_code(scope: WorkspaceScope, root: Path) -> None:
    outcome = await run_bash(scope, "pwd; echo 中文; echo oops >&2; exit 3")
    assert not outcome.ok
    assert outcome.output == f"{root}\n中文\noops\nexit code 3"
    assert outcome.changes == ()
    ok = await run_bash(scope, "true")
    assert ok.ok and ok.output == "(no output)\nexit code 0"


async def test_input_is_empty_and_bad_bytes_are_replaced(scope: WorkspaceScope) -> None:
    outcome = await run_bash(scope, "cat; printf 'a\\377b\\n'", timeout=10)
    assert outcome.output == "a\ufffdb\nexit code 0"


async def test_long_output_keeps_head_and_tail(scope: WorkspaceScope) -> None:
    outcome = await run_bash(scope, "seq 1 20000")
    text = outcome.output
    assert len(text) < shell.MAX_OUTPUT_CHARS + 200
    assert text.startswith("1\n2\n3\n")
    assert text.endswith("19999\n20000\nexit code 0")
    assert "characters of output cut" in text


async def test_huge_output_is_bounded(scope: WorkspaceScope) -> None:
    outcome = await run_bash(scope, "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END")
    assert len(outcome.output) < shell.MAX_OUTPUT_CHARS + 200
    assert "bytes of output cut" in outcome.output
    assert outcome.output.endswith("END\nexit code 0")


async def test_timeout_stops_the_command_and_its_children(
    scope: WorkspaceScope, root: Path
) -> None:
    started = time.monotonic()
    outcome = await run_bash(scope, "sleep 30 & echo $! > child.pid; wait", 0.5)
    assert time.monotonic() - started < 5
    assert not outcome.ok
    assert "Timed out after 0.5 seconds" in outcome.output
    assert await gone(int((root / "child.pid").read_text()))


async def test_plain_sleep_times_out_promptly(scope: WorkspaceScope) -> None:
    started = time.monotonic()
    outcome = await run_bash(scope, "sleep 30", timeout=0.5)
    assert time.monotonic() - started < 5
    assert (
        outcome.output == "Timed out after 0.5 seconds; the command and its processes were stopped."
    )


async def test_background_leftovers_do_not_hold_the_result(
    scope: WorkspaceScope, root: Path
) -> None:
    started = time.monotonic()
    outcome = await run_bash(scope, "sleep 30 & echo $! > bg.pid; echo started")
    assert time.monotonic() - started < 5
    assert outcome.ok and outcome.output == "started\nexit code 0"
    assert await gone(int((root / "bg.pid").read_text()))


async def test_cancellation_kills_the_process_group(scope: WorkspaceScope, root: Path) -> None:
    command = "echo $$ > shell.pid; sleep 30 & echo $! > child.pid; wait"
    task = asyncio.create_task(run_bash(scope, command))
    deadline = time.monotonic() + 5
    while not (root / "child.pid").exists() or not (root / "child.pid").read_text().strip():
        assert time.monotonic() < deadline, "the command did not start"
        await asyncio.sleep(0.02)
    shell_pid, child_pid = (int((root / n).read_text()) for n in ("shell.pid", "child.pid"))
    assert alive(child_pid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(shell_pid)
    assert await gone(child_pid)


async def test_cmd_exe_is_told_not_to_look_for_commands_in_the_folder(
    scope: WorkspaceScope,
) -> None:
    """On Windows cmd.exe runs a workspace's git.bat for "git status" unless
    this is set; the same environment goes to every shell."""
    outcome = await run_bash(scope, "echo $NoDefaultCurrentDirectoryInExePath")
    assert outcome.output == "1\nexit code 0"


def test_the_windows_kill_stops_the_whole_tree() -> None:
    assert shell.kill_tree_command(4242) == ["taskkill", "/T", "/F", "/PID", "4242"]


async def test_stopping_on_windows_runs_the_tree_kill_before_killing_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Windows path of ``_stop``, run here with a stand-in ``taskkill``
    program on PATH (a script recording its arguments and stopping the tree)."""
    record = tmp_path / "taskkill.args"
    fake = tmp_path / "bin" / "taskkill"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$@" > {record}\npkill -KILL -P "$4"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    process = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", "sleep 30 & echo $! > child.pid; wait",
        cwd=tmp_path, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    reader = asyncio.ensure_future(shell._Output().drain(process.stdout))
    while not (tmp_path / "child.pid").exists() or not (tmp_path / "child.pid").read_text():
        await asyncio.sleep(0.02)
    await shell._stop(process, reader, platform="win32")
    assert record.read_text().split() == ["/T", "/F", "/PID", str(process.pid)]
    assert process.returncode is not None
    assert await gone(int((tmp_path / "child.pid").read_text()))
