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
is complete or on the final unbudgeted render.

A step is done in two passes of the event loop when the view asks for it:
:meth:`LiveMarkdown.prepare` parses the next part and imports its HTML into
fragment documents (about half of a step's cost, without touching the
document), then ``set_text`` only edits the document, in one edit block (the
layout runs once)."""

from __future__ import annotations

import logging

from PySide6.QtGui import (
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
)

from .markdown import MarkdownSplit, render_markdown_split

log = logging.getLogger(__name__)

#: what a prepared step depends on: dark, start, the source to render, the
#: stable code blocks before it, the document's style sheet
_PreparedKey = tuple[bool, int, str, int, str]

#: characters of new markdown one budgeted step renders (~2 ms with its relayout)
STEP_CHARS = 2000
#: characters of not-yet-rendered text one budgeted update adds as plain text.
#: Inserting and laying out plain text costs ~0.3 µs a character: an answer
#: that arrived all at once (27 KB from a fast local server before the first
#: repaint) would otherwise cost one ~10 ms pass just to show its rest plainly.
PLAIN_STEP_CHARS = 4000
#: once the text is complete (the answer ended), how far the plain rest runs
#: ahead of the rendered markdown. Steps then always progress (a long last block
#: is rendered whole), so the rest needs no more: each step inserts about what
#: it rendered (~0.5 ms) instead of the next ``PLAIN_STEP_CHARS`` (~2 ms, a
#: seventh of a frame) until the whole rest is plain — work the steps undo.
PLAIN_LEAD_CHARS = 2000


def _utf16_len(text: str) -> int:
    """Length in the document's units (UTF-16 code units)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


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
        self._blocked = False  # the last block alone exceeds a step's budget
        self._complete = False  # the text will not grow: its last block is whole
        self._stable_code: list[str] = []
        self._tail_code: tuple[str, ...] = ()
        # (key, split, fragments) of the next step, done ahead by ``prepare``
        self._prepared: tuple[_PreparedKey, MarkdownSplit, tuple] | None = None

    @property
    def source_length(self) -> int:
        """Characters of the text shown (rendered or plain, or still to show)."""
        return len(self._source) if self._valid else 0

    @property
    def code_blocks(self) -> tuple[str, ...]:
        return (*self._stable_code, *self._tail_code)

    @property
    def pending(self) -> bool:
        """Part of the text is still shown as plain text, or not shown yet (a
        budgeted update): a later call with the same text makes progress."""
        if not self._valid:
            return False
        rendering = self._tail_chars < len(self._source) and not self.blocked
        return rendering or not self._shown_all

    @property
    def _shown_all(self) -> bool:
        return self._tail_chars + self._plain_shown >= len(self._source)

    @property
    def blocked(self) -> bool:
        """A budgeted step cannot progress: the last block alone exceeds the
        budget and may still grow (it is rendered once the text is complete:
        then a step's budget counts from the end of that block)."""
        return self._valid and self._blocked and not self._complete

    def is_showing(self, text: str, *, dark: bool) -> bool:
        return self._valid and self._dark == dark and self._source == normalise_newlines(text)

    def extends(self, text: str, dark: bool) -> bool:
        """``text`` only appends to what is shown (an update keeps the document)."""
        return (
            self._valid and self._dark == dark and normalise_newlines(text).startswith(self._source)
        )

    def invalidate(self) -> None:
        self._valid = False

    def rerender(self) -> None:
        """Render the current text again from scratch (e.g. new link colours)."""
        source = self._source
        self._valid = False
        self.set_text(source, dark=self._dark)

    def set_text(
        self, text: str, *, dark: bool, budget: int | None = None, complete: bool = False
    ) -> None:
        """Show ``text``; with ``budget``, render at most about that many new
        characters of markdown now (see :attr:`pending`). ``complete``: the
        text is final (the answer ended), so a last block longer than the
        budget is rendered on its own in one step instead of staying plain."""
        text = normalise_newlines(text)
        if not (self._valid and dark == self._dark and text.startswith(self._source)):
            self._reset(dark)
        if complete:
            self._complete = True
        if (
            text == self._source
            and (self._tail_chars >= len(text) or (budget is not None and self.blocked))
            and self._shown_all
        ):
            return
        if len(text) > len(self._source):
            self._blocked = False
        self._source = text
        self._advance(budget)

    def _reset(self, dark: bool) -> None:
        self._doc.clear()
        self._dark = dark
        self._valid = True
        self._source = ""
        self._stable_chars = self._stable_end = 0
        self._tail_chars = self._plain_shown = 0
        self._blocked = False
        self._complete = False
        self._stable_code = []
        self._tail_code = ()
        self._prepared = None

    def _step_end(self, budget: int | None) -> int:
        """Where the markdown rendered by a step with ``budget`` ends."""
        source, start = self._source, self._stable_chars
        end = len(source)
        if budget and self._tail_chars == 0 and self._plain_shown:
            # the first step also rebuilds the plain rest it imports over
            # (``setHtml``): half the markdown keeps it as short as the others
            # (only the first: a later one must be able to pass a long block)
            budget = max(1, budget // 2)
        if budget == 0:
            end = start  # no markdown this time: the new text is shown plainly
        elif budget is not None and end - start > budget:
            end = source.rfind("\n", start, start + budget) + 1 or start + budget
            if self._complete and end <= self._tail_chars:
                # the text is final: a last block longer than a step is whole
                # now, and is rendered once, up to its end (not with all after it)
                blank = source.find("\n\n", self._tail_chars)
                end = len(source) if blank < 0 else blank + 1
        return end

    def _prepared_key(self, end: int) -> _PreparedKey:
        start = self._stable_chars
        return (
            self._dark,
            start,
            self._source[start:end],
            len(self._stable_code),
            self._doc.defaultStyleSheet(),
        )

    def prepare(self, budget: int) -> bool:
        """Do the part of the next step (``set_text`` with the same text and
        ``budget``) that leaves the document alone: parse the markdown and
        import its HTML. True if there was such work (the step then only edits
        the document, unless the text changed in a way that voids it)."""
        if self.blocked or not self.pending:
            return False
        end = self._step_end(budget)
        if end <= self._tail_chars:
            return False
        key = self._prepared_key(end)
        if self._prepared is not None and self._prepared[0] == key:
            return False
        split = render_markdown_split(key[2], dark=self._dark, code_base=len(self._stable_code))
        # before the first stable block, that block is imported with ``setHtml``
        # (see ``_replace``): only the tail's fragment can be made ahead
        stable = self._fragment(split.stable.html) if self._stable_end else None
        fragments = (stable, self._fragment(split.tail.html))
        self._prepared = (key, split, fragments)
        return True

    def _fragment(self, html: str) -> QTextDocumentFragment | None:
        html = html.strip()
        return QTextDocumentFragment(self._fragment_document(html)) if html else None

    def _advance(self, budget: int | None) -> None:
        source, start = self._source, self._stable_chars
        end = self._step_end(budget)
        if end <= self._tail_chars:  # nothing more to render: extend the plain rest
            self._blocked = bool(budget) and end < len(source)
            self._append_plain()
            return
        self._blocked = False
        prepared, self._prepared = self._prepared, None
        fragments: tuple[QTextDocumentFragment | None, ...] = (None, None)
        if prepared is not None and prepared[0] == self._prepared_key(end):
            _key, split, fragments = prepared
        else:
            split = render_markdown_split(
                source[start:end], dark=self._dark, code_base=len(self._stable_code)
            )
        # One edit block: the layout runs once, for the edited range, not once
        # per edit. (Before the first stable block the tail is imported with
        # ``setHtml``, which must not run inside an edit block.) The plain rest
        # is appended after it: inside, the edited range would reach from the
        # rendered tail to the document's end, and the layout would redo all
        # the plain text after it at every step (10-18 ms instead of ~2).
        edit = QTextCursor(self._doc) if self._stable_end else None
        if edit is not None:
            edit.beginEditBlock()
        try:
            self._render_step(split, end, fragments)
        finally:
            if edit is not None:
                edit.endEditBlock()
        self._append_plain()

    def _render_step(
        self, split: MarkdownSplit, end: int, fragments: tuple[QTextDocumentFragment | None, ...]
    ) -> None:
        until = self._drop_rendered_plain(end)
        if split.stable_chars:
            self._stable_end = self._replace(
                self._stable_end, until, split.stable.html, fragments[0]
            )
            self._stable_chars += split.stable_chars
            self._stable_code.extend(split.stable.code_blocks)
            until = self._stable_end
        self._replace(self._stable_end, until, split.tail.html, fragments[1])
        self._tail_chars = end
        self._tail_code = split.tail.code_blocks

    def _drop_rendered_plain(self, end: int) -> int:
        """Remove the plain text that ``source[:end]`` now renders; the document
        position where the rendered tail ends (what is replaced) is returned.

        Only the part just rendered is removed: the plain rest after it stays
        (rebuilding it every step would cost in proportion to its length). Before
        the first stable block the tail is imported with ``setHtml`` (the first
        block must take the fragment's format), so there the rest is rebuilt."""
        doc_end = self._doc.characterCount() - 1
        shown = self._plain_shown
        if not shown:
            return doc_end
        plain_at = doc_end - _utf16_len(self._source[self._tail_chars : self._tail_chars + shown])
        done = end - self._tail_chars
        if done >= shown or self._stable_end == 0:
            self._plain_shown = 0
            return doc_end  # all of it goes (with its separator), replaced below
        cursor = QTextCursor(self._doc)
        cursor.setPosition(plain_at)
        gone = _utf16_len(self._source[self._tail_chars : end])
        cursor.setPosition(plain_at + gone, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        self._plain_shown = shown - done
        return plain_at - 1  # the separator before the plain rest stays

    def _append_plain(self) -> None:
        """Show the rest of ``source`` after the rendered tail as plain text, in
        blocks of its own (only what is not shown yet is inserted, at most
        ``PLAIN_STEP_CHARS`` at a time, and once the text is complete at most
        ``PLAIN_LEAD_CHARS`` ahead of the markdown: :attr:`pending` asks for
        the rest)."""
        rest_at = self._tail_chars + self._plain_shown
        room = PLAIN_STEP_CHARS
        if self._complete:
            room = min(room, PLAIN_LEAD_CHARS - self._plain_shown)
        if rest_at >= len(self._source) or room <= 0:
            return
        cursor = QTextCursor(self._doc)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if self._plain_shown == 0 and self._doc.characterCount() > 1:
            cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        piece = self._source[rest_at : rest_at + room]
        cursor.insertText(piece, QTextCharFormat())
        self._plain_shown += len(piece)

    def _replace(
        self, position: int, until: int, html: str, fragment: QTextDocumentFragment | None = None
    ) -> int:
        """Replace the document's ``[position, until)`` with ``html`` (imported
        already as ``fragment`` if given); returns the position after it."""
        cursor = QTextCursor(self._doc)
        cursor.setPosition(position)
        cursor.setPosition(until, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        html = html.strip()
        if not html:
            return position
        if self._doc.characterCount() <= 1:
            self._doc.setHtml(html)
            return self._doc.characterCount() - 1
        if fragment is None:
            fragment = QTextDocumentFragment(self._fragment_document(html))
        cursor.insertFragment(fragment)
        return cursor.position()

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
