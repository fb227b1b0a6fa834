"""What a search result shows: snippets without their Markdown (highlights
moved with the text), and titles and snippets that do not fit end in "…"
instead of being clipped mid-character."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetricsF

from mira_desktop.ui.search.search_results import fitted_text
from mira_desktop.ui.search.snippet_text import plain_markdown


def marked(text: str, spans) -> list[str]:  # type: ignore[no-untyped-def]
    return [text[a:b] for a, b in spans]


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ("## Recursion in one minute", "Recursion in one minute"),
        ("A function is **recursive** when", "A function is recursive when"),
        ("see [Wikipedia](https://en.wikipedia.org/wiki/Recursion).", "see Wikipedia."),
        ("```python\ndef f(n):\n```", "python\ndef f(n):\n"),
        ("Use `n - 1` here", "Use n - 1 here"),
        ("> quoted\n- item one\n* item two", "quoted\n• item one\n• item two"),
        ("~~old~~ new and snake_case stays", "old new and snake_case stays"),
        ("2 * 3 = 6, a*b", "2 * 3 = 6, a*b"),
        ("数据库 **索引** 🙂 ok", "数据库 索引 🙂 ok"),
        # code shows as written: underscores and stars inside are not marks
        ("edit `__init__` and `a**b**c`", "edit __init__ and a**b**c"),
        (
            "```py\nclass A:\n    def __init__(self): ...\n```",
            "py\nclass A:\n    def __init__(self): ...\n",
        ),
        ("my__var and __bold__ text", "my__var and bold text"),
        ("a cut fence ```python def f", "a cut fence python def f"),
    ],
)
def test_markdown_marks_are_removed(source: str, shown: str) -> None:
    assert plain_markdown(source)[0] == shown


def test_highlights_move_with_the_text_they_cover() -> None:
    text = "## The **recursive** call, see [recursion](https://x.org/recursion)"
    address = text.index("x.org/") + len("x.org/")
    spans = [(9, 18), (32, 41), (address, address + 9)]  # the last inside the address
    assert marked(text, spans) == ["recursive", "recursion", "recursion"]
    shown, moved = plain_markdown(text, spans)
    assert shown == "The recursive call, see recursion"
    assert marked(shown, moved) == ["recursive", "recursion"]  # the address's is gone


def test_fitting_text_elides_instead_of_clipping(qapp) -> None:  # type: ignore[no-untyped-def]
    font = QFont()
    metrics = QFontMetricsF(font)
    title = "这是一个非常非常长的中文标题，用来检查搜索结果里的标题是否会被正确截断而不是直接切掉"
    width = metrics.horizontalAdvance(title) / 3
    shown, spans = fitted_text(title, ((2, 4), (40, 44)), font, width, 1)
    assert shown.endswith("…") and len(shown) < len(title)
    assert metrics.horizontalAdvance(shown) <= width + 1
    assert spans == ((2, 4),)  # the highlight past the cut is gone
    assert fitted_text("short", ((0, 5),), font, 400, 1) == ("short", ((0, 5),))
    snippet = "words that wrap " * 30
    shown, _ = fitted_text(snippet, (), font, 200, 2)
    assert shown.endswith("…") and len(shown) < len(snippet)
    assert fitted_text("two words", (), font, 200, 2)[0] == "two words"
