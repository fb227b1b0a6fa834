"""Whether the project's own git settings make a read-only ``git`` command run
programs (``toolbox.asks_first``).

``git_policy`` judges a command by its words; a repository's configuration
can still make ``git status`` or ``git diff`` run a program of its choosing:
``core.fsmonitor`` (every ``status``), ``diff.external`` and a diff driver's
``textconv`` (``diff``, ``log -p``, ``show``), a filter's ``clean`` (``status``
on a file touched since the index), ``gpg.program`` (``log
--show-signature``), ``core.sshCommand`` and credential helpers (``ls-remote``).
A ``.git/config`` is not made by a clone, but a project folder received as an
archive brings its own. So in manual mode a git command in such a repository
asks first, naming the settings. Only the repository's own scopes count
(``local``, ``worktree``, and what they include): the user's global and system
settings are theirs."""

from __future__ import annotations

import logging
import re
import subprocess
from pathlib import Path

log = logging.getLogger(__name__)

#: settings whose value is a program git may run for a read-only command
_PROGRAM_KEY = re.compile(
    r"""^(core\.fsmonitor|core\.sshcommand|core\.askpass|core\.pager|diff\.external
        |diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)
        |gpg\.program|gpg\..+\.program|credential\.helper|credential\..+\.helper
        |pager\..+|uploadpack\.packobjectshook)$""",
    re.VERBOSE,
)
#: values of ``core.fsmonitor`` that run nothing (a path runs that program)
_FSMONITOR_OFF = frozenset({"", "false", "no", "off", "0", "true", "yes", "on", "1"})
_OWN_SCOPES = ("local", "worktree")
TIMEOUT_S = 5.0


def programs_in_settings(folder: Path) -> list[str]:
    """The settings of the repository ``folder`` is in that name a program
    git may run, as ``key=value`` (none outside a repository, or without
    git). ``core.fsmonitor = true`` is git's own monitor: not counted."""
    try:
        done = subprocess.run(
            ["git", "config", "--list", "--show-scope", "--includes", "-z"],
            cwd=folder,
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("git settings not read in %s: %s", folder, exc)
        return []
    found = []
    fields = done.stdout.decode("utf-8", "replace").split("\0")  # scope, key\nvalue, …
    for scope, setting in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = setting.partition("\n")
        key = key.lower()
        if scope not in _OWN_SCOPES or not _PROGRAM_KEY.match(key) or not value.strip():
            continue  # (an empty value names no program: it resets a helper list)
        if key == "core.fsmonitor" and value.strip().lower() in _FSMONITOR_OFF:
            continue
        if key.startswith("pager.") and value.strip().lower() in _FSMONITOR_OFF:
            continue  # pager.<cmd> = true / false only turns the pager on or off
        found.append(f"{key}={value}")
    return found
