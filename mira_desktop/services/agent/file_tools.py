"""The agent's file tools (PRODUCT.md §11): ``read``, ``ls``, ``write`` and
``edit``; :func:`plan_write` and :func:`plan_edit` check a change and work it
out without writing (``previews.py`` shows them for approval).

Each tool is a blocking function taking the :class:`WorkspaceScope` and the
call's arguments; it returns a :class:`ToolOutcome` or raises
:class:`ToolRefused` with a message for the model. ``write`` and ``edit``
only touch UTF-8 text, keep its newlines as they are, write atomically and
report the change (before and after) so it can be rolled back."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ...core.agent import FileChange, ToolOutcome, ToolRefused
from .scope import WorkspaceScope
from .text_io import (
    BINARY_PROBE,
    MAX_CHANGED_BYTES,
    looks_binary,
    read_text,
    too_big,
    write_text_atomic,
)

MAX_READ_CHARS = 100_000
MAX_LINE_CHARS = 2_000
MAX_LS_ENTRIES = 1_000
_CHUNK = 1 << 16
#: bytes of one line kept while reading (a character takes at most 4)
_LINE_BYTES = MAX_LINE_CHARS * 4 + 4
_CONTINUATION = bytes(range(0x80, 0xC0))


def read(scope: WorkspaceScope, path: str, offset: int = 1, limit: int = 2000) -> ToolOutcome:
    """Lines ``offset`` to ``offset + limit - 1`` of a text file, numbered."""
    target, shown = existing(scope, path)
    if target.is_dir():
        raise ToolRefused(f"{shown} is a folder; use ls to list it.")
    if not target.is_file():
        raise ToolRefused(f"{shown} is not a regular file (a device, pipe or socket).")
    if offset < 1 or limit < 1:
        raise ToolRefused("offset and limit must be 1 or more.")
    lines: list[tuple[int, str]] = []
    size, total, cut_at = 0, 0, 0
    with target.open("rb") as handle:
        if looks_binary(handle.read(BINARY_PROBE)):
            raise ToolRefused(f"{shown} is a binary file; read only shows text files.")
        handle.seek(0)
        for total, (raw, dropped) in enumerate(_bounded_lines(handle), start=1):
            if total < offset or cut_at:
                continue
            line = raw.decode("utf-8", "replace").removesuffix("\r")
            if len(line) > MAX_LINE_CHARS:
                extra = len(line) - MAX_LINE_CHARS + dropped
                line = f"{line[:MAX_LINE_CHARS]} … [{extra:,} more characters on this line]"
            if len(lines) >= limit or size + len(line) > MAX_READ_CHARS:
                cut_at = total
                continue
            lines.append((total, line))
            size += len(line) + 8
    if total == 0:
        return ToolOutcome(True, f"{shown} is empty.")
    if not lines:
        raise ToolRefused(f"{shown} has {total} lines; offset {offset} is past the end.")
    width = max(4, len(str(lines[-1][0])))
    text = "\n".join(f"{number:>{width}}\t{line}" for number, line in lines)
    if cut_at:
        more = total - cut_at + 1
        text += f"\n… {more} more lines; read again with offset={cut_at} to continue."
    return ToolOutcome(True, text)


def _bounded_lines(handle: BinaryIO) -> Iterator[tuple[bytes, int]]:
    """Each line of a file without its newline, read in chunks: at most
    ``_LINE_BYTES`` of it (enough for ``MAX_LINE_CHARS`` characters and
    more), and how many characters were left out — a file of gigabytes
    with no newline is never held whole."""
    kept, dropped = bytearray(), 0
    while chunk := handle.read(_CHUNK):
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start : end if end >= 0 else len(chunk)]
            room = max(0, _LINE_BYTES - len(kept))
            kept += piece[:room]
            dropped += _characters(piece[room:])
            if end < 0:
                break
            yield bytes(kept), dropped
            kept, dropped, start = bytearray(), 0, end + 1
    if kept or dropped:
        yield bytes(kept), dropped


def _characters(data: bytes) -> int:
    """The UTF-8 characters in ``data`` (its bytes that start one)."""
    return len(data.translate(None, _CONTINUATION)) if data else 0


def ls(scope: WorkspaceScope, path: str = ".") -> ToolOutcome:
    """The entries of a folder: folders first (with a trailing ``/``), then
    files with their size; hidden ones included."""
    target, shown = existing(scope, path)
    if not target.is_dir():
        raise ToolRefused(f"{shown} is a file, not a folder; use read to see it.")
    with os.scandir(target) as scan:
        entries = sorted(scan, key=lambda e: (not _is_dir(e), e.name.casefold(), e.name))
    if not entries:
        return ToolOutcome(True, f"{shown} is empty.")
    lines = [_entry_line(entry) for entry in entries[:MAX_LS_ENTRIES]]
    if len(entries) > MAX_LS_ENTRIES:
        lines.append(f"… {len(entries) - MAX_LS_ENTRIES} more entries not shown.")
    return ToolOutcome(True, "\n".join(lines))


@dataclass(frozen=True, slots=True)
class Plan:
    """What a ``write`` or ``edit`` would do: the file, its text before
    (``None``: it does not exist) and after, and how many replacements."""

    target: Path
    path: str
    before: str | None
    after: str
    replacements: int = 0


def plan_write(scope: WorkspaceScope, path: str, content: str) -> Plan:
    """Check a ``write`` and work out its result without writing."""
    target = scope.resolve(path)
    shown = scope.relative(target)
    if target.is_dir():
        raise ToolRefused(f"{shown} is a folder; write needs a file path.")
    scope.check_writable(target)
    for parent in target.parents:
        if parent == scope.root:
            break
        if parent.exists() and not parent.is_dir():
            raise ToolRefused(f"{scope.relative(parent)} is a file, so {shown} cannot be made.")
    size = len(content.encode("utf-8"))
    if size > MAX_CHANGED_BYTES:
        raise ToolRefused(too_big(shown, size))
    before = read_text(target, shown) if target.exists() else None
    return Plan(target, shown, before, content)


def plan_edit(
    scope: WorkspaceScope, path: str, old_string: str, new_string: str, replace_all: bool = False
) -> Plan:
    """Check an ``edit`` and work out its result without writing."""
    target = scope.resolve(path)
    shown = scope.relative(target)
    if target.is_dir():
        raise ToolRefused(f"{shown} is a folder; edit needs a file.")
    if not target.exists():
        raise ToolRefused(f"{shown} does not exist; use write to create it.")
    scope.check_writable(target)
    text = read_text(target, shown)
    if not old_string:
        raise ToolRefused("old_string is empty; to create or replace a whole file use write.")
    if old_string == new_string:
        raise ToolRefused("old_string and new_string are the same; there is nothing to change.")
    count = text.count(old_string)
    if not count and "\r\n" in text and "\n" in old_string and "\r" not in old_string:
        old_string = old_string.replace("\n", "\r\n")  # the model wrote LF for a CRLF file
        new_string = re.sub(r"(?<!\r)\n", "\r\n", new_string)
        count = text.count(old_string)
    if not count:
        raise ToolRefused(
            f"old_string was not found in {shown}; read the file again and copy the "
            "exact text, including spaces and indentation."
        )
    if count > 1 and not replace_all:
        raise ToolRefused(
            f"old_string occurs {count} times in {shown}; add surrounding lines to make "
            "it unique, or set replace_all to true to replace every occurrence."
        )
    after = text.replace(old_string, new_string, -1 if replace_all else 1)
    if len(after) > MAX_CHANGED_BYTES // 4 and len(after.encode("utf-8")) > MAX_CHANGED_BYTES:
        raise ToolRefused(too_big(shown, len(after.encode("utf-8"))))
    return Plan(target, shown, text, after, count if replace_all else 1)


def write(scope: WorkspaceScope, path: str, content: str) -> ToolOutcome:
    """Create or overwrite a text file with ``content``."""
    plan = plan_write(scope, path, content)
    if plan.before == content:
        return ToolOutcome(True, f"{plan.path} already has this content; nothing was written.")
    write_text_atomic(plan.target, content)
    verb = "Created" if plan.before is None else "Wrote"
    return ToolOutcome(True, f"{verb} {plan.path} ({count_lines(content)}).", (_change(plan),))


def edit(
    scope: WorkspaceScope, path: str, old_string: str, new_string: str, replace_all: bool = False
) -> ToolOutcome:
    """Replace ``old_string`` (which must be unique unless ``replace_all``)."""
    plan = plan_edit(scope, path, old_string, new_string, replace_all)
    write_text_atomic(plan.target, plan.after)
    return ToolOutcome(
        True, f"Edited {plan.path}: {replacements(plan.replacements)}.", (_change(plan),)
    )


def existing(scope: WorkspaceScope, path: str) -> tuple[Path, str]:
    """The resolved ``path`` and its relative name; refused when missing."""
    target = scope.resolve(path)
    shown = scope.relative(target)
    if not target.exists():
        raise ToolRefused(f"{shown} does not exist in the workspace folder.")
    return target, shown


def split_lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` only (``\\r`` and other breaks stay inside)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


def count_lines(text: str) -> str:
    """The number of lines in words: "1 line", "12 lines"."""
    count = len(split_lines(text))
    return "1 line" if count == 1 else f"{count} lines"


def replacements(count: int) -> str:
    """In words: "1 replacement", "3 replacements"."""
    return "1 replacement" if count == 1 else f"{count} replacements"


def _change(plan: Plan) -> FileChange:
    return FileChange(plan.path, plan.before, plan.after)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _entry_line(entry: os.DirEntry[str]) -> str:
    link = f" -> {os.readlink(entry.path)}" if entry.is_symlink() else ""
    try:
        if entry.is_dir():
            return f"{entry.name}/{link}"
        size = entry.stat().st_size
    except OSError:
        return f"{entry.name}{link} (broken link)"
    return f"{entry.name}  {_size(size)}{link}"


def _size(size: int) -> str:
    if size < 1024:
        return "1 byte" if size == 1 else f"{size} bytes"
    value, unit = size / 1024, "KB"
    for bigger in ("MB", "GB", "TB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.1f} {unit}"
