"""Bounds on what one read may cost (PRODUCT.md §7: bad input never hangs the
app nor exhausts memory). Office packages are judged from their ZIP
directory before anything is unpacked; the text kept from any document is
capped, saying what was left out."""

from __future__ import annotations

import random
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from mira_desktop.services.readers import DocumentRefusedError, read_document
from mira_desktop.services.readers.limits import CUT_MARK, MAX_TEXT_CHARS
from mira_desktop.services.readers.office import MAX_PARTS
from tests.support.packages import (
    RawPart,
    deflate,
    docx_with_paragraphs,
    docx_with_zeros,
    write_zip,
)


def refused(path: Path) -> DocumentRefusedError:
    with pytest.raises(DocumentRefusedError) as caught:
        read_document(path)
    assert caught.value.hint
    return caught.value


def _packed(data: bytes) -> tuple[bytes, int, int]:
    part = deflate(data)
    return part.deflated, part.size, part.crc


def test_a_docx_unpacking_to_300_mb_is_refused_without_unpacking_it(tmp_path: Path) -> None:
    """340 KB on disk, 300 MB of zeros inside: refused from the ZIP directory,
    so the read never holds more than a few megabytes (python-docx would
    load the whole part)."""
    path = docx_with_zeros(tmp_path / "letter.docx", megabytes=300)
    assert path.stat().st_size < 400 * 1024
    tracemalloc.start()
    try:
        error = refused(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error.reason == "oversized"
    assert str(error) == '"letter.docx" unpacks to 300.8 MB; at most 256 MB can be read.'
    assert peak < 32 * 1024 * 1024


def test_a_part_packed_a_thousand_to_one_is_refused_as_a_bomb(tmp_path: Path) -> None:
    """82 KB of DOCX holding 20 MB of one sentence repeated: no real document
    packs that tight, and reading it took 15 s before."""
    sentence = "All work and no play makes Jack a dull boy. " * 20
    path = docx_with_paragraphs(tmp_path / "jack.docx", [sentence] * 24_000)
    error = refused(path)
    assert error.reason == "oversized"
    assert str(error).startswith('"jack.docx" holds a part that unpacks from ')
    assert "to 20.9 MB" in str(error) and "decompression bomb" in str(error)


def test_a_package_of_too_many_parts_is_refused(tmp_path: Path) -> None:
    tiny = deflate(b"x")
    parts = [
        RawPart(f"p/{n}.xml", tiny.deflated, tiny.size, tiny.crc) for n in range(MAX_PARTS + 1)
    ]
    path = tmp_path / "many.xlsx"
    path.write_bytes(write_zip(parts))
    error = refused(path)
    assert error.reason == "unreadable" and "far too many parts" in str(error)


def test_a_zip_with_a_damaged_directory_is_refused_as_such(tmp_path: Path) -> None:
    path = tmp_path / "cut.pptx"
    good = write_zip([RawPart("a.xml", *_packed(b"<a/>"))])
    path.write_bytes(good[:-10])
    error = refused(path)
    assert error.reason == "unreadable" and "ZIP directory is damaged" in str(error)


def test_a_table_cell_spanning_a_million_columns_is_refused(tmp_path: Path) -> None:
    """python-docx repeats a spanning cell once per column it spans."""
    from docx import Document

    doc = Document()
    table = doc.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "wide"
    table.rows[0].cells[0]._tc.get_or_add_tcPr().grid_span = 1_000_000
    doc.save(str(tmp_path / "wide.docx"))
    error = refused(tmp_path / "wide.docx")
    assert error.reason == "unreadable" and "wider than Word allows" in str(error)


def _report(paragraphs: int) -> list[str]:
    """Paragraphs of about 600 characters, each different."""
    return [
        " ".join(
            f"Line {n}.{k} of the report says item {(n * 10 + k) * 7919 % 100_003}"
            f" costs {(n + k) % 997} dollars."
            for k in range(10)
        )
        for n in range(paragraphs)
    ]


def test_the_text_of_a_long_docx_is_cut_at_the_cap_saying_so(tmp_path: Path) -> None:
    lines = _report(4_000)  # 2.4 million characters
    path = docx_with_paragraphs(tmp_path / "report.docx", lines)
    with zipfile.ZipFile(path) as archive:  # an ordinary package: not refused
        body = archive.getinfo("word/document.xml")
        assert body.file_size / body.compress_size < 40
    doc = read_document(path)
    body = "".join(section.text for section in doc.sections)
    assert len(body) <= MAX_TEXT_CHARS + len(CUT_MARK) + 30_000
    assert doc.text.endswith(CUT_MARK) and lines[0] in doc.text and lines[-1] not in doc.text
    assert doc.warnings == (
        "Only the first 2,000,000 characters were read; the rest of the document was left out.",
    )


def test_the_text_of_a_long_pptx_is_cut_at_the_cap_saying_so(tmp_path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    rng = random.Random(5)
    letters = bytes(range(97, 123)) + b" " * 6
    deck = Presentation()
    for number in range(3):
        slide = deck.slides.add_slide(deck.slide_layouts[6])
        box = slide.shapes.add_textbox(Inches(1), Inches(1), Inches(5), Inches(5))
        words = bytes(letters[b % len(letters)] for b in rng.randbytes(900_000)).decode()
        box.text_frame.text = f"Slide {number} {words}"
    deck.save(str(tmp_path / "deck.pptx"))
    doc = read_document(tmp_path / "deck.pptx")
    assert [s.location["slide"] for s in doc.sections] == [1, 2, 3]
    assert sum(len(s.text) for s in doc.sections) == MAX_TEXT_CHARS + len(CUT_MARK) + 1
    assert doc.sections[-1].text.endswith("\n" + CUT_MARK)
    assert doc.warnings and "first 2,000,000 characters" in doc.warnings[0]
