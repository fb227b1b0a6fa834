"""Reasoning streamed as answer text, closed by a lone ``</think>``."""

from __future__ import annotations

import pytest

from mira_desktop.core.unopened_think import split_unopened_think

CASES = [
    ("Let me reason...</think>\n\nThe answer is 4.", ("Let me reason...", "The answer is 4.")),
    ("  weigh it\nup \n</think>The end", ("weigh it\nup", "The end")),
    ("only thought</think>\n", ("only thought", "")),
    ("Plain answer.", None),
    ("<think>a</think>b", None),  # opened: the stream's own splitter's business
    ("Close it with `</think>`.", None),  # an answer about the tags
    ("</think>Answer", None),  # nothing before the tag
    ("A <think> tag opens, </think> closes.", None),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[c[0][:24] for c in CASES])
def test_the_reasoning_before_a_lone_closing_tag_is_told_apart(
    text: str, expected: tuple[str, str] | None
) -> None:
    assert split_unopened_think(text) == expected
