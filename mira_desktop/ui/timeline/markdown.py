"""Markdown → Qt rich-text HTML for the timeline.

Owns the translation of model output (CommonMark + tables + strikethrough, parsed
by markdown-it-py with raw HTML disabled) into the HTML subset that
``QTextDocument`` understands: headings, lists, tables, block quotes, links (only
http/https/mailto become anchors, anything else stays text), inline code and
fenced code blocks highlighted by pygments with inline styles. Every code block
carries a "Copy" anchor ``copy-code:N``; :func:`render_markdown_blocks` returns
the raw code of block N so the view can put it on the clipboard. Half-written
markdown (an unclosed fence while streaming) renders as a code block.

The parser is memoised, and the highlighted blocks are kept up to a size
(``code_highlight.py``), so that re-rendering a growing answer every ~50 ms
only re-highlights the block that is still changing.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

from .code_highlight import highlight

if TYPE_CHECKING:  # imported on first use (~40 ms): the first window needs neither
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

log = logging.getLogger(__name__)

#: Code-block panel colours (background, border, muted label) per theme. They go
#: with the pygments style, which is what ``dark`` selects.
_CODE_PANEL = {
    False: ("#f4f5f7", "#dcdfe4", "#6b7280"),
    True: ("#161b22", "#30363d", "#9aa4b1"),
}
_INLINE_CODE_BG = {False: "#eceef1", True: "#2d333b"}
_TABLE_BORDER = {False: "#d0d4da", True: "#444c56"}
_ALLOWED_SCHEMES = ("http://", "https://", "mailto:")
_URL_RE = re.compile(r"\bhttps?://[^\s<>\"'`]+", re.IGNORECASE)
#: An unbroken run at least this long (a long token, base64, minified code)
#: gets a zero-width break opportunity every ``BREAK_EVERY`` characters: Qt's
#: line breaking otherwise searches each line's break to the end of the run,
#: a cost growing with the square of its length (100 KB: seconds). Short
#: chunks keep the lines full. Words, names and most links stay whole (find
#: in the thread matches them); copying strips the breaks (``RichTextView``).
LONG_RUN = 160
BREAK_EVERY = 16
ZERO_WIDTH_SPACE = "\u200b"
_LONG_TEXT_RUN_RE = re.compile(rf"[^\s\u200b]{{{LONG_RUN},}}")
#: in HTML: an entity counts as one character and is never cut
_LONG_HTML_RUN_RE = re.compile(rf"(?:[^\s<>&\u200b]|&#?\w+;){{{LONG_RUN},}}")
_HTML_UNIT_RE = re.compile(r"&#?\w+;|.", re.DOTALL)
_TAG_RE = re.compile(r"(<[^>]*>)")
_TRAILING_PUNCT = ".,;:!?)]}'\""


@dataclass(frozen=True, slots=True)
class RenderedMarkdown:
    """The HTML of one text and the raw code of each of its code blocks, in the
    order of their ``copy-code:N`` anchors."""

    html: str
    code_blocks: tuple[str, ...]


def render_markdown(text: str, *, dark: bool) -> str:
    """Render markdown ``text`` to Qt rich-text HTML."""
    return render_markdown_blocks(text, dark=dark).html


@dataclass(frozen=True, slots=True)
class MarkdownSplit:
    """A text rendered as two parts: the top-level blocks that appending more text
    can no longer change (``stable``, covering ``stable_chars`` characters of the
    source) and the last block, which may still grow."""

    stable: RenderedMarkdown
    stable_chars: int
    tail: RenderedMarkdown


def render_markdown_blocks(text: str, *, dark: bool) -> RenderedMarkdown:
    """Render ``text`` and also return the raw code of its code blocks."""
    env = _new_env(dark, 0)
    md = _parser(deep=_may_nest_deep(text))
    # Qt turns the newline after the last block into a trailing space.
    body = md.renderer.render(md.parse(text, env), md.options, env).strip()
    return RenderedMarkdown(html=break_long_runs_html(body), code_blocks=tuple(env["code_blocks"]))


def break_long_runs(text: str) -> str:
    """Plain ``text`` with a zero-width break opportunity every ``BREAK_EVERY``
    characters of its long unbroken runs (see ``LONG_RUN``)."""
    if not _may_have_long_run(text):
        return text
    return _LONG_TEXT_RUN_RE.sub(lambda m: _chunked(m.group(0)), text)


def break_long_runs_html(body: str) -> str:
    """``break_long_runs`` for HTML: only in text between tags, entities whole."""
    if not _may_have_long_run(body) or not _LONG_HTML_RUN_RE.search(body):
        return body  # the usual answer
    parts = _TAG_RE.split(body)
    for i in range(0, len(parts), 2):  # the even parts are text, the odd ones tags
        parts[i] = _LONG_HTML_RUN_RE.sub(
            lambda m: _chunked(_HTML_UNIT_RE.findall(m.group(0))), parts[i]
        )
    return "".join(parts)


def _may_have_long_run(text: str) -> bool:
    """Whether ``text`` holds ``LONG_RUN`` characters without a space (tags
    and entities included: a cheap, C-speed look before the exact regex,
    which costs ~0.2 ms on each step of a streaming answer's tail)."""
    return len(text) >= LONG_RUN and max(map(len, text.split()), default=0) >= LONG_RUN


def _chunked(units: Sequence[str]) -> str:
    return ZERO_WIDTH_SPACE.join(
        "".join(units[i : i + BREAK_EVERY]) for i in range(0, len(units), BREAK_EVERY)
    )


def render_markdown_split(text: str, *, dark: bool, code_base: int = 0) -> MarkdownSplit:
    """Render ``text`` split before its last top-level block, so that a growing
    answer only re-renders that block. Code blocks are numbered from
    ``code_base`` (the number of code blocks in the text before ``text``).
    ``text`` must use ``\n`` line ends."""
    md = _parser(deep=_may_nest_deep(text))
    env = _new_env(dark, code_base)
    tokens = md.parse(text, env)
    starts = [i for i, t in enumerate(tokens) if t.level == 0 and t.nesting >= 0]
    split_map = tokens[starts[-1]].map if len(starts) >= 2 else None
    if split_map is None:
        tail_html = break_long_runs_html(md.renderer.render(tokens, md.options, env))
        tail = RenderedMarkdown(tail_html, tuple(env["code_blocks"]))
        return MarkdownSplit(RenderedMarkdown("", ()), 0, tail)
    cut = starts[-1]
    stable_html = break_long_runs_html(md.renderer.render(tokens[:cut], md.options, env))
    stable_code = tuple(env["code_blocks"])
    env["code_blocks"] = []
    env["code_base"] = code_base + len(stable_code)
    tail_html = break_long_runs_html(md.renderer.render(tokens[cut:], md.options, env))
    return MarkdownSplit(
        stable=RenderedMarkdown(stable_html, stable_code),
        stable_chars=_line_offset(text, split_map[0]),
        tail=RenderedMarkdown(tail_html, tuple(env["code_blocks"])),
    )


def warm_up() -> None:
    """Build the parser and the most common lexer ahead of the first message."""
    render_markdown_blocks("# a\n\n`b` [c](https://d)\n\n```python\nx = 1\n```", dark=False)


def is_safe_link(href: str) -> bool:
    """Only web and mail links are ever clickable in model output."""
    return href.strip().lower().startswith(_ALLOWED_SCHEMES)


def _new_env(dark: bool, code_base: int) -> dict[str, Any]:
    return {"dark": dark, "code_blocks": [], "code_base": code_base, "links": []}


def _line_offset(text: str, line: int) -> int:
    """Character offset of the start of 0-based ``line`` in ``text``."""
    pos = 0
    for _ in range(line):
        found = text.find("\n", pos)
        if found < 0:
            return len(text)
        pos = found + 1
    return pos


#: a line's leading markers and indentation (``>``, list markers, spaces):
#: as long as this, the text may nest deep enough for ``keep_deep_text``
_DEEP_PREFIX_RE = re.compile(r"^[ \t>*+\-0-9.)]{12,}", re.MULTILINE)


def _may_nest_deep(text: str) -> bool:
    """Whether ``text`` could nest as deep as ``markdown_depth.DEEPEST_LEVEL``
    (16 levels need 8 nested lists, each indented, or 16 ``>``): only then
    does the parse run the rule keeping deep text — a Python call at every
    block, which made each streaming step ~10% dearer (the stall target)."""
    return _DEEP_PREFIX_RE.search(text) is not None


@lru_cache(maxsize=2)
def _parser(*, deep: bool = True) -> MarkdownIt:
    from markdown_it import MarkdownIt

    from mira_desktop.services.markdown_depth import MAX_NESTING, keep_deep_text

    md = MarkdownIt("commonmark", {"html": False, "breaks": False})
    md.enable(["table", "strikethrough"])
    if deep:
        keep_deep_text(md)  # text nested deeper than markdown-it's limit is kept
    else:
        md.options["maxNesting"] = MAX_NESTING  # the same limit, without the rule
    rules = {
        "fence": _render_fence,
        "code_block": _render_fence,
        "code_inline": _render_code_inline,
        "link_open": _render_link_open,
        "link_close": _render_link_close,
        "image": _render_image,
        "text": _render_text,
        "table_open": _render_table_open,
        "th_open": _render_cell_open,
        "td_open": _render_cell_open,
        "heading_open": _render_heading_open,
        "bullet_list_open": _render_list_open,
        "ordered_list_open": _render_list_open,
    }
    for name, func in rules.items():
        md.add_render_rule(name, func)
    return md


# -- render rules (markdown-it calls them as methods of its renderer) ---------------


def _render_fence(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]
) -> str:
    token = tokens[idx]
    lang = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    code = token.content
    number = env["code_base"] + len(env["code_blocks"])
    env["code_blocks"].append(code.removesuffix("\n"))
    return _code_block_html(code, lang, number, env["dark"])


def _render_code_inline(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]
) -> str:
    bg = _INLINE_CODE_BG[env["dark"]]
    code = html.escape(tokens[idx].content, quote=False)
    return f'<code style="background-color:{bg};">&#8202;{code}&#8202;</code>'


def _render_link_open(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]
) -> str:
    href = str(tokens[idx].attrGet("href") or "")
    safe = is_safe_link(href)
    env["links"].append(safe)
    return f'<a href="{html.escape(href)}">' if safe else ""


def _render_link_close(
    _self: Any, _tokens: Sequence[Token], _idx: int, _options: Any, env: dict[str, Any]
) -> str:
    safe = env["links"].pop() if env["links"] else False
    return "</a>" if safe else ""


def _render_image(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]
) -> str:
    # Remote or local images from model output are never loaded; show a link instead.
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = token.content or src
    label = html.escape(QCoreApplication.translate("Timeline", "Image: {0}").format(alt))
    if src.lower().startswith(("http://", "https://")):
        return f'<a href="{html.escape(src)}">{label}</a>'
    return label


def _render_text(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, env: dict[str, Any]
) -> str:
    content = tokens[idx].content
    if env["links"] or "://" not in content:
        return html.escape(content, quote=False)
    return _autolink(content)


def _render_table_open(
    _self: Any, _tokens: Sequence[Token], _idx: int, _options: Any, env: dict[str, Any]
) -> str:
    border = _TABLE_BORDER[env["dark"]]
    return (
        '<table border="1" cellspacing="0" cellpadding="6" '
        f'style="border-collapse:collapse; border-style:solid; border-color:{border}; '
        'margin-top:6px; margin-bottom:6px;">\n'
    )


def _render_cell_open(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: dict[str, Any]
) -> str:
    token = tokens[idx]
    style = str(token.attrGet("style") or "")
    align = style.removeprefix("text-align:") if style.startswith("text-align:") else ""
    tag = token.tag
    return f'<{tag} align="{align}">' if align else f"<{tag}>"


_HEADING_SIZES = {"h1": "x-large", "h2": "large", "h3": "medium"}


def _render_heading_open(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: dict[str, Any]
) -> str:
    tag = tokens[idx].tag
    size = _HEADING_SIZES.get(tag, "medium")
    return f'<{tag} style="font-size:{size}; margin-top:14px; margin-bottom:6px;">'


def _render_list_open(
    _self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: dict[str, Any]
) -> str:
    # Qt gives lists paragraph-sized margins; nested lists should hug their item.
    token = tokens[idx]
    margin = 0 if token.level > 0 else 4
    start = token.attrGet("start")
    start_attr = f' start="{int(start)}"' if start is not None else ""
    style = f"margin-top:{margin}px; margin-bottom:{margin}px;"
    return f'<{token.tag}{start_attr} style="{style}">'


# -- helpers -----------------------------------------------------------------------


def _autolink(text: str) -> str:
    parts: list[str] = []
    last = 0
    for match in _URL_RE.finditer(text):
        url = match.group(0).rstrip(_TRAILING_PUNCT)
        end = match.start() + len(url)
        parts.append(html.escape(text[last : match.start()], quote=False))
        parts.append(f'<a href="{html.escape(url)}">{html.escape(url, quote=False)}</a>')
        last = end
    parts.append(html.escape(text[last:], quote=False))
    return "".join(parts)


def _code_block_html(code: str, lang: str, number: int, dark: bool) -> str:
    bg, border, muted = _CODE_PANEL[dark]
    label = html.escape(lang) if lang else "&nbsp;"
    copy = html.escape(QCoreApplication.translate("Timeline", "Copy"))
    body = highlight(code.rstrip("\n"), lang.lower(), dark)
    return (
        f'<table width="100%" cellspacing="0" cellpadding="8" border="1" '
        f'style="border-collapse:collapse; border-style:solid; border-color:{border}; '
        f'margin-top:6px; margin-bottom:8px;" bgcolor="{bg}">'
        f'<tr><td><table width="100%" cellspacing="0" cellpadding="0"><tr>'
        f'<td><span style="color:{muted}; font-size:small;">{label}</span></td>'
        f'<td align="right"><a href="copy-code:{number}" style="font-size:small; '
        f'text-decoration:none;">{copy}</a></td></tr></table>'
        f'<pre style="white-space:pre-wrap; margin-top:4px; margin-bottom:0px;">{body}</pre>'
        "</td></tr></table>\n"
    )
