"""Spare row widgets: the timeline builds skeletons of questions and answers
while idle (not while a run starts) and opens a thread with them; a row made
from a spare is the same as a new one (its text, its kind, its signals, its
pixels, also after a theme and font change), and a language change replaces
the spares, whose strings are in the old language."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QToolButton

from mira_desktop.core.models import Message, MessageRole, MessageStatus
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.timeline import TimelineView
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.message_widget import MessageWidget
from mira_desktop.ui.timeline.row_pool import HOLD_MS, SPARES
from mira_desktop.ui.timeline.user_bubble import UserMessageWidget
from tests.ui.timeline_support import shown_timeline

NOW = "2026-01-01T10:00:00Z"
FULL = sum(SPARES.values())


def _msg(mid: str, role: MessageRole = MessageRole.ASSISTANT, text: str = "", **kw) -> Message:
    return Message(id=mid, thread_id="t1", role=role, text=text, created_at=NOW, **kw)


def _thread(count: int) -> list[Message]:
    return [
        _msg(f"m{i:03d}", MessageRole.USER if i % 2 == 0 else MessageRole.ASSISTANT, f"text {i}")
        for i in range(count)
    ]


@pytest.fixture
def view(qtbot):
    widget = shown_timeline(qtbot, stream_interval_ms=0)
    widget.warm_up()
    qtbot.waitUntil(lambda: widget.spare_row_count() == FULL)
    return widget


def _spares(view: TimelineView) -> list[MessageWidget]:
    """The message widgets under the view that show no row."""
    rows = {view.message_widget(mid) for mid in view.message_ids()}
    return [w for w in view.findChildren(MessageWidget) if w not in rows]


def test_spares_are_hidden_and_a_thread_opens_with_them(view, qtbot):
    spares = _spares(view)
    assert len(spares) == FULL and not any(w.isVisible() for w in spares)
    assert view.live_widget_count() == 0
    messages = _thread(8)
    view.set_messages(messages)
    rows = [view.message_widget(m.id) for m in messages]
    assert all(w is not None and w.isVisible() for w in rows)
    assert set(rows) <= set(spares)  # every row on screen came from a spare
    for message, widget in zip(messages, rows, strict=True):
        assert widget.message_id == message.id
        kind = UserMessageWidget if message.role == MessageRole.USER else AssistantMessageWidget
        assert isinstance(widget, kind)
    assert rows[0].text_view.toPlainText() == "text 0"
    assert rows[1].body.toPlainText() == "text 1"
    qtbot.waitUntil(lambda: view.spare_row_count() == FULL)  # made again while idle


def test_spares_wait_while_a_run_starts(view, qtbot):
    """A new message (a run starting: its rows, reads, paints) holds the
    making of spares for a moment; a skeleton's pass would lengthen a frame."""
    view.set_messages(_thread(2))
    qtbot.waitUntil(lambda: view.spare_row_count() == FULL)
    view.upsert_message(_msg("u9", MessageRole.USER, "next question"))
    view.upsert_message(_msg("a9", status=MessageStatus.STREAMING, model="m"))
    assert view.spare_row_count() == FULL - 2
    qtbot.wait(HOLD_MS // 5)
    assert view.spare_row_count() == FULL - 2
    qtbot.waitUntil(lambda: view.spare_row_count() == FULL)


def test_a_row_from_a_spare_reports_its_own_message(view, qtbot):
    view.set_actions_enabled(True)
    spares = _spares(view)
    answer = _msg("a1", text="Answer", sibling_index=1, sibling_count=3)
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), answer])
    widget = view.message_widget("a1")
    assert widget in spares and view.message_widget("u1") in spares
    with qtbot.waitSignal(view.version_step_requested) as blocker:
        widget.version_switcher.next_button.click()
    assert blocker.args == ["a1", 1]
    with qtbot.waitSignal(view.copy_requested) as blocker:
        widget.copy_button.click()
    assert blocker.args == ["a1"]
    with qtbot.waitSignal(view.regenerate_requested) as blocker:
        widget.regenerate_button.action_for("detailed").trigger()
    assert blocker.args == ["a1", "detailed"]
    bubble = view.message_widget("u1")
    QApplication.sendEvent(bubble, QEvent(QEvent.Type.Enter))
    bubble.edit_button.click()
    assert view.message_widget("u1").objectName() == "userMessageEditor"


def test_a_streaming_answer_and_a_tool_row_from_spares(view, qtbot):
    view.set_messages([_msg("u1", MessageRole.USER, "run the tool")])
    view.upsert_message(_msg("t1", MessageRole.TOOL, "tool output"))
    assert view.message_widget("t1").objectName() == "toolMessage"
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING, model="m"))
    widget = view.message_widget("a1")
    assert widget.objectName() == "assistantMessage"
    view.append_text("a1", "Hello **world**")
    qtbot.waitUntil(lambda: widget.body.toPlainText() == "Hello world")
    view.upsert_message(_msg("a1", text="Hello **world**", model="m"))
    names = {b.objectName() for b in widget.findChildren(QToolButton) if b.isVisibleTo(widget)}
    assert {"copyMessageButton", "messageMoreButton"} <= names


def test_a_language_change_replaces_the_spares(view, qtbot):
    for widget in _spares(view):
        widget.setProperty("builtBefore", True)
    QApplication.sendEvent(view, QEvent(QEvent.Type.LanguageChange))
    qtbot.waitUntil(lambda: view.spare_row_count() == FULL)
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    after = _spares(view)
    assert len(after) == FULL and not any(w.property("builtBefore") for w in after)


@pytest.mark.parametrize("restyled", ["no", "spares", "rows"])
def test_rows_from_spares_look_like_new_rows(view, qtbot, themed_app, restyled):
    """Pixel for pixel: the same thread in a view without spares, also when a
    theme and a larger font came after the spares were built, or after the
    rows were (a label's smaller font is fixed when it is made)."""
    messages = [
        _msg("u1", MessageRole.USER, "How do I **list** files?\n\nIn 中文 too."),
        _msg("a1", text="Use `ls`:\n\n```sh\nls -la\n```\n\n- one\n- two", model="m"),
        _msg("t1", MessageRole.TOOL, "tool output"),
        _msg("a2", text="Stopped here", status=MessageStatus.STOPPED, model="m"),
    ]
    spares = _spares(view)
    view.set_actions_enabled(True)
    if restyled == "rows":
        view.set_messages(messages)
    if restyled != "no":
        apply_theme(themed_app, "dark")
        font = QFont(themed_app.font())
        font.setPointSizeF(font.pointSizeF() + 3)
        themed_app.setFont(font)
        qtbot.waitUntil(lambda: view.spare_row_count() == FULL)
        spares = _spares(view)  # made again under the new theme
    fresh = shown_timeline(qtbot, stream_interval_ms=0)
    fresh.set_actions_enabled(True)
    fresh.set_messages(messages)
    if restyled != "rows":
        view.set_messages(messages)
    qtbot.wait(50)
    for message in messages:
        mine, theirs = view.message_widget(message.id), fresh.message_widget(message.id)
        assert theirs not in spares and (mine in spares or restyled == "rows")
        assert mine.size() == theirs.size(), message.id
        assert mine.grab().toImage() == theirs.grab().toImage(), message.id
