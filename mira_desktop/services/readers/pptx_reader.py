"""PowerPoint files (PPTX) through python-pptx: each slide's text (text boxes,
tables, grouped shapes) as one section, followed by its speaker notes as
another (``{"slide": n, "notes": True}``). At most
:data:`~.limits.MAX_PAGES` slides and :data:`~.limits.MAX_TEXT_CHARS`
characters are kept, for at most :data:`~.limits.READ_SECONDS` (a note says
the rest was left out; the budget and the cancel check are looked at between
slides)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .document import Extracted, Section, empty, short_reason, too_slow, unreadable
from .limits import CUT_MARK, ReadBudget
from .office import cell_text, check_container, label, row_text

log = logging.getLogger(__name__)


def read_pptx(data: bytes, name: str, budget: ReadBudget) -> Extracted:
    from pptx import Presentation

    check_container(data, name, "pptx")
    notes: list[str] = []
    try:
        sections = _sections(Presentation(io.BytesIO(data)).slides, budget, notes)
    except Exception as exc:  # not a presentation package, damaged XML…
        raise unreadable(name, label("pptx"), short_reason(exc)) from exc
    if not sections:
        raise too_slow(name, budget.limits.seconds) if budget.late else empty(name)
    parts = []
    for section in sections:
        number = section.location["slide"]
        title = f"[Slide {number} notes]" if section.location["notes"] else f"[Slide {number}]"
        parts.append(f"{title}\n{section.text}")
    warnings = (*notes, *budget.notes())
    return Extracted(text="\n\n".join(parts), sections=tuple(sections), warnings=warnings)


def _sections(slides: Sequence[Any], budget: ReadBudget, notes: list[str]) -> list[Section]:
    """Each slide's sections, until the budget is spent."""
    sections: list[Section] = []
    for number, slide in enumerate(slides, 1):
        if number > budget.limits.pages:
            notes.append(
                f"Only the first {budget.limits.pages:,} of {len(slides):,} slides were read;"
                " the rest were left out."
            )
            break
        if not budget.go_on():
            break
        for section in _slide(number, slide):
            text = budget.take(section.text)
            if budget.cut:
                sections.append(Section(f"{text}\n{CUT_MARK}".lstrip(), section.location))
                return sections
            sections.append(section)
    return sections


def _slide(number: int, slide: Any) -> Iterator[Section]:
    text = "\n".join(t for t in _shape_texts(slide.shapes) if t)
    if text:
        yield Section(text, {"slide": number, "notes": False})
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = frame.text.strip() if frame is not None else ""
        if notes:
            yield Section(notes, {"slide": number, "notes": True})


def _shape_texts(shapes: Iterable[Any]) -> Iterator[str]:
    for shape in shapes:
        if hasattr(shape, "shapes"):  # a group of shapes
            yield from _shape_texts(shape.shapes)
        elif getattr(shape, "has_text_frame", False):
            yield shape.text_frame.text.strip()
        elif getattr(shape, "has_table", False):
            rows = (row_text([cell_text(c.text) for c in row.cells]) for row in shape.table.rows)
            yield "\n".join(r for r in rows if r)
