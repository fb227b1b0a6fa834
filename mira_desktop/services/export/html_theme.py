"""The stylesheet of the HTML export: a light and a dark palette written as CSS
custom properties, chosen by ``prefers-color-scheme`` or by the page's theme
toggle (``<html data-theme="light|dark">``), and the light palette for print.

Contrast rule (PRODUCT.md §9, checked by the tests from the CSS text): every
``--*-fg`` colour reaches 4.5:1 against every ``--*-bg`` colour of the same
palette, and every ``--tok-*`` (syntax highlighting) against ``--code-bg``.
Rules below the palettes only ever use ``var(--…-fg)`` / ``var(--tok-…)`` for
``color`` and ``var(--…-bg)`` for backgrounds, so no other pair exists.

``resolved_css`` swaps every ``var()`` for its light value and drops the
theme machinery, for renderers without custom properties (Qt's rich text,
used by the window's Print / Save as PDF)."""

from __future__ import annotations

import functools
import logging
import re

from pygments.token import (
    STANDARD_TYPES,
    Comment,
    Error,
    Generic,
    Keyword,
    Name,
    Number,
    Operator,
    String,
    _TokenType,
)

log = logging.getLogger(__name__)

Palette = dict[str, str]

LIGHT: Palette = {
    "page-bg": "#ffffff",
    "card-bg": "#f6f8fa",
    "user-bg": "#eef4ff",
    "code-bg": "#f3f4f6",
    "error-bg": "#fff0ee",
    "thinking-bg": "#faf8f2",
    "th-bg": "#eaeef2",
    "badge-bg": "#e8ecf0",
    "text-fg": "#1f2328",
    "muted-fg": "#555d66",
    "link-fg": "#0550ae",
    "accent-fg": "#6639ba",
    "error-fg": "#a40e26",
    "code-fg": "#1f2328",
    "border": "#d0d7de",
    "tok-keyword": "#b3141f",
    "tok-string": "#0a3069",
    "tok-comment": "#555d66",
    "tok-number": "#0550ae",
    "tok-function": "#6639ba",
    "tok-type": "#8a3200",
    "tok-builtin": "#0550ae",
    "tok-deleted": "#82071e",
    "tok-inserted": "#116329",
    "tok-error": "#a40e26",
}

DARK: Palette = {
    "page-bg": "#0d1117",
    "card-bg": "#161b22",
    "user-bg": "#172338",
    "code-bg": "#1c2128",
    "error-bg": "#2b1416",
    "thinking-bg": "#1b1a14",
    "th-bg": "#21262d",
    "badge-bg": "#262c36",
    "text-fg": "#e6edf3",
    "muted-fg": "#a0a8b2",
    "link-fg": "#6cb6ff",
    "accent-fg": "#d2a8ff",
    "error-fg": "#ff9b94",
    "code-fg": "#e6edf3",
    "border": "#3d444d",
    "tok-keyword": "#ff7b72",
    "tok-string": "#a5d6ff",
    "tok-comment": "#a0a8b2",
    "tok-number": "#79c0ff",
    "tok-function": "#d2a8ff",
    "tok-type": "#ffa657",
    "tok-builtin": "#79c0ff",
    "tok-deleted": "#ffa198",
    "tok-inserted": "#7ee787",
    "tok-error": "#ffa198",
}

#: Most specific first: the first category a token type falls in wins.
_TOKEN_GROUPS: tuple[tuple[_TokenType, str], ...] = (
    (Comment, "comment"),
    (Name.Function, "function"),
    (Name.Class, "type"),
    (Name.Builtin, "builtin"),
    (Name.Decorator, "builtin"),
    (Name.Tag, "keyword"),
    (Name.Attribute, "function"),
    (Keyword.Type, "type"),
    (Keyword, "keyword"),
    (Operator.Word, "keyword"),
    (String, "string"),
    (Number, "number"),
    (Generic.Deleted, "deleted"),
    (Generic.Inserted, "inserted"),
    (Generic.Heading, "keyword"),
    (Generic.Subheading, "keyword"),
    (Error, "error"),
)

_LAYOUT = """
*, *::before, *::after { box-sizing: border-box; }
html { background: var(--page-bg); color: var(--text-fg); }
body { margin: 0 auto; max-width: 860px; padding: 24px 16px 48px;
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC",
  "Microsoft YaHei", sans-serif; background: var(--page-bg); color: var(--text-fg); }
a { color: var(--link-fg); }
h1 { font-size: 1.6em; margin: 0 0 12px; line-height: 1.3; overflow-wrap: anywhere; }
h2 { font-size: 1.25em; margin: 32px 0 12px; }
h3.branch { font-size: 1.05em; color: var(--muted-fg); }
table { border-collapse: collapse; margin: 12px 0; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--border); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--th-bg); color: var(--text-fg); }
table.facts th { white-space: nowrap; }
.msg { border: 1px solid var(--border); border-radius: 10px; padding: 12px 16px; margin: 14px 0;
  background: var(--card-bg); color: var(--text-fg); }
.msg.user { background: var(--user-bg); }
.msg > .head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; margin-bottom: 6px; }
.who { font-weight: 600; color: var(--accent-fg); }
.badge { font-size: 0.8em; padding: 0 8px; border-radius: 999px; background: var(--badge-bg);
  color: var(--text-fg); }
.badge.failed, .badge.stopped { background: var(--error-bg); color: var(--error-fg); }
.plain { white-space: pre-wrap; overflow-wrap: anywhere; }
.body { overflow-wrap: anywhere; }
.body img { max-width: 100%; }
blockquote { margin: 8px 0; padding: 0 12px; border-left: 3px solid var(--border); color: var(--muted-fg); }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Noto Sans Mono", monospace;
  font-size: 0.92em; background: var(--code-bg); color: var(--code-fg); padding: 1px 4px; border-radius: 4px; }
pre { background: var(--code-bg); color: var(--code-fg); padding: 10px 12px; border-radius: 8px;
  overflow-x: auto; border: 1px solid var(--border); }
pre code { padding: 0; background: var(--code-bg); }
details.thinking, div.thinking { background: var(--thinking-bg); color: var(--text-fg);
  border-radius: 8px; padding: 6px 12px; margin: 6px 0; }
details.thinking > summary, div.thinking > .label { color: var(--muted-fg); cursor: pointer; }
.error { background: var(--error-bg); color: var(--error-fg); border-radius: 8px; padding: 8px 12px;
  margin: 8px 0; }
.tool { margin: 8px 0; }
.tool .label, .attachments, .sources, .diag, .meta, .note { color: var(--muted-fg); font-size: 0.85em; }
.diag { margin-top: 8px; }
.img-ref { color: var(--muted-fg); }
figure.image { margin: 8px 0; }
figure.image img { max-width: 100%; height: auto; border-radius: 6px; }
figure.image figcaption { color: var(--muted-fg); font-size: 0.85em; }
#theme-toggle { float: right; font: inherit; font-size: 0.85em; border: 1px solid var(--border);
  border-radius: 6px; padding: 2px 10px; background: var(--card-bg); color: var(--text-fg); cursor: pointer; }
"""

_PRINT = """
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  #theme-toggle { display: none; }
  .msg { break-inside: avoid-page; page-break-inside: avoid; }
  pre, .plain { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; }
  table { display: table; }
  h1, h2, h3 { break-after: avoid-page; page-break-after: avoid; }
  a[href^="http"]::after { content: " (" attr(href) ")"; font-size: 0.85em; color: var(--muted-fg); }
}
@page { margin: 16mm 14mm; }
"""


def _block(selector: str, palette: Palette, indent: str = "", scheme: str = "") -> str:
    lines = [f"{indent}  color-scheme: {scheme};"] if scheme else []
    lines += [f"{indent}  --{name}: {value};" for name, value in palette.items()]
    body = "\n".join(lines)
    return f"{indent}{selector} {{\n{body}\n{indent}}}"


def token_group(ttype: _TokenType) -> str | None:
    for parent, group in _TOKEN_GROUPS:
        if ttype in parent:
            return group
    return None


def token_css(scope: str = ".hl") -> str:
    """``.hl .k, .hl .kd { color: var(--tok-keyword) }`` … for pygments' classes."""
    groups: dict[str, list[str]] = {}
    for ttype, css_class in STANDARD_TYPES.items():
        group = token_group(ttype)
        if group and css_class:
            groups.setdefault(group, []).append(f"{scope} .{css_class}")
    lines = [f"{', '.join(sorted(s))} {{ color: var(--tok-{g}); }}" for g, s in groups.items()]
    lines.append(f"{scope} .c, {scope} .c1, {scope} .cm, {scope} .cs {{ font-style: italic; }}")
    return "\n".join(lines)


@functools.cache
def stylesheet() -> str:
    """The whole stylesheet of an exported page."""
    return "\n".join(
        [
            _block(":root", LIGHT, scheme="light"),
            "@media (prefers-color-scheme: dark) {",
            _block(':root:not([data-theme="light"])', DARK, "  ", scheme="dark"),
            "}",
            _block(':root[data-theme="dark"]', DARK, scheme="dark"),
            _LAYOUT.strip(),
            token_css(),
            _PRINT.strip(),
            "@media print {",
            _block(':root:not([data-theme="light"]), :root[data-theme]', LIGHT, "  ", "light"),
            "}",
        ]
    )


_VAR = re.compile(r"var\(--([a-z0-9-]+)\)")


@functools.cache
def resolved_css() -> str:
    """The light stylesheet without custom properties, media queries or the
    theme toggle (for Qt's rich-text printing)."""
    css = "\n".join([_LAYOUT.strip(), token_css()])
    return _VAR.sub(lambda m: LIGHT.get(m.group(1), "inherit"), css)
