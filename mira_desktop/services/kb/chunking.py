"""Structure-aware chunking of a read :class:`Document` into passages.

Each reader section (a PDF page, a slide or its notes, a sheet, a heading's
text, a run of lines) is cut on its own, so every passage keeps the location a
citation needs. A long section becomes overlapping windows measured in
characters — the same budget for English and Chinese (about 1,200 characters
with 200 of overlap; roughly 300 English or 800 Chinese tokens). A window ends
at the best boundary in its last half: a blank line, a line end, a sentence end
(``. ! ? ;`` and Chinese ``。！？；``), else a space — never inside a word when
avoidable; CJK text without spaces is cut at sentence punctuation, else
anywhere. The next window starts ``overlap`` characters back, moved forward to
a line, sentence or word start. Line-located sections get each window's own line.

The dedupe key of a passage is the SHA-256 of its text with whitespace runs
collapsed, so reflowed copies of the same text count as the same passage."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from typing import Any

from ..readers import Document

log = logging.getLogger(__name__)

CHUNK_SIZE = 1_200
CHUNK_OVERLAP = 200
_SENTENCE_END = re.compile(r"[.!?;:](?=\s)|[。！？；]")
_SPACE = re.compile(r"\s")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Chunk:
    ordinal: int
    text: str
    location: dict[str, Any]
    sha256: str


def text_hash(text: str) -> str:
    """The dedupe key: SHA-256 of the text with whitespace runs collapsed."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def chunk_document(
    document: Document, *, size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP
) -> list[Chunk]:
    """The passages of a document, numbered in reading order."""
    sections = document.sections or ()
    pieces: list[tuple[str, dict[str, Any]]] = []
    if not sections and document.text.strip():
        pieces = [(text, {}) for text, _ in _windows(document.text, size, overlap)]
    for section in sections:
        for text, start in _windows(section.text, size, overlap):
            pieces.append((text, _located(section.location, section.text, start)))
    return [
        Chunk(ordinal=n, text=text, location=location, sha256=text_hash(text))
        for n, (text, location) in enumerate(pieces)
    ]


def _located(location: dict[str, Any], text: str, start: int) -> dict[str, Any]:
    """The section's location; a window of a line-located section gets its own line."""
    located = dict(location)
    if start and isinstance(located.get("line"), int):
        located["line"] += text.count("\n", 0, start)
    return located


def split_text(text: str, size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP) -> list[str]:
    """The windows of ``text`` (stripped, non-empty)."""
    return [window for window, _ in _windows(text, size, overlap)]


def _windows(text: str, size: int, overlap: int) -> list[tuple[str, int]]:
    """``(window text, start offset)`` pairs covering ``text``."""
    size = max(size, 50)
    overlap = max(0, min(overlap, size // 2))
    windows: list[tuple[str, int]] = []
    start, length = 0, len(text)
    while start < length:
        end = length if length - start <= size else _cut(text, start, start + size)
        raw = text[start:end]
        window = raw.strip()
        if window:
            windows.append((window, start + len(raw) - len(raw.lstrip())))
        if end >= length:
            break
        start = _next_start(text, max(end - overlap, start + 1), end)
    return windows


def _cut(text: str, start: int, end: int) -> int:
    """The best end of a window ``[start, end)``: the last boundary in its
    second half, by preference blank line, line end, sentence end, space."""
    low = start + (end - start) // 2
    region = text[low:end]
    for marker in ("\n\n", "\n"):
        found = region.rfind(marker)
        if found >= 0:
            return low + found + len(marker)
    ends = [m.end() for m in _SENTENCE_END.finditer(region)]
    if ends:
        return low + ends[-1]
    space = max(region.rfind(" "), region.rfind("\t"))
    if space >= 0:
        return low + space + 1
    return end  # one long word or CJK text without punctuation


def _next_start(text: str, start: int, end: int) -> int:
    """Move an overlap start forward to a line start, else a sentence start,
    else a word start, without passing ``end``."""
    region = text[start:end]
    # only in the first half of the overlap, so it keeps some context
    line = region.find("\n", 0, len(region) // 2)
    if line >= 0:
        return start + line + 1
    sentence = _SENTENCE_END.search(region, 0, len(region) // 2)
    if sentence is not None:
        return start + sentence.end()
    if start > 0 and not _SPACE.match(text[start - 1]) and not _CJK.match(text[start]):
        space = _SPACE.search(region)
        if space is not None:
            return start + space.end()
    return start
