"""Keeping every word of deeply nested markdown (the timeline and the HTML
export both render a model's markdown with markdown-it).

markdown-it stops at a nesting depth (``maxNesting``) and silently skips the
rest of the block: a list nested 30 deep showed its first 9 items, and text
under 30 ``>`` markers vanished. ``keep_deep_text`` installs a block rule
that, from ``DEEPEST_LEVEL`` on, takes the remaining lines of the container
as one plain paragraph, a line each (their deeper markers shown as written) — far below
the cut-off, so no text is ever dropped, and with a bounded nesting that
keeps parsing (recursive per level) and Qt's layout (indented per level)
cheap."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock

#: Token nesting level from which blocks are flattened: a list nested 8 deep
#: (two levels each: the list and its item), or 16 block quotes.
DEEPEST_LEVEL = 16
#: markdown-it's own limit, with room above ``DEEPEST_LEVEL`` for what one
#: block opens before the rule runs again (a table: 4 levels).
MAX_NESTING = DEEPEST_LEVEL + 16


def keep_deep_text(md: MarkdownIt) -> MarkdownIt:
    """Install the rule on ``md`` (before its first block rule)."""
    md.options["maxNesting"] = MAX_NESTING
    first = md.block.ruler.get_active_rules()[0]
    md.block.ruler.before(first, "keep_deep_text", _flatten_deep)
    return md


def _flatten_deep(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if state.level < DEEPEST_LEVEL or silent:
        return False
    line = start
    # The container's lines: up to one indented less (an outer list's next item).
    while line < end and (state.isEmpty(line) or state.sCount[line] >= state.blkIndent):
        line += 1
    text = state.getLines(start, line, state.blkIndent, False)
    lines = [content.strip() for content in text.split("\n") if content.strip()]
    state.push("paragraph_open", "p", 1).map = [start, line]
    inline = state.push("inline", "", 0)
    inline.content = "  \n".join(lines)  # one line each: hard breaks
    inline.map = [start, line]
    inline.children = []
    state.push("paragraph_close", "p", -1)
    state.line = line
    return True
