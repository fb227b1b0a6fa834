"""Snippets and highlights of search hits: a window of about 80 characters
around the best match of a text (the whole query as a phrase, else the first
term), with the ``(start, end)`` offsets of every match inside it, and two ways
to render them — ``«»`` markers for terminals and HTML ``<mark>`` (everything
else escaped) for rich-text views. Pure functions, and :class:`FoldedQuery`,
which finds and counts the terms in many texts quickly (ranking)."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable, Sequence

from ..core.apostrophes import escape, has_apostrophe

log = logging.getLogger(__name__)

SNIPPET_WIDTH = 80
ELLIPSIS = "…"

Span = tuple[int, int]
# What FoldedQuery.measure_all gives for a text: str or UTF-8 lower-cased for
# its finders, None when the case-insensitive patterns must read the text.
Folded = str | bytes | None

# The characters of str.isspace(), which ``\s`` matches in a str pattern (a test
# checks both over every code point); in UTF-8, for patterns on bytes.
_SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# One class of the single bytes, then the multi-byte ones by their lead bytes:
# a quarter faster to search than an alternation of all 25 (a test checks it
# matches exactly the UTF-8 of _SPACES).
_SPACE_BYTES = (
    rb"(?:[\t\n\x0b\x0c\r\x1c-\x1f ]|\xc2[\x85\xa0]|\xe1\x9a\x80"
    rb"|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80)+"
)


def term_patterns(terms: Sequence[str]) -> list[re.Pattern[str]]:
    """Case-insensitive patterns: the phrase (terms separated by any whitespace)
    first when there are several terms, then each term."""
    patterns = [_term_pattern(t) for t in terms if t]
    if len(patterns) > 1:
        phrase = r"\s+".join(escape(part) for t in terms for part in t.split())
        patterns.insert(0, re.compile(phrase, re.IGNORECASE))
    return patterns


def _term_pattern(term: str) -> re.Pattern[str]:
    return re.compile(r"\s+".join(escape(part) for part in term.split()), re.IGNORECASE)


def phrase_found(text: str, terms: Sequence[str]) -> bool:
    """True when the terms appear together, in order, as typed (an exact phrase)."""
    patterns = term_patterns(terms)
    return bool(patterns) and patterns[0].search(text) is not None


class _Finder:
    """One term (or the phrase) on lower-cased text: ``str`` methods for a single
    word, a case-sensitive pattern (``\\s+`` between words) otherwise."""

    __slots__ = ("pattern", "word")

    def __init__(self, parts: Sequence[str]) -> None:
        self.word = parts[0] if len(parts) == 1 and not has_apostrophe(parts[0]) else None
        self.pattern = re.compile(r"\s+".join(escape(part) for part in parts))

    def find(self, folded: str) -> Span | None:
        if self.word is not None:
            at = folded.find(self.word)
            return (at, at + len(self.word)) if at >= 0 else None
        match = self.pattern.search(folded)
        return match.span() if match is not None else None

    def count(self, folded: str) -> int:
        if self.word is not None:
            return folded.count(self.word)
        return len(self.pattern.findall(folded))


def _plain(part: str) -> bool:
    """Every character ASCII or without case."""
    return part.isascii() or all(c.isascii() or c.lower() == c == c.upper() for c in part)


class FoldedQuery:
    """What the case-insensitive :func:`term_patterns` of some terms find in a
    text — the phrase, each term's matches — found the same on a lower-cased
    copy with ``find``/``count`` and case-sensitive patterns. An ``IGNORECASE``
    pattern cannot skip ahead to a literal prefix: Python's regex engine steps
    through every character (10–20× slower over the ~160 kB of a search's
    candidates); lower-casing is one C pass, skipped when no term has case
    (Chinese). :meth:`measure_all`, the hot loop, lower-cases the UTF-8 bytes
    and searches them (no decoding back: a UTF-8 string is found only at
    character boundaries, so counts are the same).

    Exactly the same matches, offsets included: the fast way is taken only for
    terms of ASCII and caseless characters — ``IGNORECASE`` matches a caseless
    character only with itself and an ASCII letter with its two cases plus "İ",
    "ı" (as "i"), "ſ" ("s") and the Kelvin sign ("k") — on texts without those
    four, lower-casing ASCII letters only. Anything else — a term like "Straße",
    a text with "ı" — goes through the patterns themselves."""

    def __init__(self, terms: Sequence[str]) -> None:
        self.patterns = term_patterns(terms)
        words = [[part.lower() for part in t.split()] for t in terms if t]
        parts = [part for t in terms for part in t.split()]
        self._folds = any(part.lower() != part or part.upper() != part for part in parts)
        self._fast = all(_plain(part) for part in parts)
        finders = [_Finder(word) for word in words]
        self._counted = finders  # like relevance: each term (the only one, alone)
        self._anchors = finders if len(finders) > 1 else []  # like _anchor
        self._phrase: _Finder | None = finders[0] if len(finders) == 1 else None
        if len(finders) > 1:
            self._phrase = _Finder([part for word in words for part in word])
        # the case-sensitive twins of self.patterns, for lower-cased text
        self._folded_patterns = [f.pattern for f in [self._phrase, *self._anchors] if f]
        # the patterns for the highlights of a snippet of a text known to lack
        # the phrase: the terms alone. A snippet is a piece of its text, so
        # it cannot hold the phrase either — unless a term holds the "…" a
        # snippet may begin with.
        unsure = len(self.patterns) < 2 or any(ELLIPSIS in t for t in terms)
        self._scattered = (
            (self.patterns, self._folded_patterns)
            if unsure
            else (self.patterns[1:], self._folded_patterns[1:])
        )
        self._words = [f.word for f in finders if f.word is not None]  # one word a term
        if len(self._words) < len(finders):
            self._words = []
        self._bytes_words = [word.encode() for word in self._words]
        self._bytes_phrase = (
            re.compile(_SPACE_BYTES.join(re.escape(word) for word in self._bytes_words))
            if len(self._bytes_words) > 1
            else None
        )

    def _foldable(self, text: str) -> bool:
        return text.isascii() or not ("ı" in text or "ſ" in text or "İ" in text or "\u212a" in text)

    def fold(self, text: str) -> str | None:
        """The text to pass to the other methods: lower-cased if need be; None
        when the patterns must read the text itself."""
        if not self._folds:
            return text  # caseless terms: IGNORECASE matches them as they are
        if not self._fast or not self._foldable(text):
            return None
        try:  # ASCII letters only, like the UTF-8 bytes of measure_all
            return text.encode().lower().decode()
        except UnicodeError:  # a lone surrogate
            return None

    def measure_all(self, texts: Iterable[str]) -> list[tuple[Folded, bool, list[int]]]:
        """For each text: (its lower-cased form, phrase found?, matches of each
        term); the form is for :meth:`snippet`. One call for all, as this loop
        is most of a search's time after SQL."""
        if not (self._bytes_words and self._folds and self._fast):
            return [self._measure(text, self.fold(text)) for text in texts]
        words, phrase = self._bytes_words, self._bytes_phrase
        out: list[tuple[Folded, bool, list[int]]] = []
        append = out.append
        # _foldable inlined, one term and two terms unrolled: per text, the
        # Python around the C calls (encode, lower, count, search) was as
        # slow as they are
        if phrase is None:  # one term: the phrase is the term
            (word,) = words
            for text in texts:
                if text.isascii() or not (
                    "ı" in text or "ſ" in text or "İ" in text or "\u212a" in text
                ):
                    try:
                        folded = text.encode().lower()
                    except UnicodeError:  # a lone surrogate
                        append(self._measure(text, None))
                        continue
                    n = folded.count(word)
                    append((folded, n > 0, [n]))
                else:
                    append(self._measure(text, None))
            return out
        search = phrase.search
        first_word, *rest = words
        two = len(words) == 2
        second = words[1]
        for text in texts:
            if text.isascii() or not (
                "ı" in text or "ſ" in text or "İ" in text or "\u212a" in text
            ):
                try:
                    folded = text.encode().lower()
                except UnicodeError:  # a lone surrogate
                    append(self._measure(text, None))
                    continue
                # the phrase can only start where the first term does: its
                # search (a slower, regex scan) begins there, and the count
                # of the first term goes on from there too
                first = folded.find(first_word)
                if first < 0:
                    append((folded, False, [0, *(folded.count(w) for w in rest)]))
                elif two:  # two terms unrolled
                    counts = [folded.count(first_word, first), folded.count(second)]
                    append((folded, search(folded, first) is not None, counts))
                else:
                    counts = [folded.count(first_word, first), *(folded.count(w) for w in rest)]
                    append((folded, search(folded, first) is not None, counts))
            else:
                append(self._measure(text, None))
        return out

    def _bytes_anchor(self, folded: bytes, phrase_found: bool) -> tuple[int, int] | None:
        """:meth:`anchor` on the UTF-8 form :meth:`measure_all` gave, in bytes;
        None when there is no match."""
        if phrase_found:
            if self._bytes_phrase is not None:
                match = self._bytes_phrase.search(folded)
                if match is not None:
                    return match.span()
            else:
                (word,) = self._bytes_words
                at = folded.find(word)
                return (at, at + len(word)) if at >= 0 else None
        if self._bytes_phrase is None:  # one term: it is the phrase
            return None
        found = [(at, at + len(w)) for w in self._bytes_words if (at := folded.find(w)) >= 0]
        return min(found) if found else None

    def _measure(self, text: str, folded: str | None) -> tuple[Folded, bool, list[int]]:
        if folded is not None and self._words:
            counts = list(map(folded.count, self._words))
        else:
            counts = self.counts(text, folded)
        if len(counts) == 1:  # one term: the phrase is the term, just counted
            return folded, counts[0] > 0, counts
        return folded, self.phrase(text, folded) is not None, counts

    def phrase(self, text: str, folded: str | None) -> Span | None:
        """The first match of the phrase (of the term, when only one)."""
        if folded is None:
            match = self.patterns[0].search(text) if self.patterns else None
            return match.span() if match is not None else None
        return self._phrase.find(folded) if self._phrase is not None else None

    def counts(self, text: str, folded: str | None) -> list[int]:
        """Non-overlapping matches of each term."""
        if folded is None:
            return [len(p.findall(text)) for p in (self.patterns[1:] or self.patterns)]
        return [finder.count(folded) for finder in self._counted]

    def anchor(self, text: str, folded: str | None, *, phrase_found: bool = True) -> Span:
        """:func:`make_snippet`'s anchor: the phrase, else the earliest term
        (``phrase_found=False``: the phrase is known to be absent)."""
        if folded is None:
            return _anchor(text, self.patterns)
        phrase = self.phrase(text, folded) if phrase_found else None
        if phrase is not None:
            return phrase
        found = [span for f in self._anchors if (span := f.find(folded)) is not None]
        return min(found) if found else (0, 0)

    def snippet(
        self,
        text: str,
        folded: Folded,
        *,
        width: int = SNIPPET_WIDTH,
        phrase_found: bool = True,
    ) -> tuple[str, tuple[Span, ...]]:
        """:func:`make_snippet` of the text (``folded``: :meth:`fold` of it, or
        the form :meth:`measure_all` gave; ``phrase_found``: as for :meth:`anchor`)."""
        plain, folded_patterns = (
            (self.patterns, self._folded_patterns) if phrase_found else self._scattered
        )
        if len(text) <= width:  # the whole text, wherever the match is (_cut's result)
            snippet = " ".join(text.split())
        elif isinstance(folded, bytes):
            # found in the bytes, then counted in characters: only the text
            # before the match is decoded
            span = self._bytes_anchor(folded, phrase_found)
            if span is None:
                anchor: Span = (0, 0)
            elif len(folded) == len(text):  # ASCII: bytes are characters
                anchor = span
            else:
                start = len(folded[: span[0]].decode())
                anchor = (start, start + len(folded[span[0] : span[1]].decode()))
            snippet = _cut(text, anchor, width)
            # measure_all gives bytes only for foldable texts, and a piece of
            # a foldable text (with "…") is foldable: fold() without its checks
            return snippet, find_spans(snippet.encode().lower().decode(), folded_patterns)
        else:
            snippet = _cut(text, self.anchor(text, folded, phrase_found=phrase_found), width)
        small = self.fold(snippet)
        if small is None:
            return snippet, find_spans(snippet, plain)
        return snippet, find_spans(small, folded_patterns)


def find_spans(text: str, patterns: Sequence[re.Pattern[str]]) -> tuple[Span, ...]:
    """Every match of every pattern, overlapping ones merged, in order."""
    spans = [span for p in patterns for m in p.finditer(text) if (span := m.span())[1] > span[0]]
    if len(spans) < 2:
        return tuple(spans)
    spans.sort()
    return _merge(spans)


def _merge(spans: Sequence[Span]) -> tuple[Span, ...]:
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
    anchor: Span | None = None,
) -> tuple[str, tuple[Span, ...]]:
    """(snippet, highlight offsets in the snippet) for a text and the query terms
    (``patterns``: ``term_patterns(terms)``, when the caller has them already;
    ``anchor``: the match to show, when known — ``FoldedQuery.anchor``).
    Whitespace runs become one space, so the snippet is a single line."""
    if patterns is None:
        patterns = term_patterns(terms)
    if anchor is None:
        anchor = _anchor(text, patterns)
    snippet = _cut(text, anchor, width)
    return snippet, find_spans(snippet, patterns)


def _cut(text: str, anchor: Span, width: int) -> str:
    """The snippet: a window of the text around the anchor, on one line."""
    start, end = _window(text, anchor, width)
    body = " ".join(text[start:end].split())  # str.split: the whitespace of \s
    return (ELLIPSIS if start > 0 else "") + body + (ELLIPSIS if end < len(text) else "")


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
