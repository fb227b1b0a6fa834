"""The conversation by keyboard in the real window: a user message's Copy and
Edit reached without a mouse (its buttons while it has the focus, its text's
context menu), Tab never focusing a part of a message off screen, and Page
Up / Page Down / Home / End scrolling the conversation after a click into a
message's words."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.message_editor import UserEditWidget
from mira_desktop.ui.timeline.user_bubble import UserMessageWidget
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until
from tests.ui.answer_support import send_and_answer

LONG = "An answer.\n\n" + "A line of the answer.\n\n" * 14


async def long_thread(window: MainWindow, loopback: LoopbackServer, qtbot: Any) -> None:
    window.resize(900, 600)
    for n in range(4):
        await send_and_answer(window, loopback, f"Question {n}", f"{n}. {LONG}", qtbot)
    await until(lambda: window.timeline.actions_enabled())


def on_screen(window: MainWindow, widget: QWidget) -> bool:
    """Whether some of ``widget`` shows in the timeline's viewport."""
    canvas = window.timeline._canvas
    top = widget.mapTo(canvas, QPoint(0, 0)).y()
    return top < canvas.height() and top + widget.height() > 0


async def test_a_user_messages_copy_and_edit_by_keyboard(
    window: MainWindow, loopback: LoopbackServer, qtbot: Any
) -> None:
    await send_and_answer(window, loopback, "Translate this", "Done.", qtbot)
    await until(lambda: window.timeline.actions_enabled())
    user_id = window.timeline.message_ids()[0]
    bubble = window.timeline.message_widget(user_id)
    assert isinstance(bubble, UserMessageWidget)
    copy = bubble.findChild(QWidget, "copyMessageButton")
    assert copy is not None and not copy.isVisible() and not bubble.edit_button.isVisible()
    window.activateWindow()
    bubble.text_view.setFocus(Qt.FocusReason.TabFocusReason)
    await until(lambda: copy.isVisible() and bubble.edit_button.isVisible())
    qtbot.keyClick(bubble.text_view, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is copy
    qtbot.keyClick(copy, Qt.Key.Key_Space)
    assert QGuiApplication.clipboard().text() == "Translate this"
    qtbot.keyClick(copy, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is bubble.edit_button  # still shown: focus is in it

    # the Menu key on the text: its context menu has the message's actions
    QGuiApplication.clipboard().clear()
    bubble.text_view.setFocus(Qt.FocusReason.TabFocusReason)
    view = bubble.text_view.viewport()
    at = QPoint(4, 4)
    menu_key = QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, at, view.mapToGlobal(at))
    QApplication.sendEvent(view, menu_key)
    menu = bubble.context_menu
    assert menu is not None
    actions = {a.objectName(): a for a in menu.actions()}
    actions["message:copy"].trigger()
    assert QGuiApplication.clipboard().text() == "Translate this"
    assert actions["message:edit"].isEnabled()
    actions["message:edit"].trigger()
    menu.close()
    await until(lambda: isinstance(window.timeline.message_widget(user_id), UserEditWidget))


async def test_tab_brings_the_part_of_a_message_it_focuses_into_view(
    window: MainWindow, loopback: LoopbackServer, qtbot: Any
) -> None:
    await long_thread(window, loopback, qtbot)
    timeline = window.timeline
    first = timeline.message_ids()[0]
    timeline.scroll_to_message(first)
    window.activateWindow()
    widget = timeline.message_widget(first)
    assert isinstance(widget, UserMessageWidget)
    widget.text_view.setFocus(Qt.FocusReason.TabFocusReason)
    reached = 0
    for _ in range(12):
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        if focused is not None and timeline._canvas.isAncestorOf(focused):
            assert on_screen(window, focused), focused.objectName()
            reached += 1
    assert reached >= 6  # it went through several messages, down the thread


async def test_page_keys_scroll_the_conversation_after_a_click_into_an_answer(
    window: MainWindow, loopback: LoopbackServer, qtbot: Any
) -> None:
    await long_thread(window, loopback, qtbot)
    timeline = window.timeline
    answer = timeline.message_widget(timeline.message_ids()[-1])
    assert isinstance(answer, AssistantMessageWidget)
    window.activateWindow()
    qtbot.mouseClick(answer.body.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(10, 10))
    assert QApplication.focusWidget() is answer.body
    bottom = timeline._layout.scroll_y
    assert bottom > 0
    qtbot.keyClick(answer.body, Qt.Key.Key_PageUp)
    assert 0 < timeline._layout.scroll_y < bottom
    focused = QApplication.focusWidget()
    assert focused is not None
    qtbot.keyClick(focused, Qt.Key.Key_Home)
    assert timeline._layout.scroll_y == 0
    focused = QApplication.focusWidget()
    assert focused is not None
    qtbot.keyClick(focused, Qt.Key.Key_End)
    assert timeline._layout.scroll_y == timeline._layout.max_scroll()
