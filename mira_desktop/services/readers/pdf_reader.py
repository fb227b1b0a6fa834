"""PDF through pypdf: text per page, located by page number. A PDF that needs a
password is refused; pages without a text layer (scans) give a warning, and a
PDF with no text at all is refused as scanned.

The work is bounded: at most :data:`~.limits.MAX_PAGES` pages and
:data:`~.limits.MAX_TEXT_CHARS` characters, for at most
:data:`~.limits.READ_SECONDS` (the budget and the cancel check are looked at
between pages; the warnings say which pages were read). A page whose content
unpacks to more than :data:`MAX_PAGE_CONTENT` bytes is not read at all —
a few kilobytes of compressed drawing operators can hold tens of megabytes,
which pypdf's text extraction parses for seconds a page (several pages may
share one such stream) — and is named in a warning. Its size is measured by
inflating no more than that bound."""

from __future__ import annotations

import io
import logging
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .document import (
    MB,
    DocumentRefusedError,
    Extracted,
    Section,
    empty,
    encrypted,
    human_size,
    refused,
    short_reason,
    too_slow,
    unreadable,
)
from .limits import CUT_MARK, ReadBudget

if TYPE_CHECKING:
    from pypdf import PageObject, PdfReader

log = logging.getLogger(__name__)

#: what one page's content streams may unpack to, to be read
MAX_PAGE_CONTENT = 4 * MB
_PASSWORD_HINT = "Open it, remove the password (or print it to a new PDF), and attach that copy."


@dataclass
class _Pages:
    """What reading the pages found: the sections, and the numbers of pages
    without text, failed, too heavy to read; ``read``: how many were looked at."""

    total: int
    sections: list[Section] = field(default_factory=list)
    blank: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    heavy: list[int] = field(default_factory=list)
    read: int = 0


def read_pdf(data: bytes, name: str, budget: ReadBudget) -> Extracted:
    from pypdf import PdfReader

    if b"%PDF-" not in data[:1024]:
        raise unreadable(name, "a PDF", "no PDF header")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        _unlock(reader, name)
        pages = reader.pages
        total = len(pages)
    except DocumentRefusedError:
        raise
    except Exception as exc:  # pypdf raises many types for damaged files
        raise unreadable(name, "a PDF", short_reason(exc)) from exc
    if not total:
        raise empty(name, "the PDF has no pages")
    found = _extract(pages, name, budget, _Pages(total))
    if not found.sections:
        if budget.late:
            raise too_slow(name, budget.limits.seconds)
        if found.heavy and not found.failed:
            raise refused(
                '"{name}" cannot be read: its pages are too complex (the content of a page'
                " unpacks to more than {limit}).",
                {"name": name, "limit": human_size(MAX_PAGE_CONTENT)},
                "oversized",
                "Print it to a new PDF (or save its text) and attach that.",
            )
        if found.failed or found.heavy:
            raise unreadable(name, "a PDF", "no page could be read")
        raise empty(
            name,
            "it has no text layer; it looks scanned, and Mira does not read text in images",
            "Attach a version with selectable text (run text recognition / OCR on it first).",
        )
    return Extracted(
        text="\n\n".join(f"[Page {s.location['page']}]\n{s.text}" for s in found.sections),
        sections=tuple(found.sections),
        warnings=tuple(_warnings(found, budget)),
    )


def _extract(pages: Any, name: str, budget: ReadBudget, found: _Pages) -> _Pages:
    """Each page's text, within the budget (one bad page must not lose the others)."""
    for number in range(1, found.total + 1):
        if number > budget.limits.pages or not budget.go_on():
            break
        found.read = number
        try:
            page = pages[number - 1]
            if _content_size(page) > MAX_PAGE_CONTENT:
                found.heavy.append(number)
                continue
            text = page.extract_text() or ""
        except Exception:
            log.debug("page %d of %s failed", number, name, exc_info=True)
            found.failed.append(number)
            continue
        text = "\n".join(line.rstrip() for line in text.splitlines()).strip()
        if not text:
            found.blank.append(number)
            continue
        text = budget.take(text)
        if budget.cut:
            found.sections.append(Section(f"{text}\n{CUT_MARK}".lstrip(), {"page": number}))
            break
        found.sections.append(Section(text, {"page": number}))
    return found


def _content_size(page: PageObject) -> int:
    """What the page's content streams unpack to, counted up to just past
    :data:`MAX_PAGE_CONTENT` (Flate is inflated by us, stopping there; other
    filters are decoded by pypdf, within its own limits)."""
    contents = page.get("/Contents")
    if contents is None:
        return 0
    contents = contents.get_object()
    streams = contents if isinstance(contents, list) else [contents]
    size = 0
    for stream in streams:
        size += _stream_size(stream.get_object(), MAX_PAGE_CONTENT + 1 - size)
        if size > MAX_PAGE_CONTENT:
            break
    return size


def _stream_size(stream: Any, room: int) -> int:
    filters = stream.get("/Filter")
    if filters is not None and not isinstance(filters, list):
        filters = [filters]
    if filters == ["/FlateDecode"]:
        try:
            return len(zlib.decompressobj().decompress(stream._data, room))
        except zlib.error:  # damaged: pypdf has its ways of recovering
            pass
    return len(stream.get_data())


def _unlock(reader: PdfReader, name: str) -> None:
    """Open PDFs protected by an owner password only (they open with an empty
    user password); refuse those that need a password to be read."""
    from pypdf import PasswordType

    if not reader.is_encrypted:
        return
    try:
        opened = reader.decrypt("")
    except Exception as exc:  # e.g. AES without the optional crypto library
        log.debug("cannot decrypt %s", name, exc_info=True)
        raise _password(name) from exc
    if opened == PasswordType.NOT_DECRYPTED:
        raise _password(name)


def _password(name: str) -> DocumentRefusedError:
    return encrypted('This PDF is password-protected: "{name}".', name, _PASSWORD_HINT)


def _warnings(found: _Pages, budget: ReadBudget) -> list[str]:
    notes = []
    if found.blank:
        notes.append(f"{_pages(found.blank)}: no text, looks scanned (text in images is not read).")
    if found.failed:
        notes.append(f"{_pages(found.failed)}: could not be read.")
    if found.heavy:
        notes.append(
            f"{_pages(found.heavy)}: not read, too complex (the content of a page"
            f" unpacks to more than {MAX_PAGE_CONTENT // MB} MB)."
        )
    if found.read < found.total and not budget.cut:
        if budget.late:
            why = f"reading took longer than {budget.limits.seconds:g} seconds"
        else:
            why = f"Mira reads at most {budget.limits.pages:,}"
        first = "the first page" if found.read == 1 else f"the first {found.read:,} pages"
        verb = "was" if found.read == 1 else "were"
        notes.append(
            f"Only {first} of {found.total:,} {verb} read ({why}); the rest were left out."
        )
    if budget.cut:
        notes.append(budget.cut_note())
    return notes


def _pages(numbers: list[int]) -> str:
    return f"Page{'s' if len(numbers) > 1 else ''} {_ranges(numbers)}"


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7]`` → ``1–3, 7``."""
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}–{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)
