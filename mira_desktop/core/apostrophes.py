"""Apostrophes in search terms: "don't" typed with a straight apostrophe
finds "don’t" written with a typographic one (models, imported ChatGPT
history and macOS's smart quotes write U+2019), and the other way round."""

from __future__ import annotations

import re

#: the straight apostrophe and the characters written for it: right and left
#: single quotation marks, the modifier letter apostrophe
APOSTROPHES = "'\u2019\u2018\u02bc"
_ANY = "[" + APOSTROPHES + "]"
_FIND = re.compile(_ANY)


def has_apostrophe(text: str) -> bool:
    return _FIND.search(text) is not None


def escape(part: str) -> str:
    """``re.escape(part)`` with each apostrophe matching any of them."""
    return "".join(_ANY if c in APOSTROPHES else re.escape(c) for c in part)


def variants(term: str) -> list[str]:
    """The term with its apostrophes all straight, then all typographic (the
    two ways a text writes them), or the term alone when it has none."""
    if not has_apostrophe(term):
        return [term]
    straight = _FIND.sub("'", term)
    curly = _FIND.sub("\u2019", term)
    return [straight, curly]
