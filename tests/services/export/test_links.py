"""Which links an HTML export makes clickable (PRODUCT.md §9): a table of
targets, checked both by the rule and in rendered pages (an unsafe target
must never reach an ``href``; its Markdown stays visible as text)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from mira_desktop.services.export.html_render import MarkdownRenderer
from mira_desktop.services.export.links import is_safe_href, link_kind

CASES: list[tuple[str, str | None]] = [
    ("https://example.com/a?b=1#c", "web"),
    ("http://example.com", "web"),
    ("HTTPS://EXAMPLE.COM", "web"),
    ("mailto:someone@example.com", "mailto"),
    ("tel:+8613800000000", "tel"),
    ("page.html", "relative"),
    ("../docs/a.md", "relative"),
    ("/absolute/path", "relative"),
    ("#section-2", "relative"),
    ("?q=1", "relative"),
    ("javascript:alert(1)", None),
    ("JavaScript:alert(1)", None),
    ("JAVASCRIPT:alert(1)", None),
    ("  javascript:alert(1)", None),
    ("\x01javascript:alert(1)", None),
    ("\x00javascript:alert(1)", None),
    ("java\tscript:alert(1)", None),
    ("java\nscript:alert(1)", None),
    ("java\u200bscript:alert(1)", None),
    ("&#106;avascript:alert(1)", None),
    ("&#x6A;avascript&colon;alert(1)", None),
    ("&amp;#106;avascript:alert(1)", None),
    ("%6Aavascript:alert(1)", None),
    ("javascript%3Aalert(1)", None),
    ("vbscript:msgbox(1)", None),
    ("VBScript:msgbox(1)", None),
    ("data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", None),
    ("data:image/png;base64,AAAA", None),
    ("file:///etc/passwd", None),
    ("FILE://C:/Windows/win.ini", None),
    ("ftp://example.com/x", None),
    ("chrome://settings", None),
    ("//evil.example/x", None),
    ("\\\\evil.example\\share", None),
    ("/\\evil.example", None),
    (" //evil.example", None),
    ("1x:y", None),
    ("", None),
]


@pytest.mark.parametrize(("url", "kind"), CASES, ids=[repr(c[0])[:40] for c in CASES])
def test_link_rule(url: str, kind: str | None) -> None:
    assert link_kind(url) == kind
    assert is_safe_href(url) is (kind is not None)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.attrs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs += [name for name, _ in attrs]
        self.hrefs += [value or "" for name, value in attrs if name == "href"]


MARKDOWN_FORMS = [
    "[x]({url})",
    "[x](<{url}>)",
    "<{url}>",
    "![x]({url})",
    '[x]({url} "title")',
    "[x][ref]\n\n[ref]: {url}",
]


@pytest.mark.parametrize("form", MARKDOWN_FORMS)
@pytest.mark.parametrize(("url", "kind"), [c for c in CASES if c[0] and "\n" not in c[0]])
def test_rendered_links(form: str, url: str, kind: str | None) -> None:
    # Markdown reads "\\" as an escaped backslash: double them to mean the target
    html = MarkdownRenderer().markdown(form.format(url=url.replace("\\", "\\\\")))
    parser = _Links()
    parser.feed(html)
    assert set(parser.attrs) <= {"href", "title", "rel", "target", "class"}
    for href in parser.hrefs:
        assert is_safe_href(href), (href, html)
    if kind is None:
        assert parser.hrefs == []
    elif " " not in url and "<" not in form:
        assert len(parser.hrefs) == 1


def test_only_web_links_open_a_new_tab_and_all_are_noopener() -> None:
    html = MarkdownRenderer().markdown("[a](https://x.io) [b](page.html) [c](mailto:a@b.c)")
    assert html.count('rel="noopener noreferrer nofollow"') == 3
    assert html.count('target="_blank"') == 1


def test_images_are_links_not_loads() -> None:
    html = MarkdownRenderer().markdown('![a "cat" <b>](https://img.example/cat.png)')
    assert "<img" not in html and "src=" not in html
    assert 'href="https://img.example/cat.png"' in html
    assert "&lt;b&gt;" in html or "cat" in html


def test_deeply_nested_text_is_kept_in_the_html_export() -> None:
    """markdown-it skipped what lay deeper than its nesting limit."""
    renderer = MarkdownRenderer()
    nested = "\n".join("  " * i + f"- item {i}" for i in range(30))
    html = renderer.markdown(nested)
    assert all(f"item {i}<" in html or f"item {i}\n" in html for i in range(30))
    assert "secret text" in renderer.markdown(">" * 30 + " secret text")
