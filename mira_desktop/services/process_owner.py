"""Who owns a streaming answer: ``host:pid:start`` of the process writing it.

Start-up recovery turns a ``streaming`` row into ``stopped`` only when its owner
is gone, so a window starting while the CLI streams (or the reverse) leaves the
other process's answer alone. The process start time guards against a reused
pid (Linux ``/proc``; elsewhere the pid check alone)."""

from __future__ import annotations

import os
import socket
from pathlib import Path


def _start_ticks(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "0"
    # The command name (field 2) may contain spaces; fields after it are safe.
    after = stat.rsplit(")", 1)[-1].split()
    return after[19] if len(after) > 19 else "0"


def current_owner() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid)}"


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def owner_alive(owner: str | None) -> bool:
    """True when the process that wrote ``owner`` is still running on this host."""
    if not owner:
        return False
    try:
        host, pid_text, ticks = owner.rsplit(":", 2)
        pid = int(pid_text)
    except ValueError:
        return False
    if host != socket.gethostname():
        # Another machine sharing the folder: we cannot know; never touch its rows.
        return True
    if not _pid_alive(pid):
        return False
    return ticks == "0" or _start_ticks(pid) in ("0", ticks)
