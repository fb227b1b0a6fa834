"""Word documents (DOCX) through python-docx: paragraphs and tables in document
order; each heading (Title, Heading 1–9) starts a section located by the heading
text and the number of its first paragraph. Tables become `` | ``-separated rows."""

from __future__ import annotations

import io
import logging
import re
from typing import TYPE_CHECKING

from .document import Extracted, Section, empty, short_reason, unreadable
from .office import cell_text, check_container, label, row_text

if TYPE_CHECKING:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

log = logging.getLogger(__name__)

_HEADING_STYLE = re.compile(r"^(?:heading\s*(\d)|title)$", re.IGNORECASE)


def read_docx(data: bytes, name: str) -> Extracted:
    from docx import Document as open_docx
    from docx.text.paragraph import Paragraph

    check_container(data, name, "docx")
    try:
        blocks = list(open_docx(io.BytesIO(data)).iter_inner_content())
    except Exception as exc:  # not a Word package, damaged XML…
        raise unreadable(name, label("docx"), short_reason(exc)) from exc
    builder = _Builder()
    for block in blocks:
        if isinstance(block, Paragraph):
            builder.paragraph(block)
        else:
            builder.table(block)
    sections = builder.finish()
    if not sections:
        raise empty(name)
    return Extracted(text="\n\n".join(builder.markdown), sections=tuple(sections))


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

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.markdown: list[str] = []
        self._heading = ""
        self._first = 1
        self._count = 0
        self._lines: list[str] = []

    def paragraph(self, paragraph: Paragraph) -> None:
        text = paragraph.text.strip()
        if not text:
            return
        self._count += 1
        level = heading_level(paragraph)
        if level is None:
            self._add(text)
            self.markdown.append(text)
            return
        self._flush()
        self._heading, self._first = text, self._count
        self._lines = [text]
        self.markdown.append("#" * max(level, 1) + " " + text)

    def table(self, table: Table) -> None:
        rows = []
        for row in table.rows:
            seen: set[int] = set()
            cells = []
            for cell in row.cells:
                if id(cell._tc) in seen:  # a merged cell repeats across its span
                    continue
                seen.add(id(cell._tc))
                cells.append(cell_text(cell.text))
            line = row_text(cells)
            if line:
                rows.append(line)
        if rows:
            self._count += 1
            self._add("\n".join(rows))
            self.markdown.append("\n".join(rows))

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
