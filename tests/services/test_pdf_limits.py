"""Bounded PDF reading (PRODUCT.md §7: never hang, never exhaust memory): a
page whose content unpacks to tens of megabytes is not parsed, pages and
time are capped with a note saying what was read, and a caller's cancel
check stops any reader between two pages, slides, sheets or paragraphs."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from mira_desktop.services.readers import DocumentRefusedError, read_document
from mira_desktop.services.readers.limits import ReadCancelledError, ReadLimits
from tests.support.documents import make_docx, make_pdf, make_pptx, make_xlsx
from tests.support.pdf_pages import pdf_with_pages, text_operators


def test_pages_sharing_a_huge_content_stream_are_refused_without_parsing_it(
    tmp_path: Path,
) -> None:
    """32 KB of PDF: four pages drawing one stream of 10 MB of operators
    (pypdf parses it for over a second a page). Its size is measured by
    inflating no more than the bound, so the read stays small."""
    import pypdf  # imported before memory is traced: importing is no part of the read

    path = tmp_path / "dense.pdf"
    path.write_bytes(pdf_with_pages([None] * 4, text_operators(10)))
    assert path.stat().st_size < 40_000 and pypdf
    tracemalloc.start()
    try:
        with pytest.raises(DocumentRefusedError) as caught:
            read_document(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caught.value.reason == "oversized"
    assert str(caught.value) == (
        '"dense.pdf" cannot be read: its pages are too complex'
        " (the content of a page unpacks to more than 4 MB)."
    )
    assert peak < 40 * 1024 * 1024


def test_a_heavy_page_is_left_out_and_the_others_read(tmp_path: Path) -> None:
    path = tmp_path / "atlas.pdf"
    path.write_bytes(pdf_with_pages([None, "The legend of the map", None], text_operators(10)))
    doc = read_document(path)
    assert doc.text == "[Page 2]\nThe legend of the map"
    assert doc.warnings == (
        "Pages 1, 3: not read, too complex (the content of a page unpacks to more than 4 MB).",
    )


def test_only_the_pages_within_the_cap_are_read_saying_so(tmp_path: Path) -> None:
    path = tmp_path / "book.pdf"
    path.write_bytes(make_pdf([["Chapter one"], ["Chapter two"], ["Chapter three"]]))
    doc = read_document(path, limits=ReadLimits(pages=2))
    assert [s.location["page"] for s in doc.sections] == [1, 2]
    assert doc.warnings == (
        "Only the first 2 pages of 3 were read (Mira reads at most 2); the rest were left out.",
    )


def test_a_read_out_of_time_keeps_what_it_read_or_says_why_not(tmp_path: Path) -> None:
    """The time is looked at between pages: with none at all, the first page
    is read and the rest left out; a first page without text gives nothing,
    and the file is refused for its slowness, not as a scan."""
    path = tmp_path / "slow.pdf"
    path.write_bytes(make_pdf([["First page"], ["Second page"], ["Third page"]]))
    doc = read_document(path, limits=ReadLimits(seconds=0))
    assert doc.text == "[Page 1]\nFirst page"
    assert doc.warnings == (
        "Only the first page of 3 was read (reading took longer than 0 seconds);"
        " the rest were left out.",
    )
    path.write_bytes(make_pdf([[], ["Second page"]]))
    with pytest.raises(DocumentRefusedError) as caught:
        read_document(path, limits=ReadLimits(seconds=0))
    assert str(caught.value) == (
        '"slow.pdf" takes too long to read: nothing usable came out of it in 0 seconds.'
    )


def test_the_text_kept_from_a_pdf_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "long.pdf"
    path.write_bytes(make_pdf([["A" * 40], ["B" * 40]]))
    doc = read_document(path, limits=ReadLimits(text_chars=50))
    assert [s.text for s in doc.sections] == [
        "A" * 40,
        "B" * 10 + "\n(… the rest of the document is not included)",
    ]
    assert doc.warnings == (
        "Only the first 50 characters were read; the rest of the document was left out.",
    )


class CancelAfter:
    """A cancel check that says "stop" from its ``n``-th call on."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.calls >= self.n


def test_a_cancel_stops_a_pdf_between_two_pages(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf([[f"Page {n}"] for n in range(1, 11)]))
    cancel = CancelAfter(3)
    with pytest.raises(ReadCancelledError):
        read_document(path, cancel=cancel)
    assert cancel.calls == 3  # looked at before pages 1, 2 and 3; page 3 never read


@pytest.mark.parametrize("name", ["plan.docx", "deck.pptx", "sales.xlsx", "paper.pdf"])
def test_every_reader_stops_at_a_cancel(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name.endswith(".pdf"):
        path.write_bytes(make_pdf([["Abstract"], ["Results"]]))
    else:
        {"docx": make_docx, "pptx": make_pptx, "xlsx": make_xlsx}[name[-4:]](path)
    with pytest.raises(ReadCancelledError):
        read_document(path, cancel=lambda: True)
    assert read_document(path, cancel=lambda: False).sections  # not cancelled: read
