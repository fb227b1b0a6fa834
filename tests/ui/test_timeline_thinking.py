"""The Thinking card (PRODUCT.md §6): live header, collapse one second after the
answer begins, re-opening, reload, display modes and Stop thinking."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from mira_desktop.core.models import Message, MessageRole, MessageStatus
from mira_desktop.ui.timeline import TimelineView
from tests.ui.timeline_support import shown_timeline

NOW = "2026-01-01T10:00:00Z"


def _msg(mid: str, **kw) -> Message:
    kw.setdefault("text", "")
    return Message(id=mid, thread_id="t1", role=MessageRole.ASSISTANT, created_at=NOW, **kw)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _make_view(qtbot, **kw) -> TimelineView:
    return shown_timeline(qtbot, (700, 500), **kw)


@pytest.fixture
def view(qtbot):
    return _make_view(qtbot)


def _card(view: TimelineView, mid: str = "a1"):
    widget = view.message_widget(mid)
    assert widget is not None
    return widget.thinking_card


def _start_thinking(view: TimelineView) -> None:
    view.set_messages([])
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING))
    view.append_thinking("a1", "Let me think about this")
    view.flush_stream()


def test_card_opens_while_thinking_and_collapses_a_second_after_the_answer(view, qtbot):
    _start_thinking(view)
    card = _card(view)
    assert card.isVisible() and card.is_expanded()
    assert card.header_text().startswith("Thinking")
    assert card.is_stop_visible()
    view.append_text("a1", "The answer")
    view.flush_stream()
    answered = time.monotonic()
    assert card.is_expanded()  # not yet: one second of grace
    assert not card.is_stop_visible()
    qtbot.waitUntil(lambda: not card.is_expanded(), timeout=3000)
    assert time.monotonic() - answered >= 0.9
    assert card.header_text().startswith("Thought for")
    qtbot.mouseClick(card.findChild(object, "thinkingToggle"), Qt.MouseButton.LeftButton)
    assert _card(view).is_expanded()


def test_header_counts_seconds_live(qtbot):
    clock = FakeClock()
    view = _make_view(qtbot, clock=clock)
    _start_thinking(view)
    card = _card(view)
    assert card.header_text() == "Thinking 0s"
    clock.now += 7
    qtbot.waitUntil(lambda: card.header_text() == "Thinking 7s", timeout=2500)
    clock.now += 60
    qtbot.waitUntil(lambda: card.header_text() == "Thinking 1m 7s", timeout=2500)


def test_an_answer_shown_again_mid_run_keeps_its_thinking_times(qtbot):
    """Its thread opened again half a second after the words began: thought
    for as long as it did, open until a second after the words began."""
    clock = FakeClock()
    view = _make_view(qtbot, clock=clock)
    streaming = _msg("a1", text="The ans", thinking="Weighing it", status=MessageStatus.STREAMING)
    view.set_messages([streaming])
    view.set_live_timing("a1", clock.now - 12, clock.now - 0.5)
    card = _card(view)
    assert card.is_expanded() and card.header_text() == "Thought for 11s"
    clock.now += 0.6
    qtbot.waitUntil(lambda: not _card(view).is_expanded(), timeout=2000)


def test_reloaded_message_shows_thought_for_collapsed_and_reopens(view, qtbot):
    view.set_messages([_msg("a1", text="Answer", thinking="Reasoning text", thinking_ms=12_400)])
    card = _card(view)
    assert card.isVisible() and not card.is_expanded()
    assert card.header_text() == "Thought for 12s"
    assert not card.is_stop_visible()
    before = view.message_widget("a1").height()
    qtbot.mouseClick(card.findChild(object, "thinkingToggle"), Qt.MouseButton.LeftButton)
    card = _card(view)
    assert card.is_expanded()
    assert "Reasoning text" in card.findChild(object, "thinkingText").toPlainText()
    assert view.message_widget("a1").height() > before


def test_display_modes(view, qtbot):
    _start_thinking(view)
    view.set_thinking_display("collapsed")
    card = _card(view)
    assert card.isVisible() and not card.is_expanded()
    assert card.is_stop_visible()  # still stoppable while only reasoning streams
    view.set_thinking_display("hidden")
    view.append_text("a1", "Answer")
    view.flush_stream()
    assert not _card(view).isVisible()
    view.set_thinking_display("expanded")
    assert _card(view).isVisible()
    with pytest.raises(ValueError):
        view.set_thinking_display("sideways")


def test_stop_thinking_emits_and_hides_the_button(view, qtbot):
    _start_thinking(view)
    button = _card(view).findChild(object, "stopThinkingButton")
    with qtbot.waitSignal(view.stop_thinking_requested) as blocker:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert blocker.args == ["a1"]
    assert not _card(view).is_stop_visible()


def test_stopped_while_thinking_freezes_the_timer(qtbot):
    clock = FakeClock()
    view = _make_view(qtbot, clock=clock)
    _start_thinking(view)
    clock.now += 3
    view.upsert_message(
        _msg("a1", thinking="Let me think about this", status=MessageStatus.STOPPED)
    )
    clock.now += 30
    view.set_thinking_display("expanded")  # a late refresh must not count on
    assert _card(view).header_text() == "Thought for 3s"


def test_a_collapsed_card_alone_gets_its_height_while_the_model_only_thinks(qtbot):
    """Collapsed (the default display) before any answer text: the card is
    the only thing in the answer's row, and nothing in it wraps — the row
    used to be measured 1 px high, so the header and Stop thinking were not
    seen at all while the model reasoned."""
    view = _make_view(qtbot)
    view.set_thinking_display("collapsed")
    _start_thinking(view)
    widget = view.message_widget("a1")
    card = _card(view)
    assert card.isVisible() and not card.is_expanded()
    header = card.findChild(object, "thinkingToggle")
    assert widget.height() >= card.y() + header.sizeHint().height()
    assert header.height() >= header.sizeHint().height()


def test_an_instant_thought_is_not_thought_for_0s(view) -> None:
    view.set_messages([_msg("a1", text="Answer", thinking="Quick", thinking_ms=300)])
    assert _card(view).header_text() == "Thought for a moment"
