"""The code blocks of the timeline's Markdown as HTML: highlighted by
pygments (imported on first use) when their language is known, else plain;
and the blocks made kept, so that a finished block of a streaming answer,
or a row rendered again, is not highlighted again.

They are kept by size, not by count alone. A block's HTML is several times
its code (about 4× for Python, and two bytes a character once it holds one
character beyond Latin-1), a block may have up to ``MAX_HIGHLIGHT_CHARS``
characters highlighted (more are shown plain, as large), and a streamed
block leaves an entry at each step (its growing beginning): the 512 blocks
kept before could reach gigabytes over a day of long code answers. Now at
most ``KEPT_CHARS`` characters of code and HTML together are kept (a few
MB), the least recently used going first; a block larger than a quarter
of that is made again when asked for. Used on the Qt thread only."""

from __future__ import annotations

import html
import logging
from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported on first use (~40 ms): the first window needs neither
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer

log = logging.getLogger(__name__)

LIGHT_CODE_STYLE = "default"
DARK_CODE_STYLE = "github-dark"
MAX_HIGHLIGHT_CHARS = 200_000
#: characters of code and HTML kept, all blocks together
KEPT_CHARS = 4_000_000
#: blocks kept at most (many short ones)
KEPT_BLOCKS = 512

_Key = tuple[str, str, bool]  # code, language, dark


class KeptBlocks:
    """The HTML of the blocks made last, up to ``max_chars`` characters of
    code and HTML together and ``max_blocks`` blocks."""

    def __init__(self, max_chars: int = KEPT_CHARS, max_blocks: int = KEPT_BLOCKS) -> None:
        self._max_chars = max_chars
        self._max_blocks = max_blocks
        self._kept: OrderedDict[_Key, str] = OrderedDict()
        self._chars = 0

    def get(self, key: _Key) -> str | None:
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def put(self, key: _Key, made: str) -> None:
        size = len(key[0]) + len(made)
        if size > self._max_chars // 4 or key in self._kept:
            return
        self._kept[key] = made
        self._chars += size
        while self._chars > self._max_chars or len(self._kept) > self._max_blocks:
            (code, _, _), dropped = self._kept.popitem(last=False)
            self._chars -= len(code) + len(dropped)

    def chars(self) -> int:
        """Characters of code and HTML kept (for tests and benchmarks)."""
        return self._chars

    def __len__(self) -> int:
        return len(self._kept)


kept = KeptBlocks()


def highlight(code: str, lang: str, dark: bool) -> str:
    """The HTML of one block (kept: see the module docstring)."""
    key = (code, lang, dark)
    made = kept.get(key)
    if made is None:
        made = _highlight(code, lang, dark)
        kept.put(key, made)
    return made


def _highlight(code: str, lang: str, dark: bool) -> str:
    lexer = _lexer(lang) if lang and len(code) <= MAX_HIGHLIGHT_CHARS else None
    if lexer is None:
        return _plain_code(code, dark)
    from pygments import highlight as pygments_highlight

    out = pygments_highlight(code, lexer, _formatter(dark))
    return out.rstrip("\n")


def _plain_code(code: str, dark: bool) -> str:
    colour = "#e6edf3" if dark else "#1f2328"
    return f'<span style="color:{colour};">{html.escape(code, quote=False)}</span>'


@lru_cache(maxsize=64)
def _lexer(lang: str) -> Lexer | None:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        log.debug("no pygments lexer for %r; code shown plain", lang)
        return None


@lru_cache(maxsize=2)
def _formatter(dark: bool) -> HtmlFormatter:
    from pygments.formatters import HtmlFormatter

    style = DARK_CODE_STYLE if dark else LIGHT_CODE_STYLE
    return HtmlFormatter(style=style, noclasses=True, nowrap=True)
