"""Excel workbooks (XLSX) through openpyxl in read-only mode with cached values:
one section per sheet (``{"sheet": name}``), rows as `` | ``-separated cells,
at most ``MAX_ROWS_PER_SHEET`` rows each (a note says what was left out)."""

from __future__ import annotations

import io
import logging
from typing import Any

from .document import Extracted, Section, empty, short_reason, unreadable
from .office import cell_text, check_container, label, row_text

log = logging.getLogger(__name__)

MAX_ROWS_PER_SHEET = 1_000
MAX_COLUMNS = 200


def read_xlsx(data: bytes, name: str) -> Extracted:
    from openpyxl import load_workbook

    check_container(data, name, "xlsx")
    sections: list[Section] = []
    notes: list[str] = []
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # not a workbook package, damaged XML…
        raise unreadable(name, label("xlsx"), short_reason(exc)) from exc
    try:
        for sheet in workbook.worksheets:
            text, note = _sheet(sheet)
            if text:
                sections.append(Section(text, {"sheet": sheet.title}))
            if note:
                notes.append(note)
    except Exception as exc:
        raise unreadable(name, label("xlsx"), short_reason(exc)) from exc
    finally:
        workbook.close()
    if not sections:
        raise empty(name, "every sheet is empty")
    text = "\n\n".join(f"[Sheet: {s.location['sheet']}]\n{s.text}" for s in sections)
    return Extracted(text=text, sections=tuple(sections), warnings=tuple(notes))


def _sheet(sheet: Any) -> tuple[str, str]:
    """The sheet's rows as text, and a note when rows were left out."""
    rows: list[str] = []
    last_row = 0
    for index, values in enumerate(sheet.iter_rows(values_only=True), 1):
        line = row_text([cell_text(v) for v in values[:MAX_COLUMNS]])
        if not line:
            continue
        if len(rows) == MAX_ROWS_PER_SHEET:
            break
        rows.append(line)
        last_row = index
    else:
        return "\n".join(rows), ""
    total = sheet.max_row
    more = f"about {total - last_row} more rows" if total and total > last_row else "more rows"
    note = (
        f'Sheet "{sheet.title}": only the first {MAX_ROWS_PER_SHEET} rows are included;'
        f" {more} were left out."
    )
    return "\n".join([*rows, f"(… {more} not included)"]), note
