"""The snippet of a retrieved passage: about 200 characters around the place
where the most distinct query terms appear together (not merely the first
match), whitespace collapsed, cut at spaces when possible, with the offsets of
the terms in it for highlighting. Pure functions."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from ..snippets import ELLIPSIS, Span, find_spans

log = logging.getLogger(__name__)

SNIPPET_WIDTH = 200
_WHITESPACE = re.compile(r"\s+")


def _patterns(terms: Sequence[str]) -> list[re.Pattern[str]]:
    return [re.compile(re.escape(t), re.IGNORECASE) for t in terms if t]


def _best_start(text: str, patterns: Sequence[re.Pattern[str]], width: int) -> int:
    """Where a ``width`` window holds the most distinct terms (the earliest
    such place), a fifth of the window before the first of them."""
    hits = sorted((m.start(), i) for i, p in enumerate(patterns) for m in p.finditer(text))
    if not hits:
        return 0
    best, best_count = hits[0][0], 0
    for start, _ in hits:
        count = len({i for s, i in hits if start <= s < start + width * 4 // 5})
        if count > best_count:
            best, best_count = start, count
    return max(0, best - width // 5)


def passage_snippet(
    text: str, terms: Sequence[str], width: int = SNIPPET_WIDTH
) -> tuple[str, tuple[Span, ...]]:
    """``(snippet, highlight offsets in it)`` for a passage and query terms."""
    patterns = _patterns(terms)
    start = _best_start(text, patterns, width)
    if len(text) <= width:
        start = 0
    start = min(start, max(0, len(text) - width))
    if start > 0 and not text[start - 1].isspace():
        gap = text.find(" ", start, start + 15)
        start = gap + 1 if gap >= 0 else start
    end = min(len(text), start + width)
    if end < len(text) and not text[end].isspace():
        gap = text.rfind(" ", end - 15, end)
        end = gap if gap > start else end
    body = _WHITESPACE.sub(" ", text[start:end]).strip()
    snippet = (ELLIPSIS if start > 0 else "") + body + (ELLIPSIS if end < len(text) else "")
    return snippet, find_spans(snippet, patterns)
