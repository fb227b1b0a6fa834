"""Reading and writing the text files the agent changes: UTF-8 only, newlines
kept exactly as they are, and every write atomic (a temporary file in the
same folder, then a rename), so a file is never left half written."""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from ...core.agent import ToolRefused

BINARY_PROBE = 8 * 1024


def looks_binary(data: bytes) -> bool:
    """True when the first 8 KiB hold a NUL byte."""
    return b"\0" in data[:BINARY_PROBE]


#: the largest file the agent writes or edits (its text before and after is
#: kept in the journal, for a rollback)
MAX_CHANGED_BYTES = 5_000_000


def too_big(shown: str, size: int) -> str:
    megabytes = MAX_CHANGED_BYTES // 1_000_000
    return (
        f"{shown} would be {size / 1_000_000:.1f} MB; the agent changes files of up to"
        f" {megabytes} MB."
    )


def read_text(path: Path, shown: str) -> str:
    """The text of the file ``path`` (``shown`` names it in refusals),
    decoded strictly, so a rewrite can never lose bytes."""
    if not path.is_file():
        raise ToolRefused(f"{shown} is not a regular file (a device, pipe or socket).")
    size = path.stat().st_size
    if size > MAX_CHANGED_BYTES:
        raise ToolRefused(too_big(shown, size))
    data = path.read_bytes()
    if looks_binary(data):
        raise ToolRefused(f"{shown} is a binary file; the agent only changes text files.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolRefused(
            f"{shown} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "the agent only changes UTF-8 files.",
        ) from exc


def write_text_atomic(path: Path, text: str, new_mode: int | None = None) -> None:
    """Write ``text`` to ``path`` as UTF-8 without translating newlines,
    through a temporary file renamed over it; an existing file keeps its
    permissions, a new one gets ``new_mode`` or the usual ones (umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None if new_mode is None else new_mode & 0o7777
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.mira-tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
