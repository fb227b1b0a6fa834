"""Snippets and highlights of search hits: a window of about 80 characters
around the best match of a text (the whole query as a phrase, else the first
term), with the ``(start, end)`` offsets of every match inside it, and two ways
to render them — ``«»`` markers for terminals and HTML ``<mark>`` (everything
else escaped) for rich-text views. Pure functions."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Sequence

log = logging.getLogger(__name__)

SNIPPET_WIDTH = 80
ELLIPSIS = "…"
_WHITESPACE = re.compile(r"\s+")

Span = tuple[int, int]


def term_patterns(terms: Sequence[str]) -> list[re.Pattern[str]]:
    """Case-insensitive patterns: the phrase (terms separated by any whitespace)
    first when there are several terms, then each term."""
    patterns = [_term_pattern(t) for t in terms if t]
    if len(patterns) > 1:
        phrase = r"\s+".join(re.escape(part) for t in terms for part in t.split())
        patterns.insert(0, re.compile(phrase, re.IGNORECASE))
    return patterns


def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(r"\s+".join(re.escape(part) for part in term.split()), re.IGNORECASE)


def phrase_found(text: str, terms: Sequence[str]) -> bool:
    """True when the terms appear together, in order, as typed (an exact phrase)."""
    patterns = term_patterns(terms)
    return bool(patterns) and patterns[0].search(text) is not None


def find_spans(text: str, patterns: Sequence[re.Pattern[str]]) -> tuple[Span, ...]:
    """Every match of every pattern, overlapping ones merged, in order."""
    spans = sorted(
        (m.start(), m.end()) for p in patterns for m in p.finditer(text) if m.end() > m.start()
    )
    merged: list[Span] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return tuple(merged)


def _anchor(text: str, patterns: Sequence[re.Pattern[str]]) -> Span:
    """The phrase match if any, else the earliest match of any term."""
    if not patterns:
        return (0, 0)
    phrase = patterns[0].search(text)
    if phrase is not None:
        return phrase.span()
    found = [m.span() for p in patterns[1:] if (m := p.search(text)) is not None]
    return min(found) if found else (0, 0)


def _window(text: str, anchor: Span, width: int) -> Span:
    """A ``width``-character window showing the anchor, a third of the spare
    room before it; edges pulled back to whitespace rather than cut mid-word."""
    if len(text) <= width:
        return (0, len(text))
    a, b = anchor
    lead = max(0, (width - (b - a)) // 3)
    start = max(0, min(a - lead, len(text) - width))
    end = min(len(text), start + width)
    if start > 0 and not text[start - 1].isspace():
        gap = text.find(" ", start, a)
        if 0 <= gap < a and gap - start <= 15:
            start = gap + 1
    if end < len(text) and not text[end].isspace():
        gap = text.rfind(" ", max(b, end - 15), end)
        if gap > b:
            end = gap
    return (start, end)


def make_snippet(
    text: str,
    terms: Sequence[str],
    *,
    width: int = SNIPPET_WIDTH,
    patterns: Sequence[re.Pattern[str]] | None = None,
) -> tuple[str, tuple[Span, ...]]:
    """(snippet, highlight offsets in the snippet) for a text and the query terms
    (``patterns``: ``term_patterns(terms)``, when the caller has them already).
    Whitespace runs become one space, so the snippet is a single line."""
    if patterns is None:
        patterns = term_patterns(terms)
    start, end = _window(text, _anchor(text, patterns), width)
    body = _WHITESPACE.sub(" ", text[start:end]).strip()
    snippet = (ELLIPSIS if start > 0 else "") + body + (ELLIPSIS if end < len(text) else "")
    return snippet, find_spans(snippet, patterns)


def render_marked(
    snippet: str, highlights: Sequence[Span], *, open_mark: str = "«", close_mark: str = "»"
) -> str:
    """The snippet with each highlight between markers (terminals, plain text)."""
    out: list[str] = []
    position = 0
    for start, end in highlights:
        out += [snippet[position:start], open_mark, snippet[start:end], close_mark]
        position = end
    out.append(snippet[position:])
    return "".join(out)


def render_html(snippet: str, highlights: Sequence[Span], *, tag: str = "mark") -> str:
    """HTML with highlights in ``<mark>``; all other text escaped."""
    out: list[str] = []
    position = 0
    for start, end in highlights:
        out.append(html.escape(snippet[position:start]))
        out.append(f"<{tag}>{html.escape(snippet[start:end])}</{tag}>")
        position = end
    out.append(html.escape(snippet[position:]))
    return "".join(out)
