"""What a shell command changed in the project folder, so that its changes can
be rolled back like those of ``write`` and ``edit`` (PRODUCT.md §11).

A shell command cannot say which files it touched. Before a command that may
change files, :func:`take` reads the folder's text files (UTF-8, up to
``MAX_FILE_BYTES`` each, ``MAX_TOTAL_BYTES`` in all), and notes the size and time of every other
file (up to ``MAX_FILES`` files); the same after the command, and
:func:`compare` turns the difference into :class:`~mira_desktop.core.agent.FileChange`
records (created, edited, removed text files) — the journal's and the
rollback's unit. What cannot be put back is said, not hidden: files that are
not text or are too large, and a folder too large to read whole.

Tool and package folders (``.git``, ``node_modules``, virtual environments,
caches, build output) are not read: a command's changes there are not rolled
back. Links are not followed. Blocking: call from a worker thread."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ...core.agent import FileChange

MAX_FILE_BYTES = 1_000_000
MAX_TOTAL_BYTES = 32_000_000
MAX_FILES = 5_000
#: most text (before and after, characters) one command's changes keep in the
#: journal; past it they are said, not kept (a formatter run over a whole tree)
MAX_KEPT_CHARS = 16_000_000
#: folders whose content is tools', packages' or builds', never read
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".cache",
        "dist",
        "build",
        "target",
    }
)


@dataclass
class FolderSnapshot:
    """``texts``: relative path → text of the files read; ``others``: relative
    path → (size, mtime_ns) of files not read (not text, too large, past the
    budget); ``complete``: false when the walk stopped at ``MAX_FILES``."""

    texts: dict[str, str] = field(default_factory=dict)
    others: dict[str, tuple[int, int]] = field(default_factory=dict)
    complete: bool = True
    #: the permission bits of the files read
    modes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FolderChanges:
    """The changes a rollback can undo, the files changed it cannot put back,
    and whether part of the folder went unread."""

    changes: tuple[FileChange, ...]
    unrecoverable: tuple[str, ...]
    complete: bool
    #: the changed text was too much to keep (``MAX_KEPT_CHARS``)
    too_much: bool = False

    def note(self) -> str:
        """What the command's outcome says about them (empty: nothing to say)."""
        lines = []
        if self.changes:
            lines.append(f"Changed: {_listed([c.path for c in self.changes])}.")
        if self.too_much:
            lines.append(
                "Changed, more text than a rollback keeps, so it cannot put them back: "
                f"{_listed(list(self.unrecoverable))}."
            )
        elif self.unrecoverable:
            lines.append(
                "Changed, not text or over 1 MB, so a rollback cannot put them back: "
                f"{_listed(list(self.unrecoverable))}."
            )
        if not self.complete:
            lines.append(
                f"The folder has more than {MAX_FILES:,} files: a rollback cannot put back "
                "what this command changed."
            )
        return "\n".join(lines)


def _listed(paths: list[str], most: int = 20) -> str:
    shown = ", ".join(paths[:most])
    return f"{shown} and {len(paths) - most} more" if len(paths) > most else shown


def take(root: Path, *, max_files: int = MAX_FILES) -> FolderSnapshot:
    """The folder's text files and the marks of the rest (see the module)."""
    snapshot = FolderSnapshot()
    budget = MAX_TOTAL_BYTES
    count = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not _linked(base / d))
        for name in sorted(files):
            count += 1
            if count > max_files:
                snapshot.complete = False
                return snapshot
            path = base / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):  # links, pipes: not followed
                continue
            rel = path.relative_to(root).as_posix()
            text = _text(path) if info.st_size <= min(MAX_FILE_BYTES, budget) else None
            if text is not None:
                snapshot.texts[rel] = text
                snapshot.modes[rel] = stat.S_IMODE(info.st_mode)
                budget -= info.st_size
            else:  # a change is seen (size, time), not undone
                snapshot.others[rel] = (info.st_size, info.st_mtime_ns)
    return snapshot


def compare(before: FolderSnapshot, after: FolderSnapshot) -> FolderChanges:
    """What changed from ``before`` to ``after``, in path order. When either
    reading stopped at ``MAX_FILES``, nothing is recorded: the two stopped
    at different files (one removed before the limit moves it by one), and
    a file merely seen once would be taken for created or removed — a
    rollback would then delete a file the command never touched."""
    if not (before.complete and after.complete):
        return FolderChanges((), (), False)
    changes: list[FileChange] = []
    lost: list[str] = []
    for path in sorted(
        set(before.texts) | set(after.texts) | set(before.others) | set(after.others)
    ):
        old, new = before.texts.get(path), after.texts.get(path)
        if path in before.others or path in after.others:
            if before.others.get(path) != after.others.get(path) or old != new:
                lost.append(path)
            continue
        if old != new:
            changes.append(FileChange(path, old, new, before.modes.get(path)))
    kept = sum(len(c.before or "") + len(c.after or "") for c in changes)
    if kept > MAX_KEPT_CHARS:
        return FolderChanges((), tuple(sorted([*lost, *(c.path for c in changes)])), True, True)
    return FolderChanges(tuple(changes), tuple(lost), True)


def _linked(path: Path) -> bool:
    """A link to a folder, or a Windows junction (which ``os.walk`` follows
    even with ``followlinks=False``): its content may be outside the root."""
    isjunction = getattr(os.path, "isjunction", None)  # Python 3.12+
    return path.is_symlink() or bool(isjunction and isjunction(path))


def _text(path: Path) -> str | None:
    """The file as UTF-8 text; None when it is not text (or unreadable)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
