"""Nothing typed in the real window is lost by a send that does not take it:
a message refused while a compaction runs, ``/compact`` refused while the
thread answers, "Implement plan" and the vision warning's "Send anyway"
(whose text does not come from what is being typed), and answers typed to
the agent's questions when their form is made again. Real keys, the loopback
model server, a real data folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from mira_desktop.core.agent import ToolStatus
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import Gate, LoopbackServer, openai_stream, openai_tool_stream
from tests.support.qt_async import until
from tests.ui.answer_support import send_and_answer
from tests.ui.test_agent_ui import ask_agent, card_view, project, shown_status
from tests.ui.test_attachments_ui import (
    CHAT,
    attach_by_button,
    chart_png,
    ready_chips,
    report_pdf,
)

__all__ = ["chart_png", "project", "report_pdf"]


def held_reply(text: str) -> tuple[Gate, Any]:
    """A streamed reply that waits after its first chunk until the gate opens."""
    gate = Gate()
    reply = openai_stream([text])
    reply.chunks.insert(1, gate)
    return gate, reply


def press_enter(window: MainWindow, qtbot: Any) -> None:
    window.composer.editor.setFocus()
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)


async def test_a_message_sent_while_the_context_is_compressed_stays_in_the_composer(
    window: MainWindow,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    report_pdf: Path,
) -> None:
    await send_and_answer(window, loopback, "What was Q3 revenue?", "42 million.", qtbot)
    await send_and_answer(window, loopback, "And Q4?", "50 million.", qtbot)
    gate, summary = held_reply("Revenue: Q3 42 million, Q4 50 million.")
    loopback.enqueue(CHAT, summary)
    window.composer.set_text("/compact ")  # a space: the command menu stays closed
    press_enter(window, qtbot)
    key = window.presenter.key
    await until(lambda: len(loopback.requests) == 3)
    assert window.context_actions.is_compacting(key) and window.composer.text() == ""

    await attach_by_button(window, qtbot, monkeypatch, [report_pdf])
    qtbot.keyClicks(window.composer.editor, "Compare them with the report")
    press_enter(window, qtbot)
    assert window.composer.text() == "Compare them with the report"
    assert ready_chips(window) == ["report.pdf"]
    assert "Wait until the context is compressed" in window.notice_bar.text()

    gate.open()
    await until(lambda: not window.context_actions.is_compacting(key))
    loopback.enqueue(CHAT, openai_stream(["Q4 beats the report."]))
    press_enter(window, qtbot)  # the same words and file go now
    await until(lambda: len(loopback.requests) == 4)
    assert "Compare them with the report" in str(loopback.requests[-1].json["messages"][-1])
    assert window.composer.text() == "" and ready_chips(window) == []


async def test_compact_sent_while_the_thread_answers_stays_typed(
    window: MainWindow, loopback: LoopbackServer, qtbot: Any
) -> None:
    await send_and_answer(window, loopback, "Tell me about Q3", "42 million.", qtbot)
    gate, answer = held_reply("Still answering.")
    loopback.enqueue(CHAT, answer)
    window.composer.set_text("And Q4?")
    press_enter(window, qtbot)
    await until(lambda: len(loopback.requests) == 2)
    assert window.chat.is_running(window.presenter.key)
    qtbot.keyClicks(window.composer.editor, "/compact keep every number")
    press_enter(window, qtbot)
    assert "Stop it first, then compact" in window.notice_bar.text()
    assert window.composer.text() == "/compact keep every number"
    assert len(loopback.requests) == 2  # no summary was asked for
    gate.open()
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert window.composer.text() == "/compact keep every number"


async def warned_about_the_picture(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch, chart_png: Path
) -> Any:
    """A picture sent to a model not marked as seeing: the warning's bar, asking."""
    await attach_by_button(window, qtbot, monkeypatch, [chart_png])
    window.composer.set_text("Describe the chart")
    press_enter(window, qtbot)
    bar = window.composer.confirm_bar
    await until(bar.is_asking)
    return bar


async def test_send_anyway_keeps_what_was_typed_while_the_warning_asked(
    window: MainWindow,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    chart_png: Path,
) -> None:
    bar = await warned_about_the_picture(window, qtbot, monkeypatch, chart_png)
    assert window.composer.text() == ""  # on its way, waiting for a word
    qtbot.keyClicks(window.composer.editor, "and then list its colours")
    loopback.enqueue(CHAT, openai_stream(["I cannot see it."]))
    qtbot.mouseClick(bar.send_button, Qt.MouseButton.LeftButton)
    await until(lambda: len(loopback.requests) == 1)
    assert "Describe the chart" in str(loopback.requests[0].json["messages"][-1])
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert window.composer.text() == "and then list its colours"


async def test_cancelling_the_warning_gives_the_text_back_before_words_typed_since(
    window: MainWindow,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    chart_png: Path,
) -> None:
    bar = await warned_about_the_picture(window, qtbot, monkeypatch, chart_png)
    qtbot.keyClicks(window.composer.editor, "and its colours")
    qtbot.mouseClick(bar.cancel_button, Qt.MouseButton.LeftButton)
    assert window.composer.text() == "Describe the chart\n\nand its colours"
    assert ready_chips(window) == ["chart.png"] and loopback.requests == []


async def test_implement_plan_keeps_what_is_being_typed(
    window: MainWindow, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    window.agent_actions.plan_action.trigger()
    loopback.enqueue(CHAT, openai_stream(["1. Write the report."]))
    window.composer.set_text("Plan the report")
    press_enter(window, qtbot)
    await until(lambda: len(window.timeline.message_ids()) >= 2)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    widget = window.timeline.message_widget(window.timeline.message_ids()[-1])
    assert isinstance(widget, AssistantMessageWidget) and widget.plan_actions is not None
    await until(widget.plan_actions.isVisible)
    qtbot.keyClicks(window.composer.editor, "also keep the tests green")
    loopback.enqueue(CHAT, openai_stream(["Implemented."]))
    qtbot.mouseClick(widget.plan_actions.implement, Qt.MouseButton.LeftButton)
    await until(lambda: len(window.timeline.message_ids()) >= 4)
    assert window.timeline.message_text(window.timeline.message_ids()[-2]) == "Implement the plan."
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert window.composer.text() == "also keep the tests green"


def question_fields(window: MainWindow, answer_id: str) -> list[str] | None:
    """The answers the shown questions' form holds (None: no form on screen)."""
    widget = window.timeline.message_widget(answer_id)
    if not isinstance(widget, AssistantMessageWidget) or widget.tool_cards is None:
        return None
    form = widget.tool_cards.views[0].form if widget.tool_cards.views else None
    if form is None or not form.isVisible():
        return None
    return [field.currentText() for field in form.fields]


async def test_answers_typed_to_the_agents_questions_survive_the_form_being_made_again(
    window: MainWindow, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    asked = {
        "questions": [
            {"question": "Which greeting?", "options": ["bonjour", "salut"]},
            {"question": "Anything else?"},
        ]
    }
    loopback.enqueue(CHAT, openai_tool_stream([("q1", "ask_user_question", asked)]))
    loopback.enqueue(CHAT, openai_stream(["Salut it is."]))
    answer_id = await ask_agent(window, loopback, qtbot, "Greet in French")
    await until(lambda: shown_status(window, answer_id) is ToolStatus.WAITING)
    form = card_view(window, answer_id).form
    assert form is not None
    qtbot.keyClicks(form.fields[0].lineEdit(), "ciao")
    qtbot.keyClicks(form.fields[1].lineEdit(), "Keep it short")
    typed = ["ciao", "Keep it short"]
    assert question_fields(window, answer_id) == typed
    key = window.presenter.key

    window.presenter.new_chat()  # another conversation, then back
    await until(lambda: window.timeline.message_count() == 0)
    window.presenter.open_thread(key)
    await until(lambda: question_fields(window, answer_id) is not None)
    assert question_fields(window, answer_id) == typed

    QApplication.sendEvent(window.timeline, QEvent(QEvent.Type.LanguageChange))
    await until(lambda: question_fields(window, answer_id) is not None)
    assert question_fields(window, answer_id) == typed

    bigger = QFont(window.timeline.font())
    bigger.setPointSizeF(bigger.pointSizeF() + 2)
    window.timeline.setFont(bigger)
    await until(lambda: question_fields(window, answer_id) is not None)
    assert question_fields(window, answer_id) == typed

    form = card_view(window, answer_id).form
    assert form is not None
    qtbot.mouseClick(form.send, Qt.MouseButton.LeftButton)
    await until(lambda: not window.chat.is_running(key))
    sent = loopback.requests[-1].json["messages"][-1]["content"]
    assert "→ ciao" in sent and "→ Keep it short" in sent
