"""The agent's search tools (PRODUCT.md §11): ``find`` (files by glob) and
``grep`` (lines by regular expression).

Both walk the folder without following links to folders and skip ``.git``,
``node_modules``, ``__pycache__`` and ``.venv``; ``grep`` also skips binary
files, files over 2 MB and linked files whose target is outside the
workspace. Results are capped so a huge tree cannot flood the model."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from ...core.agent import ToolOutcome, ToolRefused
from .file_tools import existing
from .scope import WorkspaceScope
from .text_io import looks_binary

SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv"})
MAX_FIND = 500
MAX_MATCHES = 300
MAX_GREP_BYTES = 2 * 1024 * 1024
MAX_MATCH_CHARS = 300
MAX_WALK = 200_000


def find(scope: WorkspaceScope, pattern: str, path: str = ".") -> ToolOutcome:
    """Files and folders under ``path`` matching the glob ``pattern``
    (pathlib style: ``*.py`` in the folder itself, ``**/*.py`` at any depth)."""
    base, shown = _folder(scope, path)
    regex = glob_regex(pattern)
    hits: list[str] = []
    walked = 0
    for walked, (relative, full, is_dir) in enumerate(_walk(base), start=1):
        if walked > MAX_WALK:
            break
        if regex.match(relative):
            hits.append(scope.relative(full) + ("/" if is_dir else ""))
    if not hits:
        return ToolOutcome(True, f"No files match {pattern} in {_where(shown)}.")
    hits.sort()
    lines = hits[:MAX_FIND]
    if len(hits) > MAX_FIND:
        lines.append(
            f"… {len(hits) - MAX_FIND} more matches not shown; narrow the pattern or path."
        )
    if walked > MAX_WALK:
        lines.append(f"(The search stopped after {MAX_WALK:,} entries.)")
    return ToolOutcome(True, "\n".join(lines))


def grep(
    scope: WorkspaceScope,
    pattern: str,
    path: str = ".",
    glob: str | None = None,
    ignore_case: bool = False,
) -> ToolOutcome:
    """Lines matching the regular expression ``pattern`` as ``path:line: text``."""
    regex = compile_pattern(pattern, ignore_case)
    target, shown = existing(scope, path)
    only = glob_regex(glob) if glob else None
    files: Iterator[tuple[str, Path]]
    if target.is_dir():
        files = ((rel, full) for rel, full, is_dir in _walk(target) if not is_dir)
    else:
        files = iter([(target.name, target)])
    matches: list[str] = []
    big = 0
    for walked, (relative, full) in enumerate(files, start=1):
        if walked > MAX_WALK or len(matches) > MAX_MATCHES:
            break
        if only and not only.match(relative if "/" in str(glob) else full.name):
            continue
        data = _text_bytes(scope, full)
        if data is None:
            big += _size(full) > MAX_GREP_BYTES
            continue
        name = scope.relative(full)
        for number, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
            line = line.removesuffix("\r")
            if regex.search(line):
                matches.append(f"{name}:{number}: {_cut(line)}")
                if len(matches) > MAX_MATCHES:
                    break
    if not matches:
        return ToolOutcome(True, f"No matches for {pattern!r} in {_where(shown)}." + _skipped(big))
    lines = matches[:MAX_MATCHES]
    if len(matches) > MAX_MATCHES:
        lines.append(f"… stopped after {MAX_MATCHES} matches; narrow the pattern, path or glob.")
    return ToolOutcome(True, "\n".join(lines) + _skipped(big))


def compile_pattern(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """``pattern`` compiled; an invalid one is refused with the ``re`` error."""
    try:
        return re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise ToolRefused(f"Invalid regular expression {pattern!r}: {exc}.") from exc


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regular expression for a relative POSIX path matching ``pattern``:
    ``*`` and ``?`` stay inside one folder name, ``**`` spans any number of
    folders, ``[abc]`` is a character class (``[!a]`` its complement, a
    ``]`` first in it is literal, as in ``fnmatch``). A pattern that is no
    glob (``[z-a]``) is refused (:class:`ToolRefused`), never an error."""
    parts = [part for part in pattern.strip().split("/") if part not in ("", ".")]
    if not parts or pattern.strip().startswith("/") or ".." in parts:
        raise ToolRefused(
            f"The pattern {pattern!r} must be a relative glob such as **/*.py, without '..'."
        )
    regex = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            regex += ".*" if last else "(?:[^/]+/)*"
        else:
            regex += _component(part) + ("" if last else "/")
    try:
        return re.compile(regex + r"\Z", re.IGNORECASE if os.name == "nt" else 0)
    except re.error as exc:
        raise ToolRefused(
            f"The pattern {pattern!r} is not a valid glob ({exc}); check its [ ] classes."
        ) from exc


def _component(part: str) -> str:
    out, i = [], 0
    while i < len(part):
        c = part[i]
        end = _class_end(part, i) if c == "[" else -1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif end > 0:
            body = part[i + 1 : end]
            negated = body.startswith("!")
            body = body[1:] if negated else body
            escaped = "".join(ch if ch == "-" else re.escape(ch) for ch in body)
            out.append(("[^/" if negated else "[") + escaped + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _class_end(part: str, start: int) -> int:
    """The index of the ``]`` closing the class at ``start`` (-1: none)."""
    j = start + 1
    if part[j : j + 1] == "!":
        j += 1
    if part[j : j + 1] == "]":
        j += 1
    return part.find("]", j)


def _folder(scope: WorkspaceScope, path: str) -> tuple[Path, str]:
    base, shown = existing(scope, path)
    if not base.is_dir():
        raise ToolRefused(f"{shown} is a file, not a folder.")
    return base, shown


def _walk(base: Path) -> Iterator[tuple[str, Path, bool]]:
    """``(path relative to base, full path, is a folder)`` for everything
    under ``base``, sorted folder by folder, minus the skipped folders."""
    for folder, dirs, files in os.walk(base, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        prefix = PurePosixPath(*here.relative_to(base).parts)
        for name in dirs:
            yield (prefix / name).as_posix(), here / name, True
        for name in sorted(files):
            yield (prefix / name).as_posix(), here / name, False


def _text_bytes(scope: WorkspaceScope, path: Path) -> bytes | None:
    """The bytes of a text file worth searching, else ``None``."""
    try:
        if path.is_symlink():
            scope.resolve(str(path))  # refuses a link leading outside
        if not path.is_file() or _size(path) > MAX_GREP_BYTES:
            return None
        data = path.read_bytes()
    except (OSError, ToolRefused):
        return None
    return None if looks_binary(data) else data


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _cut(line: str) -> str:
    return line if len(line) <= MAX_MATCH_CHARS else line[:MAX_MATCH_CHARS] + " …"


def _where(shown: str) -> str:
    return "the workspace folder" if shown == "." else shown


def _skipped(big: int) -> str:
    if not big:
        return ""
    return f"\n({big} file{'s' if big > 1 else ''} over 2 MB not searched.)"
