"""What a search result shows of a snippet: the text people read, not the
Markdown it was written in ("## Recursion", "**recursive**", a code fence),
with the highlights moved along with the characters they cover."""

from __future__ import annotations

import re
from collections.abc import Sequence

Span = tuple[int, int]

# Markdown's marks (removed): a heading's hashes and a quote's ">" at a line's
# start, emphasis and strike-through pairs (``__`` not inside a word, as in
# Markdown: "snake__case" keeps it), stray code backticks, a link's brackets
# and address ([text](url) shows "text").
_MARKS = re.compile(
    r"(?m)^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?)"
    r"|\*\*|(?<!\w)__|__(?!\w)|~~|`+"
    r"|\[(?=[^\]\n]*\]\([^)\s]*\))"
    r"|\]\([^)\s]*\)"
)
# a code span or block: only its backticks go; what is inside is shown as
# written ("`__init__`", "`a**b`" keep their underscores and stars)
_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
# a list item's marker at a line's start: shown as a bullet (same length)
_BULLET = re.compile(r"(?m)^([ \t]*)[-*+](?=[ \t])")


def plain_markdown(text: str, spans: Sequence[Span] = ()) -> tuple[str, tuple[Span, ...]]:
    """``text`` without Markdown's marks, and ``spans`` (start, end offsets
    into ``text``) moved onto the result; a span that covered only marks is
    dropped."""
    text = _BULLET.sub(lambda m: f"{m.group(1)}•", text)
    removed: list[Span] = []
    position = 0
    for code in _CODE.finditer(text):
        removed += _marks(text, position, code.start())
        ticks = len(code.group(1))
        removed += [(code.start(), code.start() + ticks), (code.end() - ticks, code.end())]
        position = code.end()
    removed += _marks(text, position, len(text))
    if not removed:
        return text, tuple(spans)
    kept: list[str] = []
    # new_index[i]: where old offset i lands (for i in 0..len(text))
    new_index = [0] * (len(text) + 1)
    position = count = 0
    for start, end in removed:
        for i in range(position, start):
            new_index[i] = count
            count += 1
        kept.append(text[position:start])
        for i in range(start, end):
            new_index[i] = count
        position = end
    for i in range(position, len(text)):
        new_index[i] = count
        count += 1
    kept.append(text[position:])
    new_index[len(text)] = count
    moved = []
    for start, end in spans:
        a, b = new_index[max(0, min(start, len(text)))], new_index[max(0, min(end, len(text)))]
        if b > a:
            moved.append((a, b))
    return "".join(kept), tuple(moved)


def _marks(text: str, start: int, end: int) -> list[Span]:
    """The Markdown marks in ``text[start:end]``, as offsets into ``text``."""
    return [(m.start(), m.end()) for m in _MARKS.finditer(text, start, end) if m.end() > m.start()]


def clip_spans(spans: Sequence[Span], length: int) -> tuple[Span, ...]:
    """The parts of ``spans`` before ``length``."""
    return tuple((start, min(end, length)) for start, end in spans if start < length)
