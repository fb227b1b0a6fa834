"""Model text to safe HTML for the HTML export: markdown-it-py with raw HTML
off (``html=False``: a ``<script>`` in a message is shown as text), links
checked by ``links.is_safe_href`` (anything else stays as its Markdown text),
only ``href``/``title`` written on links, images shown as links to their
target (an export loads nothing from the network), and fenced code
highlighted by pygments into classes the stylesheet colours in both themes.

One :class:`MarkdownRenderer` per export job: it caches lexers, and is not
shared between threads. markdown-it and pygments are imported when the first
renderer is built (an export), not with this module (the app's start-up)."""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .links import is_safe_href, link_kind

if TYPE_CHECKING:
    from markdown_it.token import Token
    from pygments.lexer import Lexer

log = logging.getLogger(__name__)

_REL = "noopener noreferrer nofollow"


def escape(text: str) -> str:
    return html.escape(text, quote=True)


def _link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    title = token.attrGet("title")
    extra = f' title="{escape(str(title))}"' if title else ""
    target = ' target="_blank"' if link_kind(href) == "web" else ""
    return f'<a href="{escape(href)}"{extra} rel="{_REL}"{target}>'


def _image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    src = str(token.attrGet("src") or "")
    return (
        f'<span class="img-ref">[image: <a href="{escape(src)}" rel="{_REL}">'
        f"{escape(alt)}</a>]</span>"
    )


class MarkdownRenderer:
    def __init__(self) -> None:
        from markdown_it import MarkdownIt
        from pygments.formatters import HtmlFormatter

        from ..markdown_depth import keep_deep_text

        self._lexers: dict[str, Lexer] = {}
        self._formatter = HtmlFormatter(nowrap=True)
        md = MarkdownIt(
            "commonmark",
            {"html": False, "linkify": False, "typographer": False, "highlight": self.code},
        ).enable(["table", "strikethrough"])
        keep_deep_text(md)  # text nested deeper than markdown-it's limit is kept
        md.validateLink = is_safe_href  # type: ignore[method-assign]
        md.add_render_rule("link_open", _link_open)
        md.add_render_rule("image", _image)
        self._md = md

    def _lexer(self, lang: str) -> Lexer:
        from pygments.lexers import TextLexer, get_lexer_by_name
        from pygments.util import ClassNotFound

        key = lang.lower()
        if key not in self._lexers:
            try:
                self._lexers[key] = get_lexer_by_name(key, stripnl=False) if key else TextLexer()
            except ClassNotFound:
                self._lexers[key] = TextLexer()
        return self._lexers[key]

    def code(self, source: str, lang: str, attrs: str = "") -> str:
        """A highlighted ``<pre>`` block (markdown-it's ``highlight`` hook)."""
        from pygments import highlight

        body = highlight(source, self._lexer(lang.strip()), self._formatter)
        label = f' data-lang="{escape(lang)}"' if lang else ""
        return f'<pre class="hl"><code{label}>{body}</code></pre>\n'

    def markdown(self, text: str) -> str:
        return self._md.render(text)


def plain(text: str) -> str:
    """Text shown as typed (user messages, thinking, tool output)."""
    return f'<div class="plain">{escape(text)}</div>'
