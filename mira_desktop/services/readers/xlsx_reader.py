"""Excel workbooks (XLSX) through openpyxl in read-only mode with cached values:
one section per sheet (``{"sheet": name}``), rows as `` | ``-separated cells,
at most ``MAX_ROWS_PER_SHEET`` rows each (a note says what was left out).

The work is bounded by the cells *looked at*, not only the rows kept: a sheet
may declare itself ``A1:XFD1048576`` and store three cells, and openpyxl
yields a row for every row number between two stored ones. Rows come as
stored (the declared size is ignored, so a row is as wide as its last cell),
a row costs its width (an empty one costs 1), and a sheet stops at
``MAX_CELLS_PER_SHEET``, the workbook at ``MAX_CELLS`` (the sheets left are
not read); notes say so. At most :data:`~.limits.MAX_TEXT_CHARS` characters
are kept, for at most :data:`~.limits.READ_SECONDS`; the budget and the cancel
check are looked at between sheets and every thousand rows."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass, field
from typing import Any

from .document import Extracted, Section, empty, short_reason, too_slow, unreadable
from .limits import CUT_MARK, ReadBudget
from .office import cell_text, check_container, label, row_text

log = logging.getLogger(__name__)

MAX_ROWS_PER_SHEET = 1_000
MAX_COLUMNS = 200
#: cells looked at in one sheet, and in the whole workbook
MAX_CELLS_PER_SHEET = 250_000
MAX_CELLS = 1_000_000
#: rows between two looks at the budget and the cancel check
_POLL_ROWS = 1_000


@dataclass
class _Read:
    """What reading the sheets found and spent."""

    budget: ReadBudget
    cells: int = 0  # looked at, in all sheets
    sections: list[Section] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_xlsx(data: bytes, name: str, budget: ReadBudget) -> Extracted:
    from openpyxl import load_workbook

    check_container(data, name, "xlsx")
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # not a workbook package, damaged XML…
        raise unreadable(name, label("xlsx"), short_reason(exc)) from exc
    read = _Read(budget)
    try:
        _sheets(workbook.worksheets, read)
    except Exception as exc:
        raise unreadable(name, label("xlsx"), short_reason(exc)) from exc
    finally:
        workbook.close()
    if not read.sections:
        raise (
            too_slow(name, budget.limits.seconds)
            if budget.late
            else empty(name, "every sheet is empty")
        )
    text = "\n\n".join(f"[Sheet: {s.location['sheet']}]\n{s.text}" for s in read.sections)
    read.notes += budget.notes()
    return Extracted(text=text, sections=tuple(read.sections), warnings=tuple(read.notes))


def _sheets(sheets: list[Any], read: _Read) -> None:
    for number, sheet in enumerate(sheets):
        if not read.budget.go_on():
            return
        if read.cells >= MAX_CELLS or read.budget.cut:
            left = [f'"{s.title}"' for s in sheets[number:]]
            read.notes.append(
                f"{len(left)} more sheet{'s' if len(left) > 1 else ''} not read"
                f" ({', '.join(left[:5])}{', …' if len(left) > 5 else ''}):"
                " the workbook is too large to read in full."
            )
            return
        text, note = _sheet(sheet, read)
        if text:
            read.sections.append(Section(text, {"sheet": sheet.title}))
        if note:
            read.notes.append(note)


def _sheet(sheet: Any, read: _Read) -> tuple[str, str]:
    """The sheet's rows as text, and a note when rows were left out."""
    declared = sheet.max_row
    sheet.reset_dimensions()  # rows as stored, not padded to the declared width
    allowance = min(MAX_CELLS_PER_SHEET, MAX_CELLS - read.cells)
    rows: list[str] = []
    index = last_row = spent = 0
    stop = ""  # why reading stopped early: "cells", "rows", "text" or "time"
    for index, values in enumerate(sheet.iter_rows(values_only=True), 1):
        if index % _POLL_ROWS == 0 and not read.budget.go_on():
            stop = "time"
            break
        spent += max(len(values), 1)
        if spent > allowance:
            stop = "cells"
            break
        line = row_text([cell_text(v) for v in values[:MAX_COLUMNS]])
        if not line:
            continue
        if len(rows) == MAX_ROWS_PER_SHEET:
            stop = "rows"
            break
        rows.append(read.budget.take(line))
        last_row = index
        if read.budget.cut:
            stop = "text"
            break
    read.cells += spent
    if stop == "rows":  # how many more, as far as the sheet says
        left = declared - last_row if declared and declared > last_row else 0
        return _ending(sheet.title, rows, stop, f"about {left} more rows" if left else "more rows")
    return _ending(sheet.title, rows, stop, f"{index:,}")


def _ending(title: str, rows: list[str], stop: str, detail: str) -> tuple[str, str]:
    """The sheet's text closed by what says why it stops, and the note."""
    if stop in ("text", "time"):
        return "\n".join([*rows, CUT_MARK]).lstrip() if rows else "", ""
    if stop == "cells":
        note = (
            f'Sheet "{title}": reading stopped at row {detail} (too many empty or very wide'
            " rows); the rest of the sheet was left out."
        )
        return "\n".join([*rows, "(… the rest of the sheet is not included)"]), note
    if stop == "rows":
        note = (
            f'Sheet "{title}": only the first {MAX_ROWS_PER_SHEET} rows are included;'
            f" {detail} were left out."
        )
        return "\n".join([*rows, f"(… {detail} not included)"]), note
    return "\n".join(rows), ""
