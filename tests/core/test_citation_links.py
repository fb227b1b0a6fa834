"""``[n]`` citations made links (core/citation_links.py): only numbers that
name a source, each number of a group its own link, never inside code, pre
or an existing link."""

from __future__ import annotations

import pytest

from mira_desktop.core.citation_links import link_citations


def href(n: int) -> str:
    return f"#s{n}"


def a(n: int, label: str | None = None) -> str:
    return f'<a href="#s{n}" style="text-decoration:none;">{label or f"[{n}]"}</a>'


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>Apples [1].</p>", f"<p>Apples {a(1)}.</p>"),
        ("<p>Both [1, 2]</p>", f"<p>Both [{a(1, '1')}, {a(2, '2')}]</p>"),
        ("<p>Range [1-3]</p>", f"<p>Range [{a(1, '1')}-{a(3, '3')}]</p>"),
        ("<p>Invented [9]</p>", "<p>Invented [9]</p>"),
        ("<p><code>x[1]</code> [2]</p>", f"<p><code>x[1]</code> {a(2)}</p>"),
        ("<pre><code>a[1]\n</code></pre>", "<pre><code>a[1]\n</code></pre>"),
        ('<p><a href="https://e.org">[1]</a></p>', '<p><a href="https://e.org">[1]</a></p>'),
        ("<p>中文 [2]。</p>", f"<p>中文 {a(2)}。</p>"),
    ],
)
def test_citations_become_links_to_their_sources(html: str, expected: str) -> None:
    assert link_citations(html, frozenset({1, 2, 3}), href) == expected


def test_without_sources_nothing_changes() -> None:
    assert link_citations("<p>[1]</p>", frozenset(), href) == "<p>[1]</p>"
