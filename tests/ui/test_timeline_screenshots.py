"""Screenshots of a timeline with rich messages in a light and a dark palette.

The images land in ``tmp_path``; set ``MIRA_SCREENSHOT_DIR`` to keep them
(``timeline_light.png`` / ``timeline_dark.png``) for a person to look at. The
assertions catch the gross failures a person would see: nothing drawn, dark not
dark, the bubble invisible, text cut off at the bottom of a message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication

from mira_desktop.core.models import Message, MessageRole, MessageStatus, Usage
from mira_desktop.ui.timeline import TimelineView
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget

NOW = "2026-01-01T10:00:00Z"
ANSWER = """## Recursion in one minute

A function is **recursive** when it calls itself on a *smaller* input, see
[Wikipedia](https://en.wikipedia.org/wiki/Recursion).

1. a base case that stops
2. a step that shrinks the problem
   - `n - 1` for numbers

> Tail calls are not optimised in CPython.

| input | result |
|------:|:-------|
| 5 | 120 |
| 10 | 3628800 |

```python
def factorial(n: int) -> int:
    return 1 if n <= 1 else n * factorial(n - 1)
```

中文也可以：递归就是函数调用自身。
"""

_LIGHT = {"Window": "#f7f7f5", "Base": "#ffffff", "Text": "#1f2328", "Placeholder": "#5c6169",
          "Highlight": "#2f6feb", "Link": "#0b5f8a", "Mid": "#d0d4da"}  # fmt: skip
_DARK = {"Window": "#1e1f22", "Base": "#232428", "Text": "#e6e6e6", "Placeholder": "#a2a6ad",
         "Highlight": "#3b82f6", "Link": "#6cb6ff", "Mid": "#44464c"}  # fmt: skip


def _palette(colours: dict[str, str]) -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: "Window",
        QPalette.ColorRole.Base: "Base",
        QPalette.ColorRole.Button: "Base",
        QPalette.ColorRole.WindowText: "Text",
        QPalette.ColorRole.Text: "Text",
        QPalette.ColorRole.ButtonText: "Text",
        QPalette.ColorRole.PlaceholderText: "Placeholder",
        QPalette.ColorRole.Highlight: "Highlight",
        QPalette.ColorRole.Link: "Link",
        QPalette.ColorRole.Mid: "Mid",
    }
    for role, key in roles.items():
        palette.setColor(role, QColor(colours[key]))
    return palette


def _messages() -> list[Message]:
    def m(mid: str, role: MessageRole, text: str, **kw) -> Message:
        return Message(id=mid, thread_id="t", role=role, text=text, created_at=NOW, **kw)

    usage = Usage(prompt_tokens=1234, completion_tokens=456, reasoning_tokens=87)
    error = {"message": "The server refused the connection (HTTP 502).", "hint": "Start Ollama."}
    return [
        m("u1", MessageRole.USER, "Explain recursion with a short Python example, please."),
        m("a1", MessageRole.ASSISTANT, ANSWER, model="qwen3:8b", usage=usage,
          thinking="The user wants a short explanation.", thinking_ms=4200),
        m("u2", MessageRole.USER, "再来一个例子？"),
        m("a2", MessageRole.ASSISTANT, "Sure — here is", model="qwen3:8b",
          status=MessageStatus.STOPPED),
        m("u3", MessageRole.USER, "ok"),
        m("a3", MessageRole.ASSISTANT, "", model="gpt-4o", status=MessageStatus.FAILED, error=error),
    ]  # fmt: skip


def _luminance(image: QImage) -> float:
    small = image.scaled(48, 48)
    total = sum(small.pixelColor(x, y).lightnessF() for x in range(48) for y in range(48))
    return total / (48 * 48)


def _shoot(qtbot, tmp_path: Path, name: str, colours: dict[str, str], dark: bool) -> QImage:
    app = QApplication.instance()
    original = app.palette()
    app.setPalette(_palette(colours))
    try:
        view = TimelineView()
        qtbot.addWidget(view)
        view.set_dark(dark)
        view.resize(820, 1400)
        view.show()
        qtbot.waitExposed(view)
        view.set_messages(_messages())
        view.upsert_message(
            Message(id="a4", thread_id="t", role=MessageRole.ASSISTANT, text="",
                    created_at=NOW, model="deepseek-r1", status=MessageStatus.STREAMING)
        )  # fmt: skip
        view.append_thinking("a4", "Tail recursion: the recursive call is the last step.")
        view.flush_stream()
        qtbot.wait(30)
        _assert_nothing_cut(view)
        image = view.grab().toImage()
    finally:
        app.setPalette(original)
    image.save(str(tmp_path / f"timeline_{name}.png"))
    keep = os.environ.get("MIRA_SCREENSHOT_DIR")
    if keep:
        image.save(str(Path(keep) / f"timeline_{name}.png"))
    return image


def _assert_nothing_cut(view: TimelineView) -> None:
    for mid in view.message_ids():
        widget = view.message_widget(mid)
        if isinstance(widget, AssistantMessageWidget) and widget.body.isVisible():
            body = widget.body
            needed = body.document().size().height()
            assert body.height() >= needed - 1, (mid, body.height(), needed)
            assert body.geometry().bottom() <= widget.height()


@pytest.fixture
def shots(qtbot, tmp_path):
    light = _shoot(qtbot, tmp_path, "light", _LIGHT, dark=False)
    dark = _shoot(qtbot, tmp_path, "dark", _DARK, dark=True)
    return light, dark


def test_light_and_dark_screenshots(shots, tmp_path):
    light, dark = shots
    assert not light.isNull() and not dark.isNull()
    assert _luminance(light) > 0.8
    assert _luminance(dark) < 0.3
    assert (tmp_path / "timeline_light.png").stat().st_size > 10_000
    # The user bubble (top right) is tinted, not the page background.
    for image, colours in ((light, _LIGHT), (dark, _DARK)):
        bubble = image.pixelColor(image.width() - 40, 30)
        assert bubble != QColor(colours["Base"]), bubble.name()
