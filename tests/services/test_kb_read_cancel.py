"""A knowledge-base cancel reaches the file being read: the reader stops at
its next page instead of reading to the end in its worker thread — the add
ends at once and lets go of the base, and no thread goes on reading a file
nobody will index."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from mira_desktop.bootstrap import Services
from tests.services.kb_support import CountingReader, kb_service
from tests.support.pdf_pages import pdf_with_pages, text_operators
from tests.support.qt_async import until


def slow_pdf(path: Path) -> Path:
    """20 pages each drawing 1 MB of operators: about 0.1 s (or more) a page."""
    path.write_bytes(pdf_with_pages([None] * 20, text_operators(1)))
    return path


async def test_a_cancel_stops_the_pdf_being_read_and_frees_the_base(
    services: Services, tmp_path: Path
) -> None:
    slow_pdf(tmp_path / "a.pdf")
    (tmp_path / "b.txt").write_text("The ferry leaves at nine.\n")
    cancel = threading.Event()
    reader = CountingReader()
    reader.hook = lambda path: cancel.set() if path.name == "a.pdf" else None
    service = kb_service(services, reader)
    kb = await service.create("Ferries")
    report = await service.add(kb.id, [tmp_path / "a.pdf", tmp_path / "b.txt"], cancel=cancel)
    assert report.cancelled and report.added == 0 and not report.failed
    assert reader.names() == ["a.pdf"] and reader.finished == []  # stopped, unfinished
    assert await service.documents(kb.id) == []
    assert await asyncio.wait_for(service.delete(kb.id), 5) == 0


async def test_a_cancel_stops_the_file_read_ahead_too(services: Services, tmp_path: Path) -> None:
    """The next file is read while one is written; cancelled meanwhile, its
    reading stops too instead of going on alone to its end."""
    (tmp_path / "a.txt").write_text("The ferry leaves at nine.\n")
    slow_pdf(tmp_path / "b.pdf")
    cancel = threading.Event()
    reader = CountingReader()
    reader.hook = lambda path: cancel.set() if path.name == "b.pdf" else None
    service = kb_service(services, reader)
    kb = await service.create("Ferries")
    report = await service.add(kb.id, [tmp_path / "a.txt", tmp_path / "b.pdf"], cancel=cancel)
    assert report.cancelled and report.added == 1
    await until(lambda: "b.pdf" in reader.ended, timeout=1.5)
    assert reader.finished == ["a.txt"]
