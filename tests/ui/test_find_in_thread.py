"""Find in this conversation (Ctrl+F) in the real window: the bar made on
first use, the places in the branch that hold the words counted (as written
or as shown, case-insensitive, Chinese too), ↓ / ↑ moving from place to
place — to another message brought into view, or further down the same one —
with every place of the message tinted and the current one stronger, Esc
closing and clearing the tint, Chinese wording. A real data folder, a real SQLite
file; the 40-message thread is written through the store."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, Thread
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.timeline.find_bar import LIGHT_CURRENT
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, openai_stream
from tests.support.qt_async import until

CHAT = "/v1/chat/completions"

FOUND_AT = {
    5: "The **zeph**yr daemon restarts.",  # an answer: shown as "The zephyr daemon…"
    12: "Is **zeph**yr the one?",  # a question: shown as typed, so not a match
    21: "Restart ZEPHYR first.",
    36: "zephyr again, and Zephyr once more",  # two places in one message
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


def strong(window: MainWindow, message_id: str) -> list[int]:
    """Which of the message's tinted places is the current one (stronger)."""
    widget = window.timeline.message_widget(message_id)
    if widget is None:
        return []
    marks = [m for view in widget.text_views() for m in view.extraSelections()]
    current = LIGHT_CURRENT.name()  # the same orange in both themes (see-through on dark)
    return [i for i, m in enumerate(marks) if m.format.background().color().name() == current]


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
    await until(lambda: len(finder.matches) == 4)
    # "**zeph**yr" as shown counts; the last message holds two places
    assert finder.matches == [(ids[5], 0), (ids[21], 0), (ids[36], 0), (ids[36], 1)]
    assert bar.count.text() == "3 of 4"  # the first place in view
    await until(lambda: tinted(window, ids[36]) == 2 and strong(window, ids[36]) == [0])

    qtbot.keyClick(bar.field, Qt.Key.Key_Return)  # the next place, in the same message
    assert bar.count.text() == "4 of 4"
    await until(lambda: strong(window, ids[36]) == [1])
    assert tinted(window, ids[36]) == 2 and in_view(window, ids[36])
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)  # next, round to the first
    assert finder.current == 0 and bar.count.text() == "1 of 4"
    await until(lambda: tinted(window, ids[5]) > 0 and in_view(window, ids[5]))
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    await until(lambda: tinted(window, ids[21]) == 1 and in_view(window, ids[21]))
    assert tinted(window, ids[5]) == 0 or window.timeline.message_widget(ids[5]) is None
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    await until(lambda: finder.current == 0 and tinted(window, ids[5]) > 0)

    bar.field.setText("桌面助手")
    await until(lambda: finder.matches == [(ids[10], 0)])
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
        await until(lambda: bar.count.text() == "第 3 处，共 4 处")
        assert bar.next.toolTip() == "下一处（Enter）"
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
    await until(lambda: len(finder.matches) == 4)

    # the question and its answer come in while the bar is open
    loopback.enqueue(CHAT, openai_stream(["The zephyr is back up."]))
    window.composer.set_text("Is the daemon up?")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: window.timeline.message_count() == 42)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(lambda: len(finder.matches) == 5)
    assert finder.bar.count.text().endswith("of 5")

    # closed and opened again: the count names a message, and Enter goes to it
    qtbot.keyClick(finder.bar.field, Qt.Key.Key_Escape)
    finder.action.trigger()
    await until(lambda: finder.current is not None)
    named = finder.current
    assert named is not None and finder.bar.count.text() == f"{named + 1} of 5"
    qtbot.keyClick(finder.bar.field, Qt.Key.Key_Return)
    assert finder.current == named  # not the one after it
    ids = [message_id for message_id, _ in finder.matches]
    await until(lambda: tinted(window, ids[named]) > 0)


async def test_a_message_is_counted_again_as_shown_once_lit(
    window: MainWindow, services: Services, qtbot: Any
) -> None:
    """The text says two places (one inside a link's address), the answer
    shows one: once the message is lit the count follows what is shown."""
    workspace = await services.store.default_workspace()
    stamp = "2026-12-01T10:00:00.000Z"
    thread = await services.store.create_thread(
        Thread(id=new_id(), title="Links", workspace_id=workspace.id, created_at=stamp,
               updated_at=stamp)
    )  # fmt: skip
    question = Message(new_id(), thread.id, MessageRole.USER, "Where?", stamp)
    await services.store.add_message(question, make_active=True)
    answer = Message(
        new_id(), thread.id, MessageRole.ASSISTANT,
        "Read about zephyr in [the guide](https://zephyr.example/guide).", stamp,
        parent_id=question.id,
    )  # fmt: skip
    await services.store.add_message(answer, make_active=True)
    window.presenter.open_thread(thread.id)
    await until(lambda: window.timeline.message_count() == 2)
    finder = window.find_actions
    finder.action.trigger()
    assert finder.bar is not None
    qtbot.keyClicks(finder.bar.field, "zephyr")
    await until(lambda: finder.bar is not None and finder.bar.count.text() == "1 of 1")
    assert finder.matches == [(answer.id, 0)] and tinted(window, answer.id) == 1


async def test_a_long_branch_is_folded_off_the_paint_path_and_found_all_the_same(
    window: MainWindow, services: Services, qtbot: Any
) -> None:
    """More messages than the Qt thread folds itself: the first search folds
    them in a worker thread, then lists the places; closing the bar while it
    folds leaves nothing behind."""
    from mira_desktop.ui.window.find_actions import FOLD_HERE

    workspace = await services.store.default_workspace()
    stamp = "2026-12-01T10:00:00.000Z"
    thread = await services.store.create_thread(
        Thread(id=new_id(), title="Many", workspace_id=workspace.id, created_at=stamp,
               updated_at=stamp)
    )  # fmt: skip
    parent, count = None, FOLD_HERE + 60
    for n in range(count):
        role = MessageRole.USER if n % 2 == 0 else MessageRole.ASSISTANT
        text = "the quasar rises" if n in (3, 150, count - 2) else f"Message {n} " * 30
        message = Message(new_id(), thread.id, role, text, stamp, parent_id=parent)
        await services.store.add_message(message, make_active=True)
        parent = message.id
    window.presenter.open_thread(thread.id)
    await until(lambda: window.timeline.message_count() == count)
    finder = window.find_actions
    finder.action.trigger()
    assert finder.bar is not None
    finder.bar.field.setText("quasar")
    finder.close()  # while it folds
    finder._timer.timeout.emit()  # the search that was due runs after all
    await until(lambda: window.tasks.pending() == 0)
    assert finder.matches == [] and not finder.bar.isVisible()
    assert finder._folded == {}  # the cache went with the bar, the late fold too
    finder.action.trigger()  # folded in the worker again, then listed
    await until(lambda: finder.bar is not None and finder.bar.count.text().endswith("of 3"))
    ids = window.timeline.message_ids()
    assert [m for m, _ in finder.matches] == [ids[3], ids[150], ids[count - 2]]
