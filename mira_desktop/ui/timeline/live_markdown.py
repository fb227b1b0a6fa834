"""``LiveMarkdown``: keeps a ``QTextDocument`` equal to the rendered markdown of
a *growing* text (a streaming answer) at a bounded cost per update.

The document holds, in order: the *stable* top-level blocks (rendered once;
appending text can no longer change them), the rendering of the last block
(re-rendered while it grows) and, when an update brought more text than one
step may render, that rest as plain text. ``set_text(text, budget=N)`` renders
at most about ``N`` new characters of markdown and shows the rest plainly;
:attr:`LiveMarkdown.pending` then says a later call (with the same text) has
more to render. Without a budget everything is rendered at once.

Why: a fast stream hands the timeline thousands of characters per flush, and
parsing, highlighting and importing them as HTML costs ~1.3 µs a character on
the Qt thread — one 25–35 ms stall per flush. In steps of ~2,000 characters no
update takes more than a few milliseconds; the view schedules the next step on
its own until the markdown has caught up. A last block that alone exceeds the
budget (a huge code block) is extended as plain text and rendered once, when it
is complete or on the final unbudgeted render."""

from __future__ import annotations

import logging

from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
)

from .markdown import render_markdown_split

log = logging.getLogger(__name__)

#: characters of new markdown one budgeted step renders (~2–3 ms)
STEP_CHARS = 2000


def normalise_newlines(text: str) -> str:
    """markdown-it works on ``\\n`` line ends; a lone ``\\r`` (half of a ``\\r\\n``
    split across two deltas) is dropped so that offsets stay stable."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "")


class LiveMarkdown:
    """Keeps ``document`` equal to the rendering of a text that mostly grows.

    An update that only appends re-renders and replaces just the tail; any
    other change (edit, theme) starts over. See the module docstring."""

    def __init__(self, document: QTextDocument):
        self._doc = document
        self._source = ""
        self._dark = False
        self._valid = False
        self._stable_chars = 0  # source characters covered by the stable blocks
        self._stable_end = 0  # document position after them
        self._tail_chars = 0  # source characters covered by the rendered tail
        self._plain_shown = 0  # characters of source[tail_chars:] shown as plain text
        self._stable_code: list[str] = []
        self._tail_code: tuple[str, ...] = ()

    @property
    def code_blocks(self) -> tuple[str, ...]:
        return (*self._stable_code, *self._tail_code)

    @property
    def pending(self) -> bool:
        """Part of the text is still shown as plain text (a budgeted update)."""
        return self._valid and self._tail_chars < len(self._source)

    def is_showing(self, text: str, *, dark: bool) -> bool:
        return self._valid and self._dark == dark and self._source == normalise_newlines(text)

    def invalidate(self) -> None:
        self._valid = False

    def rerender(self) -> None:
        """Render the current text again from scratch (e.g. new link colours)."""
        source = self._source
        self._valid = False
        self.set_text(source, dark=self._dark)

    def set_text(self, text: str, *, dark: bool, budget: int | None = None) -> None:
        """Show ``text``; with ``budget``, render at most about that many new
        characters of markdown now (see :attr:`pending`)."""
        text = normalise_newlines(text)
        if not (self._valid and dark == self._dark and text.startswith(self._source)):
            self._reset(dark)
        elif text == self._source and not self.pending:
            return
        self._source = text
        self._advance(budget)

    def _reset(self, dark: bool) -> None:
        self._doc.clear()
        self._dark = dark
        self._valid = True
        self._source = ""
        self._stable_chars = self._stable_end = 0
        self._tail_chars = self._plain_shown = 0
        self._stable_code = []
        self._tail_code = ()

    def _advance(self, budget: int | None) -> None:
        source, start = self._source, self._stable_chars
        end = len(source)
        if budget is not None and end - start > budget:
            end = source.rfind("\n", start, start + budget) + 1 or start + budget
        if end <= self._tail_chars:  # nothing more to render: extend the plain rest
            self._append_plain()
            return
        split = render_markdown_split(
            source[start:end], dark=self._dark, code_base=len(self._stable_code)
        )
        if split.stable_chars:
            self._replace_from(self._stable_end, split.stable.html)
            self._stable_end = self._doc.characterCount() - 1
            self._stable_chars += split.stable_chars
            self._stable_code.extend(split.stable.code_blocks)
        self._replace_from(self._stable_end, split.tail.html)
        self._tail_chars = end
        self._plain_shown = 0
        self._tail_code = split.tail.code_blocks
        self._append_plain()

    def _append_plain(self) -> None:
        """Show ``source[tail_chars:]`` as plain text, in blocks of its own,
        after the rendered tail (only what is not shown yet is inserted)."""
        rest = self._source[self._tail_chars :]
        if len(rest) <= self._plain_shown:
            return
        cursor = QTextCursor(self._doc)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self._plain_shown == 0 and self._doc.characterCount() > 1:
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        cursor.insertText(rest[self._plain_shown :], QTextCharFormat())
        self._plain_shown = len(rest)

    def _replace_from(self, position: int, html: str) -> None:
        cursor = QTextCursor(self._doc)
        cursor.setPosition(position)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        html = html.strip()
        if not html:
            return
        if self._doc.characterCount() <= 1:
            self._doc.setHtml(html)
            return
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertFragment(QTextDocumentFragment(self._fragment_document(html)))

    def _fragment_document(self, html: str) -> QTextDocument:
        # Inserting a fragment merges its first block into the block at the cursor
        # (losing that block's format). Lead with an empty block so that only the
        # empty block is merged and every real block keeps its own format.
        tmp = QTextDocument()
        tmp.setDefaultStyleSheet(self._doc.defaultStyleSheet())
        tmp.setHtml(html)
        first = tmp.begin()
        if first.length() > 1:
            QTextCursor(tmp).insertBlock(first.blockFormat(), first.charFormat())
        return tmp
