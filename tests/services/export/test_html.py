"""The HTML export (PRODUCT.md §9): one self-contained page, nothing from a
message runs or loads, both themes reach 4.5:1 for every text/background pair
(computed from the page's own CSS), the print variant, and the content of a
thread with branches, thinking, a failed answer, Chinese text, code and a table."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.services.export.html import CSP, THEME_SCRIPT
from mira_desktop.services.export.links import is_safe_href

from .sample import FAILED_ERROR, QUESTION, SECRET_VALUES, THINKING, build_sample

ALLOWED_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "button",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "article",
    "header",
    "footer",
    "span",
    "div",
    "details",
    "summary",
    "p",
    "pre",
    "code",
    "a",
    "ul",
    "ol",
    "li",
    "em",
    "strong",
    "s",
    "blockquote",
    "br",
    "hr",
    "script",
}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.style = ""
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)
        if self._in_style:
            self.style += data


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


@pytest.fixture
async def page_html(services: Services) -> str:
    sample = await build_sample(services)
    return await services.exports.thread_html(sample.thread_id)


# --- safety ------------------------------------------------------------------


async def test_nothing_from_a_message_runs_or_loads(page_html: str) -> None:
    page = parse(page_html)
    assert {tag for tag, _ in page.tags} <= ALLOWED_TAGS
    assert page.scripts == [THEME_SCRIPT]  # our toggle, nothing else
    for tag, attrs in page.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        assert "src" not in attrs and "style" not in attrs, (tag, attrs)
        if "href" in attrs:
            assert is_safe_href(attrs["href"] or ""), attrs
    assert "&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;" in page_html
    assert "&lt;img src=x onerror=alert(1)&gt;" in page_html
    assert "[click me](javascript:alert(1))" in page_html  # shown as text
    assert 'href="javascript' not in page_html.lower()


async def test_page_is_self_contained_with_a_strict_policy(page_html: str) -> None:
    page = parse(page_html)
    metas = [a for t, a in page.tags if t == "meta" and a.get("http-equiv")]
    assert metas[0]["content"] == CSP and "default-src 'none'" in CSP
    assert "script-src 'sha256-" in CSP and "unsafe-inline" not in CSP.split("script-src")[1]
    assert not re.search(r"<link|@import|url\(", page_html)
    hrefs = [a["href"] for t, a in page.tags if t == "a"]
    assert hrefs == ["https://docs.python.org/3/tutorial/datastructures.html"]


async def test_the_toggle_is_hidden_without_scripts(page_html: str) -> None:
    page = parse(page_html)
    button = next(a for t, a in page.tags if t == "button")
    assert button["id"] == "theme-toggle" and "hidden" in button


# --- contrast ------------------------------------------------------------------


def _declarations(css: str, selector: str) -> dict[str, str]:
    start = css.index(selector + " {")
    body = css[start + len(selector) + 2 : css.index("}", start)]
    return dict(re.findall(r"--([a-z0-9-]+):\s*(#[0-9a-fA-F]{6})\s*;", body))


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _palettes(css: str) -> dict[str, dict[str, str]]:
    light = _declarations(css, ":root")
    dark = _declarations(css, ':root[data-theme="dark"]')
    assert _declarations(css, '  :root:not([data-theme="light"])') == dark  # system dark
    assert _declarations(css, '  :root:not([data-theme="light"]), :root[data-theme]') == light
    return {"light": light, "dark": dark}


async def test_every_text_background_pair_reaches_4_5_in_both_themes(page_html: str) -> None:
    css = parse(page_html).style
    checked = 0
    for theme, palette in _palettes(css).items():
        fgs = {k: v for k, v in palette.items() if k.endswith("-fg")}
        bgs = {k: v for k, v in palette.items() if k.endswith("-bg")}
        tokens = {k: v for k, v in palette.items() if k.startswith("tok-")}
        assert len(fgs) >= 6 and len(bgs) >= 6 and len(tokens) >= 8
        pairs = [(f, b) for f in fgs for b in bgs] + [(t, "code-bg") for t in tokens]
        for fg, bg in pairs:
            ratio = contrast(palette[fg], palette[bg])
            assert ratio >= 4.5, f"{theme}: --{fg} on --{bg} is {ratio:.2f}:1"
            checked += 1
    assert checked > 100


async def test_rules_only_use_palette_colours(page_html: str) -> None:
    """No colour outside the checked pairs: rules use var(--*-fg|tok-*) for text
    and var(--*-bg) for backgrounds."""
    css = parse(page_html).style
    rules = re.sub(r"--[a-z0-9-]+:\s*#[0-9a-fA-F]{6};", "", css)
    for prop, value in re.findall(r"(?<![-\w])(color|background(?:-color)?)\s*:\s*([^;}]+)", rules):
        value = value.strip()
        if prop == "color":
            assert re.fullmatch(r"var\(--(?:[a-z]+-fg|tok-[a-z]+)\)", value), value
        else:
            assert re.fullmatch(r"var\(--[a-z]+-bg\)", value), value


def test_contrast_formula_matches_known_values() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


# --- content ------------------------------------------------------------------


async def test_content_of_a_rich_thread(services: Services, page_html: str) -> None:
    html = page_html
    assert "<h1>列表推导式 &amp; &lt;tables&gt;</h1>" in html
    assert html.count('class="msg ') == 5  # U1, A1 (active) + A1b, U1b, A3 (other branches)
    assert QUESTION in html and THINKING in html
    assert '<details class="thinking"><summary>Thinking · 12.3 s</summary>' in html
    assert '<pre class="hl"><code data-lang="python">' in html
    assert '<span class="k">for</span>' in html  # pygments classes
    assert "<table>\n<thead>" in html and "<td>推导式</td>" in html
    assert "version 1/2" in html and "version 2/2" in html
    assert '<span class="badge failed">failed</span>' in html
    assert "Error (authentication):" in html and "Partial answer before the" in html
    assert "Other versions" in html and "Branch 1" in html and "Branch 2" in html
    assert "And dicts?" not in html and "1 in the trash" not in html  # trashed turn left out
    assert "2 in the trash" in html
    assert "notes.txt" in html


async def test_diagnostics_and_redaction_in_html(page_html: str) -> None:
    html = page_html
    for value in SECRET_VALUES:
        assert value not in html
    assert (
        "Tool call <code>web_fetch</code>" in html
        and "Tool call <code>bash</code> · executed" in html
    )
    assert "&quot;api_key&quot;: &quot;***&quot;" in html
    assert "export GITHUB_TOKEN=***" in html
    assert "model: qwen3:8b · provider: local · status: complete" in html
    assert "tokens: prompt 120, completion 80, reasoning ≈30 (estimated)" in html
    assert "thinking: 12.3 s" in html
    assert "Mira Desktop 0.1.0" in html and FAILED_ERROR["hint"].replace("'", "&#x27;") in html


async def test_print_variant(services: Services) -> None:
    sample = await build_sample(services)
    html = await services.exports.thread_html(sample.thread_id, for_print=True)
    assert "var(" not in html and "<script" not in html and 'id="theme-toggle"' not in html
    assert "prefers-color-scheme" not in html and "Content-Security-Policy" not in html
    assert '<div class="thinking"><div class="label">Thinking · 12.3 s</div>' in html
    assert "#ffffff" in html and THINKING in html


async def test_screen_page_prints_well(page_html: str) -> None:
    css = parse(page_html).style
    assert "@media print" in css and "@page" in css
    print_css = css[css.index("@media print") :]
    assert "#theme-toggle { display: none; }" in print_css
    assert "break-inside: avoid" in print_css and "pre-wrap" in print_css


async def test_images_are_embedded_so_the_page_stands_alone(services: Services) -> None:
    """A thread's image attachments are in the page (data: URLs its policy
    allows); one whose file is gone, or an SVG, is only named."""
    import base64
    import struct
    import zlib

    from mira_desktop.core.attachments import Attachment

    def png(rgb: tuple[int, int, int]) -> bytes:
        raw = b"\x00" + bytes(rgb) * 2
        rows = raw * 2

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")  # fmt: skip

    sample = await build_sample(services)
    red, blue = png((200, 0, 0)), png((0, 0, 200))
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    attached = []
    for name, data, mime in (("红.png", red, "image/png"), ("blue.png", blue, "image/png"), ("x.svg", svg, "image/svg+xml")):  # fmt: skip
        sha = await services.media.put(data, mime)
        attached.append((None, Attachment(sha256=sha, name=name, mime=mime, kind="image", size=len(data))))  # fmt: skip
    await services.media.attach(sample.u1b, attached)
    gone = services.data_dir / "media" / attached[1][1].sha256[:2] / attached[1][1].sha256
    gone.unlink()  # the blue one's file is lost

    html = await services.exports.thread_html(sample.thread_id)

    page = parse(html)
    images = [a for t, a in page.tags if t == "img"]
    assert [a["alt"] for a in images] == ["红.png"]
    assert images[0]["src"] == "data:image/png;base64," + base64.b64encode(red).decode()
    assert "x.svg" in html and "data:image/svg" not in html and "alert(1)</script>" not in html
    assert "img-src data:" in CSP
