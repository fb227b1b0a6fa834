"""Find in this conversation (Ctrl+F) in the real window: the bar made on
first use, the messages of the branch that hold the words counted (as
written or as shown, case-insensitive, Chinese too), ↓ / ↑ moving between
them with the message brought into view and its words tinted, Esc closing
and clearing the tint, Chinese wording. A real data folder, a real SQLite
file; the 40-message thread is written through the store."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, Thread
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, openai_stream
from tests.support.qt_async import until

CHAT = "/v1/chat/completions"

FOUND_AT = {
    5: "The **zeph**yr daemon restarts.",  # an answer: shown as "The zephyr daemon…"
    12: "Is **zeph**yr the one?",  # a question: shown as typed, so not a match
    21: "Restart ZEPHYR first.",
    36: "zephyr again",
}


@pytest.fixture
async def long_thread(services: Services) -> str:
    workspace = await services.store.default_workspace()
    stamp = "2026-12-01T10:00:00.000Z"
    thread = await services.store.create_thread(
        Thread(
            id=new_id(), title="Long", workspace_id=workspace.id, created_at=stamp, updated_at=stamp
        )
    )
    parent = None
    for n in range(40):
        role = MessageRole.USER if n % 2 == 0 else MessageRole.ASSISTANT
        text = FOUND_AT.get(
            n, f"Message {n} about 桌面助手 and nothing else." if n == 10 else f"Message {n}. " * 20
        )
        message = Message(new_id(), thread.id, role, text, stamp, parent_id=parent)
        await services.store.add_message(message, make_active=True)
        parent = message.id
    return thread.id


def tinted(window: MainWindow, message_id: str) -> int:
    widget = window.timeline.message_widget(message_id)
    if widget is None:
        return 0
    return sum(len(view.extraSelections()) for view in widget.text_views())


def in_view(window: MainWindow, message_id: str) -> bool:
    y = window.timeline.message_view_y(message_id)
    return y is not None and -2000 < y < window.timeline.height()


async def test_ctrl_f_finds_the_messages_that_hold_the_words_and_moves_between_them(
    window: MainWindow, services: Services, long_thread: str, qtbot: Any
) -> None:
    window.presenter.open_thread(long_thread)
    await until(lambda: window.timeline.message_count() == 40)
    ids = window.timeline.message_ids()
    finder = window.find_actions
    assert finder.bar is None  # made on first use
    assert finder.action in window.edit_menu.actions()
    finder.action.trigger()
    bar = finder.bar
    assert bar is not None and bar.isVisible() and bar.field.hasFocus()
    qtbot.keyClicks(bar.field, "Zephyr")
    await until(lambda: len(finder.matches) == 3)
    assert finder.matches == [ids[5], ids[21], ids[36]]  # "**zeph**yr" as shown counts
    assert bar.count.text().endswith("of 3")
    await until(lambda: finder.current is not None and tinted(window, ids[36]) > 0)

    qtbot.keyClick(bar.field, Qt.Key.Key_Return)  # next, round to the first
    assert finder.current == 0 and bar.count.text() == "1 of 3"
    await until(lambda: tinted(window, ids[5]) > 0 and in_view(window, ids[5]))
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    await until(lambda: tinted(window, ids[21]) == 1 and in_view(window, ids[21]))
    assert tinted(window, ids[5]) == 0 or window.timeline.message_widget(ids[5]) is None
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    await until(lambda: finder.current == 0 and tinted(window, ids[5]) > 0)

    bar.field.setText("桌面助手")
    await until(lambda: finder.matches == [ids[10]])
    await until(lambda: tinted(window, ids[10]) == 1)
    bar.field.setText("qqqq")
    await until(lambda: bar.count.text() == "No matches")
    assert not bar.next.isEnabled() and tinted(window, ids[10]) == 0

    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible() and finder.matches == []
    # Ctrl+F again: the words are still there, selected
    finder.action.trigger()
    assert bar.isVisible() and bar.field.selectedText() == "qqqq"


async def test_the_bar_speaks_chinese(
    window: MainWindow, services: Services, long_thread: str, qtbot: Any, qapp: Any
) -> None:
    window.presenter.open_thread(long_thread)
    await until(lambda: window.timeline.message_count() == 40)
    install_translator(qapp, "zh_CN")
    try:
        window.find_actions.action.trigger()
        bar = window.find_actions.bar
        assert bar is not None
        assert bar.field.placeholderText() == "在此对话中查找"
        assert window.find_actions.action.text() == "在此对话中查找…"
        qtbot.keyClicks(bar.field, "zephyr")
        await until(lambda: bar.count.text() == "第 3 条，共 3 条")
    finally:
        install_translator(qapp, "en")


async def test_an_answer_that_arrives_joins_the_list_and_enter_starts_where_the_count_says(
    window: MainWindow, services: Services, long_thread: str, loopback: LoopbackServer, qtbot: Any
) -> None:
    window.presenter.open_thread(long_thread)
    await until(lambda: window.timeline.message_count() == 40)
    finder = window.find_actions
    finder.action.trigger()
    assert finder.bar is not None
    qtbot.keyClicks(finder.bar.field, "zephyr")
    await until(lambda: len(finder.matches) == 3)

    # the question and its answer come in while the bar is open
    loopback.enqueue(CHAT, openai_stream(["The zephyr is back up."]))
    window.composer.set_text("Is the daemon up?")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: window.timeline.message_count() == 42)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(lambda: len(finder.matches) == 4)
    assert finder.bar.count.text().endswith("of 4")

    # closed and opened again: the count names a message, and Enter goes to it
    qtbot.keyClick(finder.bar.field, Qt.Key.Key_Escape)
    finder.action.trigger()
    await until(lambda: finder.current is not None)
    named = finder.current
    assert named is not None and finder.bar.count.text() == f"{named + 1} of 4"
    qtbot.keyClick(finder.bar.field, Qt.Key.Key_Return)
    assert finder.current == named  # not the one after it
    ids = finder.matches
    await until(lambda: tinted(window, ids[named]) > 0)
