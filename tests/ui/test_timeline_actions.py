"""The actions of a message (Regenerate, Copy, "⋯", the version switcher, the
user bubble's hover Copy/Edit) work on a freshly created widget although they
are built lazily: buttons when first shown, menus when they can first open
(pointer over the button, focus, a press); the "⋯" menu is filled by the
window each time it opens."""

from __future__ import annotations

import gc
import weakref

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QEnterEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QMenu, QToolButton

from mira_desktop.core.models import Message, MessageRole, MessageStatus
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.message_actions import REGENERATE_PRESETS
from mira_desktop.ui.timeline.user_bubble import UserMessageWidget
from tests.ui.timeline_support import shown_timeline

NOW = "2026-01-01T10:00:00Z"


def _msg(mid: str, role: MessageRole = MessageRole.ASSISTANT, text: str = "", **kw) -> Message:
    return Message(id=mid, thread_id="t1", role=role, text=text, created_at=NOW, **kw)


@pytest.fixture
def view(qtbot):
    return shown_timeline(qtbot, stream_interval_ms=0)


def _enter(widget: QToolButton) -> None:
    """The pointer moves over ``widget`` (as the window system reports it)."""
    point = QPointF(widget.rect().center())
    QApplication.sendEvent(widget, QEnterEvent(point, point, QPointF(widget.mapToGlobal(point))))


def _buttons(widget: AssistantMessageWidget) -> dict[str, QToolButton]:
    return {b.objectName(): b for b in widget.findChildren(QToolButton)}


def test_a_streaming_answer_builds_its_actions_when_it_ends(view, qtbot):
    view.set_messages([_msg("u1", MessageRole.USER, "question?")])
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING, model="m"))
    widget = view.message_widget("a1")
    assert isinstance(widget, AssistantMessageWidget)
    # nothing to act on yet: none of the buttons exist
    assert not {"regenerateButton", "messageMoreButton", "copyMessageButton"} & set(
        _buttons(widget)
    )
    view.append_text("a1", "Hello ")
    view.append_text("a1", "world")  # still buffered when the run ends
    view.set_actions_enabled(True)  # (the window enables them once idle)
    view.upsert_message(_msg("a1", text="Hello world", model="m"))
    assert view.message_text("a1") == "Hello world"
    buttons = _buttons(widget)
    for name in ("regenerateButton", "messageMoreButton", "copyMessageButton"):
        assert buttons[name].isVisibleTo(widget), name
    assert buttons["copyMessageButton"].accessibleName() == "Copy message"
    assert buttons["messageMoreButton"].accessibleName() == "More actions"
    assert widget.findChild(QMenu, "regenerateMenu") is None  # not built yet
    view.set_actions_enabled(False)
    assert not widget.regenerate_button.isVisibleTo(widget)


def test_regenerate_menu_is_built_on_focus(view, qtbot):
    view.set_actions_enabled(True)
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), _msg("a1", text="Answer")])
    widget = view.message_widget("a1")
    assert widget.findChild(QMenu, "regenerateMenu") is None
    widget.regenerate_button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: widget.findChild(QMenu, "regenerateMenu") is not None)


def test_regenerate_menu_is_built_on_hover_and_works(view, qtbot):
    view.set_actions_enabled(True)
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), _msg("a1", text="Answer")])
    widget = view.message_widget("a1")
    button = widget.regenerate_button
    assert button.isVisibleTo(widget) and widget.findChild(QMenu, "regenerateMenu") is None
    _enter(button)
    menu = widget.findChild(QMenu, "regenerateMenu")
    assert menu is not None and button.menu() is menu
    presets = [a.data() for a in menu.actions() if not a.isSeparator()]
    assert presets == list(REGENERATE_PRESETS)
    with qtbot.waitSignal(view.regenerate_requested) as blocker:
        button.action_for("detailed").trigger()
    assert blocker.args == ["a1", "detailed"]


def test_more_menu_is_filled_by_the_window_each_time_it_opens(view, qtbot):
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), _msg("a1", text="Answer")])
    widget = view.message_widget("a1")
    button = widget.more_button
    assert widget.findChild(QMenu, "messageMoreMenu") is button.menu()
    asked = []
    view.message_menu_requested.connect(
        lambda mid, menu: (asked.append(mid), menu.addAction("Export…"))
    )
    menu = button.menu()
    menu.popup(button.mapToGlobal(QPoint(0, button.height())))
    qtbot.waitUntil(menu.isVisible)
    assert asked == ["a1"] and [a.text() for a in menu.actions()] == ["Export…"]
    menu.close()


def test_copy_and_versions_of_a_fresh_answer(view, qtbot):
    view.set_actions_enabled(True)
    answer = _msg("a1", text="Answer", sibling_index=1, sibling_count=3)
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), answer])
    widget = view.message_widget("a1")
    with qtbot.waitSignal(view.copy_requested):
        _buttons(widget)["copyMessageButton"].click()
    assert QGuiApplication.clipboard().text() == "Answer"
    switcher = widget.version_switcher
    assert switcher.text() == "2/3" and switcher.isVisibleTo(widget)
    with qtbot.waitSignal(view.version_step_requested) as blocker:
        switcher.next_button.click()
    assert blocker.args == ["a1", 1]


def test_user_bubble_shows_copy_and_edit_on_hover(view, qtbot):
    view.set_actions_enabled(True)
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), _msg("a1", text="Answer")])
    bubble = view.message_widget("u1")
    assert isinstance(bubble, UserMessageWidget)
    assert not bubble.edit_button.isVisibleTo(bubble)
    QApplication.sendEvent(bubble, QEvent(QEvent.Type.Enter))
    assert bubble.edit_button.isVisibleTo(bubble)
    with qtbot.waitSignal(view.edit_submitted, raising=False, timeout=10):
        bubble.edit_button.click()
    assert view.message_widget("u1").objectName() == "userMessageEditor"


def test_an_answer_row_that_is_dropped_is_freed_without_the_collector(view, qtbot):
    """A row whose actions were all made (buttons, menus, the version
    switcher) and that the timeline drops (another thread shown) is freed by
    reference counting alone: no reference cycle leaves it, and what it
    holds, to the cyclic collector (which skips what is frozen)."""
    view.set_actions_enabled(True)
    answer = _msg("a1", text="Answer", model="m", sibling_index=0, sibling_count=2)
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), answer])
    widget = view.message_widget("a1")
    assert isinstance(widget, AssistantMessageWidget)
    widget.regenerate_button.menu()
    widget.more_button.menu()
    assert widget.copy_button.isVisibleTo(widget)
    assert widget.version_switcher.text() == "1/2"
    rows = [weakref.ref(widget), weakref.ref(widget.more_button), weakref.ref(widget.body)]
    del widget
    gc.collect()
    gc.disable()
    try:
        view.set_messages([_msg("u2", MessageRole.USER, "another thread")])
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        assert [ref() is None for ref in rows] == [True, True, True]
    finally:
        gc.enable()
