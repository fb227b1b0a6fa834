"""How much one read may cost. A few kilobytes of PDF or Office file can
unpack to gigabytes or hold millions of pages, rows or paragraphs; the
readers stop at these bounds instead, saying what was left out (or refusing
the file, saying why), so bad input can neither exhaust memory nor keep a
worker thread busy for minutes.

A :class:`ReadBudget` goes with each read: the characters it may still keep
(:data:`MAX_TEXT_CHARS`), the pages or slides it may read
(:data:`MAX_PAGES`), the time it may take (:data:`READ_SECONDS`, looked at
between pages, slides, sheets and paragraphs) and the caller's cancel check,
polled at the same places: a cancelled read raises
:class:`ReadCancelledError` at the next one. A worker thread cannot be
interrupted; this is how a cancel reaches it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

#: characters of text one document gives at most (about 1,000 dense pages):
#: more helps no model and only fills memory, the database and requests
MAX_TEXT_CHARS = 2_000_000
#: PDF pages, or slides, read at most
MAX_PAGES = 2_000
#: seconds one read may take, looked at between pages (a page is not cut)
READ_SECONDS = 30.0
#: what ends a text cut short, so a reader (or a model) sees that it was
CUT_MARK = "(… the rest of the document is not included)"

#: True once the caller wants the read to stop (``threading.Event.is_set``)
CancelCheck = Callable[[], bool]


class ReadCancelledError(BaseException):
    """The read was stopped by its cancel check. Not a refusal: nothing is
    wrong with the file. A ``BaseException``, like ``asyncio.CancelledError``,
    so that no reader's ``except Exception`` mistakes it for a broken file."""


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """The bounds of one read; the defaults are the module's constants."""

    text_chars: int = MAX_TEXT_CHARS
    pages: int = MAX_PAGES
    seconds: float = READ_SECONDS


class ReadBudget:
    """What one read may still spend; ``cut`` once text was refused,
    ``late`` once the time ran out."""

    def __init__(
        self,
        limits: ReadLimits | None = None,
        cancel: CancelCheck | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits if limits is not None else ReadLimits()
        self.left = self.limits.text_chars
        self.cut = False
        self.late = False
        self._cancel = cancel
        self._clock = clock
        self._started = clock()
        self._polled = False

    def take(self, text: str) -> str:
        """``text``, or as much of it as still fits (then ``cut`` is set)."""
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        kept, self.left, self.cut = text[: self.left], 0, True
        return kept

    def check(self) -> None:
        """Between two pieces of work: raise :class:`ReadCancelledError`
        when the caller cancelled."""
        if self._cancel is not None and self._cancel():
            raise ReadCancelledError

    def go_on(self) -> bool:
        """Before each piece of work (a page, a slide, a sheet, a block):
        :meth:`check`, then whether there is time left (``late`` once there
        is not). The first piece always goes on: a slow file gives what its
        first page holds."""
        self.check()
        if self._polled and self._clock() - self._started > self.limits.seconds:
            self.late = True
        self._polled = True
        return not self.late

    def notes(self) -> list[str]:
        """The warnings of a read cut short: by the text kept, or the time."""
        return [note for note in (self.cut_note(), self.late_note()) if note]

    def cut_note(self) -> str:
        if not self.cut:
            return ""
        return (
            f"Only the first {self.limits.text_chars:,} characters were read;"
            " the rest of the document was left out."
        )

    def late_note(self) -> str:
        if not self.late:
            return ""
        return (
            f"Reading stopped after {self.limits.seconds:g} seconds;"
            " the rest of the document was left out."
        )
