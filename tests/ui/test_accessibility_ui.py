"""What a screen reader hears in the real window, through Qt's accessibility
interfaces: the composer's editor and buttons, the context meter, the
timeline, a chip's remove button, who wrote each message; and Tab through an
answer in the order it is drawn (its Thinking card first)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QApplication, QWidget

from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.user_bubble import UserMessageWidget
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, openai_stream
from tests.support.qt_async import until
from tests.ui.test_attachments_ui import CHAT, attach_by_button, report_pdf

__all__ = ["report_pdf"]


def spoken(widget: QWidget) -> str:
    """The name an assistive technology is given for ``widget``."""
    interface = QAccessible.queryAccessibleInterface(widget)
    assert interface is not None
    return interface.text(QAccessible.Text.Name)


async def test_the_composer_meter_timeline_and_chips_have_names(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch, report_pdf: Path
) -> None:
    composer = window.composer
    assert spoken(composer.editor) == "Message"
    assert spoken(composer.attach_button) == "Attach files"
    assert spoken(composer.mic_button) == "Dictate"
    assert spoken(composer.meter) == "Context usage"
    assert spoken(window.timeline) == "Conversation"
    await attach_by_button(window, qtbot, monkeypatch, [report_pdf])
    [chip] = composer.strip.chips()
    assert spoken(chip.remove_button) == "Remove report.pdf"


async def test_messages_say_who_wrote_them_and_tab_follows_an_answer_top_down(
    window: MainWindow, loopback: LoopbackServer, qtbot: Any
) -> None:
    loopback.enqueue(CHAT, openai_stream(["Blue."], thinking_chunks=["The sky scatters blue."]))
    window.composer.set_text("Why is the sky blue?")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(window.timeline.message_ids()) == 2)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(window.timeline.actions_enabled)
    question, answer = (window.timeline.message_widget(i) for i in window.timeline.message_ids())
    assert isinstance(question, UserMessageWidget) and isinstance(answer, AssistantMessageWidget)
    assert spoken(question.text_view) == "Your message"
    assert spoken(answer.body) == "Answer from m1"

    card = answer.thinking_card
    assert card is not None
    toggle = card.focus_parts()[0]
    await until(lambda: answer.regenerate_button.isVisible())
    await until(lambda: not card.is_expanded())  # a second after the answer began
    window.activateWindow()
    question.text_view.setFocus(Qt.FocusReason.TabFocusReason)
    order = [QApplication.focusWidget()]
    for _ in range(7):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        order.append(QApplication.focusWidget())
    user_copy = question.findChild(QWidget, "copyMessageButton")
    expected = [question.text_view, user_copy, question.edit_button, toggle, answer.body]
    expected += [answer.regenerate_button, answer.copy_button, answer.more_button]
    assert order == expected
