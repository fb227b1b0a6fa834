"""Undoing the file changes of an agent's run (PRODUCT.md §11).

A rollback puts every file back as it was before the agent's first change to
it: rewrites it, deletes a file the agent created, recreates one it removed.
It is all or nothing: when any file is no longer as the agent left it (edited
since, deleted, created again, unreadable), the rollback is refused with the
list of those files and writes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...core.agent import FileChange, RollbackConflict, ToolRefused
from .scope import WorkspaceScope
from .text_io import write_text_atomic

#: the current state of a file that cannot match any text (a folder, bytes not UTF-8)
_UNREADABLE = object()


def conflicts(scope: WorkspaceScope, changes: Sequence[FileChange]) -> list[str]:
    """The files (relative paths) that changed since the agent wrote them."""
    found = []
    for path, (_, after) in _net(changes).items():
        try:
            target = scope.resolve(path)
        except ToolRefused:
            found.append(path)
            continue
        if _current(target) != after:
            found.append(path)
    return found


def rollback(scope: WorkspaceScope, changes: Sequence[FileChange]) -> list[str]:
    """Restore every file ``changes`` touched (in the order they were made)
    to its state before the first of them; return the restored paths.
    Raises :class:`RollbackConflict` (writing nothing) when files changed since."""
    found = conflicts(scope, changes)
    if found:
        raise RollbackConflict(found)
    restored = []
    modes = _modes(changes)
    for path, (before, _) in _net(changes).items():
        target = scope.resolve(path)
        if before is None:
            target.unlink(missing_ok=True)
        elif _current(target) != before:
            write_text_atomic(target, before, modes.get(path))  # a removed file's mode too
        restored.append(path)
    return restored


def _net(changes: Sequence[FileChange]) -> dict[str, tuple[str | None, str | None]]:
    """Per file, in the order first changed: the text before its first change
    and after its last one."""
    net: dict[str, tuple[str | None, str | None]] = {}
    for change in changes:
        before = net[change.path][0] if change.path in net else change.before
        net[change.path] = (before, change.after)
    return net


def _modes(changes: Sequence[FileChange]) -> dict[str, int]:
    """Per file, its permission bits before its first change, when known."""
    modes: dict[str, int] = {}
    seen: set[str] = set()
    for change in changes:
        if change.path not in seen and change.mode is not None:
            modes[change.path] = change.mode
        seen.add(change.path)
    return modes


def _current(target: Path) -> object:
    """The text of ``target`` now; ``None`` when it does not exist."""
    if not target.exists() and not target.is_symlink():
        return None
    if not target.is_file():
        return _UNREADABLE  # a folder, a pipe, a dangling link
    try:
        return target.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return _UNREADABLE
