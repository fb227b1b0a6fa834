"""File names and safe file writing for exports: a portable name per thread,
the ``chat-message-assistant-{timestamp}.md`` name of a saved message, and
writing a new file without ever replacing an existing one (``-2``, ``-3``…,
claimed with an exclusive create so two saves at once cannot collide).

Portable: no character Windows refuses, no Windows device name (``CON``,
``nul.txt``: the part before the first dot counts), and at most
``NAME_BYTES`` bytes of UTF-8 (file systems allow 255; 80 Chinese
characters are 240)."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ...core.ids import parse_time

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]+')
_RESERVED = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d|conin\$|conout\$)$", re.IGNORECASE)
_MAX_TRIES = 10_000
#: the most bytes of a file name written (255 on common file systems, less
#: room for a ``-2``, ``-3``… counter)
NAME_BYTES = 248


def _cut(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` bytes of UTF-8, on a character."""
    return text.encode("utf-8")[:max_bytes].decode("utf-8", "ignore")


def slug(title: str, limit: int = 60, max_bytes: int = NAME_BYTES) -> str:
    """A file-name-safe form of a title (Chinese and other scripts kept), at
    most ``limit`` characters and ``max_bytes`` bytes."""
    text = _UNSAFE.sub("-", " ".join(title.split()))
    text = re.sub(r"-{2,}", "-", text).strip(" .-")[:limit].strip(" .-")
    if not text or _RESERVED.match(text.split(".", 1)[0].rstrip()):
        text = f"thread-{text}" if text else "thread"
    return _cut(text, max_bytes).rstrip(" .-")


def thread_filename(title: str, thread_id: str, ext: str) -> str:
    """``{title}-{last 8 of id}.{ext}`` (the random end of a UUIDv7 — its
    start is a timestamp shared by threads made together)."""
    tail = re.sub(r"[^0-9A-Za-z]", "", thread_id)[-8:] or "thread"
    end = f"-{tail}.{ext}"
    return f"{slug(title, max_bytes=NAME_BYTES - len(end.encode()))}{end}"


def attachment_entry(sha256: str, name: str) -> str:
    """Where an attachment's file goes in an export's ZIP:
    ``attachments/{first 12 of its hash}-{name}`` (one entry per content)."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    safe_ext = re.sub(r"[^0-9A-Za-z]", "", ext)[:10]
    end = "." + safe_ext if safe_ext else ""
    room = NAME_BYTES - len(f"{sha256[:12]}-{end}")
    base = slug(stem, limit=80, max_bytes=room) if stem else "file"
    return f"attachments/{sha256[:12]}-{base}{end}"


def local_stamp(created_at: str, *, tz: object | None = None) -> str:
    """``20261130-071230``: a stored UTC time in local time (what the user saw)."""
    moment: datetime = parse_time(created_at).astimezone(tz)  # type: ignore[arg-type]
    return moment.strftime("%Y%m%d-%H%M%S")


def message_filename(role: str, created_at: str) -> str:
    return f"chat-message-{role}-{local_stamp(created_at)}.md"


def candidates(name: str) -> Iterator[str]:
    """``name``, then ``stem-2.ext``, ``stem-3.ext``…"""
    path = Path(name)
    yield name
    for number in range(2, _MAX_TRIES):
        yield f"{path.stem}-{number}{path.suffix}"


def write_new_file(directory: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``directory/name`` — or ``name-2``, ``-3``… when taken.
    Never replaces a file, and never leaves half of one (a full disk): the
    text is written aside, then linked under the free name."""
    part = directory / f".{name}.{os.getpid()}.part"
    try:
        part.write_text(text, encoding="utf-8", newline="\n")
        for candidate in candidates(name):
            target = directory / candidate
            try:
                os.link(part, target)  # fails, atomically, when the name is taken
            except FileExistsError:
                continue
            except OSError:  # a file system without hard links (FAT)
                if _claim_by_writing(target, text):
                    return target
                continue
            return target
    finally:
        part.unlink(missing_ok=True)
    raise FileExistsError(f"no free file name for {name} in {directory}")


def _claim_by_writing(target: Path, text: str) -> bool:
    try:
        with target.open("x", encoding="utf-8", newline="\n") as handle:
            try:
                handle.write(text)
            except OSError:
                handle.close()
                target.unlink(missing_ok=True)
                raise
    except FileExistsError:
        return False
    return True


def free_path(directory: Path, name: str) -> Path:
    """The first of :func:`candidates` that does not exist yet (not claimed)."""
    for candidate in candidates(name):
        target = directory / candidate
        if not target.exists():
            return target
    raise FileExistsError(f"no free file name for {name} in {directory}")
