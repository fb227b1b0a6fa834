"""How much one read may cost. A few kilobytes of PDF or Office file can
unpack to gigabytes or hold millions of pages, rows or paragraphs; the
readers stop at these bounds instead, saying what was left out (or refusing
the file, saying why), so bad input can neither exhaust memory nor keep a
worker thread busy for minutes.

:class:`TextBudget` counts the characters a reader keeps: once
:data:`MAX_TEXT_CHARS` are kept, the rest of the document is not read."""

from __future__ import annotations

#: characters of text one document gives at most (about 1,000 dense pages):
#: more helps no model and only fills memory, the database and requests
MAX_TEXT_CHARS = 2_000_000
#: what ends a text cut short, so a reader (or a model) sees that it was
CUT_MARK = "(… the rest of the document is not included)"


class TextBudget:
    """The characters one read may still keep; ``cut`` once some were refused."""

    def __init__(self, limit: int = MAX_TEXT_CHARS) -> None:
        self.limit = limit
        self.left = limit
        self.cut = False

    def take(self, text: str) -> str:
        """``text``, or as much of it as still fits (then ``cut`` is set)."""
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        kept, self.left, self.cut = text[: self.left], 0, True
        return kept

    def note(self) -> str:
        """The warning of a text cut short."""
        return (
            f"Only the first {self.limit:,} characters were read;"
            " the rest of the document was left out."
        )
