"""Word documents (DOCX) through python-docx: paragraphs and tables in document
order; each heading (Title, Heading 1–9) starts a section located by the heading
text and the number of its first paragraph. Tables become `` | ``-separated rows.

At most :data:`~.limits.MAX_TEXT_CHARS` characters are kept, for at most
:data:`~.limits.READ_SECONDS` (a note says the rest was left out; the budget
and the cancel check are looked at between blocks); a table cell spanning
more columns than Word allows is refused rather than expanded (python-docx
would repeat it once per column)."""

from __future__ import annotations

import io
import logging
import re
from typing import TYPE_CHECKING

from .document import Extracted, Section, empty, short_reason, too_slow, unreadable
from .limits import CUT_MARK, ReadBudget
from .office import cell_text, check_container, label, row_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from docx.oxml.table import CT_Tc
    from docx.table import Table
    from docx.text.paragraph import Paragraph

log = logging.getLogger(__name__)

_HEADING_STYLE = re.compile(r"^(?:heading\s*(\d)|title)$", re.IGNORECASE)
#: Word's own limit on a table's columns
MAX_TABLE_COLUMNS = 63


def read_docx(data: bytes, name: str, budget: ReadBudget) -> Extracted:
    from docx import Document as open_docx
    from docx.text.paragraph import Paragraph

    check_container(data, name, "docx")
    try:
        document = open_docx(io.BytesIO(data))
    except Exception as exc:  # not a Word package, damaged XML…
        raise unreadable(name, label("docx"), short_reason(exc)) from exc
    builder = _Builder(name, budget)
    for block in document.iter_inner_content():
        if not budget.go_on():
            break
        if isinstance(block, Paragraph):
            builder.paragraph(block)
        else:
            builder.table(block)
        if budget.cut:
            break
    sections = builder.finish()
    if not sections:
        raise too_slow(name, budget.limits.seconds) if budget.late else empty(name)
    return Extracted(
        text="\n\n".join(builder.markdown), sections=tuple(sections), warnings=tuple(budget.notes())
    )


def heading_level(paragraph: Paragraph) -> int | None:
    """1–9 for headings, 0 for the title, None for body text."""
    style = paragraph.style
    names = [getattr(style, "name", "") or "", getattr(style, "style_id", "") or ""]
    for candidate in names:
        match = _HEADING_STYLE.match(candidate.strip())
        if match:
            return int(match.group(1)) if match.group(1) else 0
    return None


class _Builder:
    """Collects sections (cut at headings) and a Markdown-ish full text."""

    def __init__(self, name: str, budget: ReadBudget) -> None:
        self.name = name
        self.budget = budget
        self.sections: list[Section] = []
        self.markdown: list[str] = []
        self._heading = ""
        self._first = 1
        self._count = 0
        self._lines: list[str] = []
        # python-docx looks a paragraph's style up among all styles each time
        # (milliseconds a paragraph): the level is worked out once per style
        self._levels: dict[str | None, int | None] = {}

    def paragraph(self, paragraph: Paragraph) -> None:
        text = paragraph.text.strip()
        if not text:
            return
        text = self._keep(text)
        self._count += 1
        level = self._level(paragraph)
        if level is None or self.budget.cut:
            self._add(text)
            self.markdown.append(text)
            return
        self._flush()
        self._heading, self._first = text, self._count
        self._lines = [text]
        self.markdown.append("#" * max(level, 1) + " " + text)

    def _level(self, paragraph: Paragraph) -> int | None:
        style_id = paragraph._p.style
        if style_id not in self._levels:
            self._levels[style_id] = heading_level(paragraph)
        return self._levels[style_id]

    def table(self, table: Table) -> None:
        rows = []
        for row in table.rows:
            self._check_spans(row._tr.tc_lst)
            seen: set[int] = set()
            cells = []
            for cell in row.cells:
                if id(cell._tc) in seen:  # a merged cell repeats across its span
                    continue
                seen.add(id(cell._tc))
                cells.append(cell_text(cell.text))
            line = row_text(cells)
            if line:
                rows.append(self._keep(line))
            if self.budget.cut:
                break
        if rows:
            self._count += 1
            self._add("\n".join(rows))
            self.markdown.append("\n".join(rows))

    def _check_spans(self, cells: Sequence[CT_Tc]) -> None:
        if any(tc.grid_span > MAX_TABLE_COLUMNS for tc in cells):
            raise unreadable(self.name, label("docx"), "a table is wider than Word allows")

    def _keep(self, text: str) -> str:
        """``text`` as far as the budget allows, ending with the cut mark when cut."""
        kept = self.budget.take(text)
        return f"{kept}\n{CUT_MARK}".lstrip() if self.budget.cut else kept

    def _add(self, text: str) -> None:
        if not self._lines:
            self._first = self._count
        self._lines.append(text)

    def _flush(self) -> None:
        if self._lines:
            location = {"heading": self._heading, "paragraph": self._first}
            self.sections.append(Section("\n".join(self._lines), location))
        self._lines = []

    def finish(self) -> list[Section]:
        self._flush()
        return self.sections
