"""Finding files in a workspace root for the composer's ``@`` picker, and
resolving a picked relative path safely.

The walk skips hidden folders, VCS and dependency folders (``.git``,
``node_modules``, virtual environments, caches, build output) and binaries
that cannot be attached (audio can: it is attached as what is said in it;
videos stay out, though a dropped one is written down too); it never follows a symbolic link to a folder, and a
linked file counts only when its target is inside the root. Matching is a
case-insensitive substring of the relative path; names that match rank before
folders that match. Without a keyword (a bare ``@``) the most recently
changed files come first. It runs in a worker thread and stops after
``MAX_ENTRIES`` entries so a huge tree cannot stall the picker."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path, PurePosixPath

from ..core.errors import ConfigError, NotFoundError

log = logging.getLogger(__name__)

MAX_ENTRIES = 50_000
SKIPPED_DIRS = frozenset(
    {"node_modules", "bower_components", "__pycache__", "site-packages", "venv"}
)
# fmt: off
BINARY_EXTENSIONS = frozenset({
    "exe", "dll", "so", "dylib", "o", "a", "lib", "obj", "class", "jar", "war", "pyc", "pyo",
    "whl", "egg", "bin", "dat", "iso", "img", "dmg", "zip", "gz", "tgz", "bz2", "xz", "zst",
    "7z", "rar", "tar", "mov", "avi", "mkv", "mp4", "webm",
    "ttf", "otf", "woff", "woff2", "eot", "sqlite", "sqlite3", "db", "pdb", "ico", "icns",
    "psd", "ai", "sketch",
})
# fmt: on
MAX_FILE_BYTES = 64 * 1024 * 1024


async def search_workspace_files(
    root: str | os.PathLike[str], keyword: str, limit: int = 20
) -> list[str]:
    """Relative POSIX paths under ``root`` whose path contains ``keyword``
    (without one: the most recently changed files)."""
    return await asyncio.to_thread(find_files, Path(root), keyword, limit)


def find_files(root: Path, keyword: str, limit: int = 20) -> list[str]:
    """Blocking version of :func:`search_workspace_files`."""
    real_root = _real_root(root)
    needle = keyword.strip().lower()
    if not needle:
        recent = sorted(_walk(real_root), key=lambda found: (-found[1], found[0].lower()))
        return [relative for relative, _ in recent[:limit]]
    hits: list[tuple[tuple[int, int, str], str]] = []
    for relative, _ in _walk(real_root):
        lowered = relative.lower()
        if needle not in lowered:
            continue
        hits.append((_rank(lowered, needle), relative))
    hits.sort()
    return [relative for _, relative in hits[:limit]]


def resolve_workspace_file(root: str | os.PathLike[str], relative: str) -> Path:
    """The file ``relative`` names under ``root``; refuses anything outside it."""
    real_root = _real_root(Path(root))
    target = (real_root / relative).resolve()
    if not target.is_relative_to(real_root):
        raise ConfigError(
            f'"{relative}" is outside the workspace folder.',
            hint="Pick a file inside the workspace's root folder.",
        )
    if not target.is_file():
        raise NotFoundError(f'"{relative}" is not a file in the workspace folder.')
    return target


def _real_root(root: Path) -> Path:
    try:
        real = root.expanduser().resolve(strict=True)
    except OSError as exc:
        raise NotFoundError(
            f"The workspace folder {root} does not exist.",
            hint="Choose the workspace's root folder again in its settings.",
        ) from exc
    if not real.is_dir():
        raise NotFoundError(f"The workspace folder {root} is not a folder.")
    return real


def _walk(root: Path) -> list[tuple[str, float]]:
    """Each attachable file: its relative POSIX path and when it last changed."""
    found: list[tuple[str, float]] = []
    seen = 0
    for folder, dirs, files in os.walk(root, followlinks=False, onerror=_log_walk_error):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not _skip_dir(base, d))
        for name in sorted(files):
            seen += 1
            if seen > MAX_ENTRIES:
                log.info("workspace search stopped after %d entries in %s", MAX_ENTRIES, root)
                return found
            changed = _wanted_file(root, base / name)
            if changed is not None:
                relative = PurePosixPath(*(base / name).relative_to(root).parts).as_posix()
                found.append((relative, changed))
    return found


def _skip_dir(base: Path, name: str) -> bool:
    if name.startswith(".") or name in SKIPPED_DIRS:
        return True
    path = base / name
    if path.is_symlink():
        return True  # os.walk would not enter it anyway; keep it out of results too
    return (path / "pyvenv.cfg").exists()  # a virtual environment under any name


def _wanted_file(root: Path, path: Path) -> float | None:
    """When an attachable file last changed; None for a file not offered."""
    if path.name.startswith("."):
        return None
    if path.suffix.lower().lstrip(".") in BINARY_EXTENSIONS:
        return None
    try:
        if path.is_symlink():
            target = path.resolve(strict=True)
            if not target.is_relative_to(root):
                return None  # a link pointing out of the workspace
        stat = path.stat()
    except (OSError, RuntimeError):  # dangling link, loop, permission
        return None
    return stat.st_mtime if stat.st_size <= MAX_FILE_BYTES else None


def _rank(lowered: str, needle: str) -> tuple[int, int, str]:
    """Name starts with the keyword < name contains it < a folder contains it;
    then shallower, then alphabetical."""
    name = lowered.rsplit("/", 1)[-1]
    if name.startswith(needle):
        tier = 0
    elif needle in name:
        tier = 1
    else:
        tier = 2
    return tier, lowered.count("/"), lowered


def _log_walk_error(error: OSError) -> None:
    log.debug("skipping unreadable folder: %s", error)
