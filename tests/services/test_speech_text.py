"""What of an answer's Markdown is read aloud, and in which language."""

from __future__ import annotations

from mira_desktop.services.speech_text import language_of, speakable


def test_marks_code_and_links_are_not_spoken_but_their_words_are() -> None:
    spoken = speakable(
        "# Plan\n\nUse **bold** and _it_ with a [guide](https://x.org/a_(b)) and `pip` [1][2].\n\n"
        "```python\nprint('secret')\n```\n\n| Name | Size |\n|---|:--:|\n| a.txt | 3 KB |\n\n"
        "- one\n- [x] two\n1. three\n\n> quoted\n\n---\n\n![chart of sales](c.png) at <https://e.com> "
        "and snake_case_name, ***both*** <b>tag</b>."
    )
    assert spoken.text.splitlines() == [
        "Plan",
        "",
        "Use bold and it with a guide and pip.",
        "",
        "Name, Size",
        "a.txt, 3 KB",
        "",
        "one",
        "two",
        "three",
        "",
        "quoted",
        "",
        "chart of sales at and snake_case_name, both tag.",
    ]
    assert spoken.language == "en" and not spoken.truncated


def test_an_unclosed_fence_and_math_are_left_out() -> None:
    assert speakable("Before $$x^2$$ after.\n\n```\nstill code").text == "Before after."


def test_the_voice_follows_the_main_script() -> None:
    assert language_of("你好，我们今天讨论 Python 的列表推导式。") == "zh"
    assert language_of("Use the 数据库 module to read files.") == "en"
    assert language_of("") == "en"
    assert speakable("**结论**：可以。").language == "zh"


def test_a_very_long_answer_is_cut_at_a_sentence_end() -> None:
    text = " ".join(f"Sentence number {n} ends here." for n in range(100))
    spoken = speakable(text, limit=200)
    assert spoken.truncated and len(spoken.text) <= 200 and spoken.text.endswith("here.")
    chinese = speakable("这是一句话。" * 100, limit=50)
    assert chinese.truncated and chinese.text.endswith("。") and len(chinese.text) <= 50
