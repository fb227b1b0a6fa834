"""PDF through pypdf: text per page, located by page number. A PDF that needs a
password is refused; pages without a text layer (scans) give a warning, and a
PDF with no text at all is refused as scanned."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from .document import (
    DocumentRefusedError,
    Extracted,
    Section,
    empty,
    encrypted,
    short_reason,
    unreadable,
)

if TYPE_CHECKING:
    from pypdf import PageObject, PdfReader

log = logging.getLogger(__name__)

_PASSWORD_HINT = "Open it, remove the password (or print it to a new PDF), and attach that copy."


def read_pdf(data: bytes, name: str) -> Extracted:
    from pypdf import PdfReader

    if b"%PDF-" not in data[:1024]:
        raise unreadable(name, "a PDF", "no PDF header")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        _unlock(reader, name)
        pages = list(reader.pages)
    except DocumentRefusedError:
        raise
    except Exception as exc:  # pypdf raises many types for damaged files
        raise unreadable(name, "a PDF", short_reason(exc)) from exc
    if not pages:
        raise empty(name, "the PDF has no pages")
    sections, blank, failed = _extract(pages, name)
    if not sections:
        if failed:
            raise unreadable(name, "a PDF", "no page could be read")
        raise empty(
            name,
            "it has no text layer; it looks scanned, and Mira does not read text in images",
            "Attach a version with selectable text (run text recognition / OCR on it first).",
        )
    return Extracted(
        text="\n\n".join(f"[Page {s.location['page']}]\n{s.text}" for s in sections),
        sections=tuple(sections),
        warnings=tuple(_warnings(blank, failed)),
    )


def _extract(pages: list[PageObject], name: str) -> tuple[list[Section], list[int], list[int]]:
    """Each page's text; also the numbers of pages without text and of pages
    that failed (one bad page must not lose the others)."""
    sections: list[Section] = []
    blank: list[int] = []
    failed: list[int] = []
    for number, page in enumerate(pages, 1):
        try:
            text = page.extract_text() or ""
        except Exception:
            log.debug("page %d of %s failed", number, name, exc_info=True)
            failed.append(number)
            continue
        text = "\n".join(line.rstrip() for line in text.splitlines()).strip()
        if text:
            sections.append(Section(text, {"page": number}))
        else:
            blank.append(number)
    return sections, blank, failed


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


def _warnings(blank: list[int], failed: list[int]) -> list[str]:
    notes = []
    if blank:
        notes.append(f"{_pages(blank)}: no text, looks scanned (text in images is not read).")
    if failed:
        notes.append(f"{_pages(failed)}: could not be read.")
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
