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
caches) are not read wherever they are, nor build output (``build``,
``dist``, ``target``, ``.cache``) at the top of the folder — a ``src/build/``
is read like any other. A command's changes in a folder not read are not
rolled back, except in the files it names (``sed -i build/config.py`` reads
``build/config.py`` before and after); a skipped folder it names as a whole
(``rm -rf build``) is said, not hidden. Links are not followed. Blocking:
call from a worker thread."""

from __future__ import annotations

import glob
import os
import posixpath
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from ...core.agent import FileChange

MAX_FILE_BYTES = 1_000_000
MAX_TOTAL_BYTES = 32_000_000
MAX_FILES = 5_000
#: most text (before and after, characters) one command's changes keep in the
#: journal; past it they are said, not kept (a formatter run over a whole tree)
MAX_KEPT_CHARS = 16_000_000
#: folders whose content is tools', packages' or caches', never read
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
    }
)
#: build output, not read when it is at the top of the folder
TOP_SKIPPED_DIRS = frozenset({".cache", "dist", "build", "target"})
#: version control databases: a rollback never writes there, even when named
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
#: most paths a command's words can name for reading in skipped folders
MAX_NAMED = 200


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
    #: skipped folders the command named as a whole (not read: ``build/``)
    unread: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class FolderChanges:
    """The changes a rollback can undo, the files changed it cannot put back,
    and whether part of the folder went unread."""

    changes: tuple[FileChange, ...]
    unrecoverable: tuple[str, ...]
    complete: bool
    #: the changed text was too much to keep (``MAX_KEPT_CHARS``)
    too_much: bool = False
    #: skipped folders the command named, whose changes were not read
    unread: tuple[str, ...] = ()

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
        if self.unread:
            lines.append(
                "Not read before the command (tool, package or build folders), so a rollback "
                f"cannot put back what it changed in: {_listed(list(self.unread))}."
            )
        return "\n".join(lines)


def _listed(paths: list[str], most: int = 20) -> str:
    shown = ", ".join(paths[:most])
    return f"{shown} and {len(paths) - most} more" if len(paths) > most else shown


def take(root: Path, *, max_files: int = MAX_FILES, named: Iterable[str] = ()) -> FolderSnapshot:
    """The folder's text files and the marks of the rest (see the module);
    ``named``: the words of the command, whose paths inside skipped folders
    are read too (files) or noted as unread (folders)."""
    snapshot = FolderSnapshot()
    reader = _Reader(root, snapshot)
    count = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        base = Path(folder)
        skipped = SKIPPED_DIRS | TOP_SKIPPED_DIRS if base == root else SKIPPED_DIRS
        dirs[:] = sorted(d for d in dirs if d not in skipped and not _linked(base / d))
        for name in sorted(files):
            count += 1
            if count > max_files:
                snapshot.complete = False
                return snapshot
            reader.add(base / name)
    files, folders = skipped_paths(root, named)
    snapshot.unread.update(folders)
    for rel in files:
        reader.add(root / rel)
    return snapshot


class _Reader:
    """Reads files into a snapshot within the byte budget."""

    def __init__(self, root: Path, snapshot: FolderSnapshot) -> None:
        self.root = root
        self.snapshot = snapshot
        self.budget = MAX_TOTAL_BYTES

    def add(self, path: Path) -> None:
        try:
            info = path.lstat()
        except OSError:
            return
        if not stat.S_ISREG(info.st_mode):  # links, pipes: not followed
            return
        rel = path.relative_to(self.root).as_posix()
        text = _text(path) if info.st_size <= min(MAX_FILE_BYTES, self.budget) else None
        if text is not None:
            self.snapshot.texts[rel] = text
            self.snapshot.modes[rel] = stat.S_IMODE(info.st_mode)
            self.budget -= info.st_size
        else:  # a change is seen (size, time), not undone
            self.snapshot.others[rel] = (info.st_size, info.st_mtime_ns)


def skipped_paths(root: Path, words: Iterable[str]) -> tuple[list[str], list[str]]:
    """The paths ``words`` name inside folders :func:`take` skips, relative
    to ``root``: ``(files, folders)``. Files (or paths not there yet) are
    read; a folder named as a whole, or anything in a version control
    folder, is only noted."""
    files: set[str] = set()
    folders: set[str] = set()
    for word in words:
        for rel in _named(root, word):
            parts = rel.split("/")
            at = next(
                (
                    i
                    for i, part in enumerate(parts)
                    if part in SKIPPED_DIRS or (i == 0 and part in TOP_SKIPPED_DIRS)
                ),
                None,
            )
            if at is None:
                continue
            full = root / rel
            if parts[at] in _VCS_DIRS:
                folders.add("/".join(parts[: at + 1]) + "/")
            elif full.is_dir() and not full.is_symlink():
                folders.add(rel + "/")
            else:
                files.add(rel)
            if len(files) + len(folders) >= MAX_NAMED:
                return sorted(files), sorted(folders)
    return sorted(files), sorted(folders)


def _named(root: Path, word: str) -> list[str]:
    """The relative paths inside ``root`` a word can name (globs expanded)."""
    globbed = any(c in word for c in "*?[")
    found = list(islice(glob.iglob(word, root_dir=root), MAX_NAMED)) if globbed else [word]
    named = []
    for path in found:
        if os.path.isabs(path):
            try:
                path = os.path.relpath(path, root)
            except ValueError:  # another drive
                continue
        rel = posixpath.normpath(path.replace(os.sep, "/"))
        if rel not in (".", "") and not rel.startswith("../") and rel != "..":
            named.append(rel)
    return named


def compare(before: FolderSnapshot, after: FolderSnapshot) -> FolderChanges:
    """What changed from ``before`` to ``after``, in path order. When either
    reading stopped at ``MAX_FILES``, nothing is recorded: the two stopped
    at different files (one removed before the limit moves it by one), and
    a file merely seen once would be taken for created or removed — a
    rollback would then delete a file the command never touched."""
    unread = tuple(sorted(before.unread | after.unread))
    if not (before.complete and after.complete):
        return FolderChanges((), (), False, unread=unread)
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
        lost_all = tuple(sorted([*lost, *(c.path for c in changes)]))
        return FolderChanges((), lost_all, True, True, unread)
    return FolderChanges(tuple(changes), tuple(lost), True, unread=unread)


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
