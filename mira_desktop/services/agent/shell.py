"""The agent's ``bash`` tool (PRODUCT.md §11): one shell command in the
workspace folder, its output (stdout and stderr together) and exit code.

The command runs in a session of its own, so a timeout or a cancelled run
stops it with everything it started (on Windows its process tree, with
``taskkill /T``); on POSIX whatever it left running in the background is
stopped when it ends. Input is empty (nothing can wait for a keyboard) and
the output is capped, keeping its start and its end. A shell command cannot
say which files it changed: the toolbox reads the folder before and after
one that may (``folder_snapshot``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

from ...core.agent import ToolOutcome
from .scope import WorkspaceScope

log = logging.getLogger(__name__)

MAX_OUTPUT_CHARS = 30_000
#: seconds between two reports of a running command's output
LIVE_INTERVAL_S = 0.25
_KEEP_BYTES = 4 * MAX_OUTPUT_CHARS  # of each end; enough for any UTF-8 text
_CHUNK = 64 * 1024
#: no pager, no prompt; on Windows cmd.exe looks a command up in the current
#: folder before PATH unless told not to (a workspace's git.bat would run
#: for a read-only "git status")
_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "NoDefaultCurrentDirectoryInExePath": "1",
}


async def run_bash(
    scope: WorkspaceScope,
    command: str,
    timeout: float = 120.0,
    on_output: Callable[[str], None] | None = None,
) -> ToolOutcome:
    """Run ``command`` with ``/bin/sh -c`` (the default shell on Windows) in
    the workspace folder, stopping it after ``timeout`` seconds;
    ``on_output`` gets the output so far as it grows (at most every
    ``LIVE_INTERVAL_S``)."""
    process = await _spawn(command, str(scope.root))
    output = _Output(on_output)
    reader = asyncio.ensure_future(output.drain(process.stdout))
    timed_out = False
    try:
        await asyncio.wait_for(_exited(process), timeout)
    except TimeoutError:
        timed_out = True
    except asyncio.CancelledError:
        await _stop(process, reader)
        raise
    await _stop(process, reader)
    text = output.text()
    if timed_out:
        unit = "second" if timeout == 1 else "seconds"
        note = f"Timed out after {timeout:g} {unit}; the command and its processes were stopped."
        return ToolOutcome(False, f"{text}\n{note}" if text else note)
    code = process.returncode
    status = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    return ToolOutcome(code == 0, f"{text or '(no output)'}\n{status}")


async def _spawn(command: str, cwd: str) -> asyncio.subprocess.Process:
    env = {**os.environ, **_ENV}
    devnull, pipe, stdout = (
        asyncio.subprocess.DEVNULL,
        asyncio.subprocess.PIPE,
        asyncio.subprocess.STDOUT,
    )
    if sys.platform == "win32":
        return await asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            env=env,
            stdin=devnull,
            stdout=pipe,
            stderr=stdout,
            creationflags=subprocess.CREATE_NEW_PROCESS_GROUP,
        )
    return await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        command,
        cwd=cwd,
        env=env,
        stdin=devnull,
        stdout=pipe,
        stderr=stdout,
        start_new_session=True,
    )


async def _exited(process: asyncio.subprocess.Process) -> None:
    """Wait for the shell itself to end. (``Process.wait`` would also wait for
    every process still holding its output, such as ``sleep 60 &``.)"""
    delay = 0.002
    while process.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)


def kill_tree_command(pid: int) -> list[str]:
    """The command that stops process ``pid`` and every process it started,
    on Windows: killing cmd.exe alone leaves what it runs running (a
    timed-out build, a server)."""
    return ["taskkill", "/T", "/F", "/PID", str(pid)]


async def _kill_tree(pid: int) -> None:
    """Run :func:`kill_tree_command`; quietly, as the process may be gone."""
    try:
        killer = await asyncio.create_subprocess_exec(
            *kill_tree_command(pid),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        await asyncio.wait_for(killer.wait(), 10.0)
    except (OSError, TimeoutError) as exc:  # no taskkill: the shell alone is killed below
        log.warning("could not stop the process tree of %d: %s", pid, exc)


async def _stop(
    process: asyncio.subprocess.Process,
    reader: asyncio.Future[None],
    platform: str = sys.platform,
) -> None:
    """Kill what is left of the command's process group (on Windows its
    process tree), then let the reader see the end of the output and the
    process be reaped."""
    if platform == "win32":
        if process.returncode is None:
            await asyncio.shield(_kill_tree(process.pid))
            with contextlib.suppress(ProcessLookupError):
                process.kill()
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    try:
        await asyncio.wait_for(asyncio.shield(_reaped(process, reader)), 5.0)
    except TimeoutError:  # a process that left the group still holds the output
        reader.cancel()


async def _reaped(process: asyncio.subprocess.Process, reader: asyncio.Future[None]) -> None:
    await reader
    await process.wait()


class _Output:
    """The start and the end of a stream, however long it is."""

    def __init__(self, on_output: Callable[[str], None] | None = None) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self._on_output = on_output
        self._told = 0.0

    async def drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(_CHUNK):
            self.total += len(chunk)
            room = _KEEP_BYTES - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            del self.tail[:-_KEEP_BYTES]
            self._tell()

    def _tell(self) -> None:
        """Hand the output so far to the listener, at most every interval."""
        now = time.monotonic()
        if self._on_output is not None and now - self._told >= LIVE_INTERVAL_S:
            self._told = now
            self._on_output(self.text())

    def text(self) -> str:
        """The output decoded (invalid UTF-8 replaced), cut in the middle when long."""
        half = MAX_OUTPUT_CHARS // 2
        if self.total <= len(self.head) + len(self.tail):  # nothing was dropped yet
            text = (bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace")
            if len(text) <= MAX_OUTPUT_CHARS:
                return text.rstrip("\n")
            head, tail = text[:half], text[-half:]
            cut = f"{len(text) - MAX_OUTPUT_CHARS:,} characters"
        else:
            head = self.head.decode("utf-8", "replace")[:half]
            tail = self.tail.decode("utf-8", "replace")[-half:]
            cut = f"more than {self.total - len(self.head) - len(self.tail):,} bytes"
        return f"{head}\n[… {cut} of output cut …]\n{tail}".rstrip("\n")
