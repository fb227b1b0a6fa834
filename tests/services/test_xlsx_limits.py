"""Workbooks whose work is out of all proportion to their size: a sheet that
declares itself ``A1:XFD1048576`` around three cells (openpyxl yields a
16,384-wide row for every row number in between), and many such sheets. The
reader bounds the cells it looks at, per sheet and in all, and says so."""

from __future__ import annotations

import random
from pathlib import Path

from mira_desktop.services.readers import read_document
from mira_desktop.services.readers.limits import CUT_MARK, MAX_TEXT_CHARS

REST = "(… the rest of the sheet is not included)"


def corner_cells(path: Path, sheets: int, *, bottom: int = 1_048_576) -> Path:
    """``sheets`` sheets, each with cells at A1, XFD1 (the last column) and
    A``bottom``: a few kilobytes that say they span the whole grid."""
    from openpyxl import Workbook

    workbook = Workbook()
    for number in range(sheets):
        sheet = workbook.active if number == 0 else workbook.create_sheet()
        assert sheet is not None
        sheet.title = f"S{number}"
        sheet["A1"] = f"top {number}"
        sheet["XFD1"] = "far right"
        sheet[f"A{bottom}"] = f"bottom {number}"
    workbook.save(str(path))
    return path


def test_rows_between_stored_ones_count_toward_the_sheets_bound(tmp_path: Path) -> None:
    """Row 1 costs its 16,384 cells, each empty row one: the sheet stops long
    before its last row instead of padding a million rows (19 s before)."""
    path = corner_cells(tmp_path / "corners.xlsx", 1)
    assert path.stat().st_size < 10_000
    doc = read_document(path)
    assert doc.sections[0].text == f"top 0\n{REST}"
    assert doc.warnings == (
        'Sheet "S0": reading stopped at row 233,618 (too many empty or very wide rows);'
        " the rest of the sheet was left out.",
    )


def test_a_sheet_with_data_after_a_gap_is_read_to_its_end(tmp_path: Path) -> None:
    doc = read_document(corner_cells(tmp_path / "gap.xlsx", 1, bottom=100_000))
    assert doc.sections[0].text == "top 0\nbottom 0" and doc.warnings == ()


def test_many_such_sheets_share_one_bound_and_the_rest_are_named(tmp_path: Path) -> None:
    """40 sheets of a million declared rows each: four are read as far as
    the workbook's bound goes, the others are listed as not read."""
    doc = read_document(corner_cells(tmp_path / "many.xlsx", 40))
    assert [s.location["sheet"] for s in doc.sections] == ["S0", "S1", "S2", "S3"]
    assert all(s.text.endswith(REST) for s in doc.sections)
    assert len(doc.warnings) == 5
    assert doc.warnings[-1] == (
        '36 more sheets not read ("S4", "S5", "S6", "S7", "S8", …):'
        " the workbook is too large to read in full."
    )


def test_the_text_of_a_large_workbook_is_cut_at_the_cap(tmp_path: Path) -> None:
    from openpyxl import Workbook

    rng = random.Random(3)
    letters = bytes(range(97, 123)) + b" " * 6
    workbook = Workbook()
    for number in range(3):
        sheet = workbook.active if number == 0 else workbook.create_sheet(f"S{number}")
        assert sheet is not None
        for row in range(900):
            words = bytes(letters[b % len(letters)] for b in rng.randbytes(900)).decode()
            sheet.append([f"r{row}", words.strip()])
    workbook.save(str(tmp_path / "text.xlsx"))
    doc = read_document(tmp_path / "text.xlsx")
    assert doc.text.endswith(CUT_MARK)
    assert sum(len(s.text) for s in doc.sections) <= MAX_TEXT_CHARS + 3_000
    assert doc.warnings[-1].startswith("Only the first 2,000,000 characters were read")
