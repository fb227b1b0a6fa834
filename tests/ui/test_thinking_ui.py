"""The Thinking card in the real window (PRODUCT.md §6): reasoning streamed by
the loopback server, a thread left and opened again while it thinks, and the
display mode a launch starts with (open by default, the user's choice kept)."""

from __future__ import annotations

import argparse
import re
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from mira_desktop.bootstrap import Services
from mira_desktop.ui.launch import open_window
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.thinking_card import ThinkingCard
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import Gate, LoopbackServer, openai_stream
from tests.support.qt_async import until
from tests.support.window_close import close_window
from tests.ui.answer_support import send_and_answer

CHAT = "/v1/chat/completions"


def card_of(window: MainWindow, message_id: str) -> ThinkingCard | None:
    widget = window.timeline.message_widget(message_id)
    return widget.thinking_card if isinstance(widget, AssistantMessageWidget) else None


def seconds(card: ThinkingCard) -> int:
    """The seconds a "Thinking Ns" header counts (-1: another header)."""
    found = re.fullmatch(r"Thinking (\d+)s", card.header_text())
    return int(found.group(1)) if found else -1


async def test_a_thread_opened_again_while_it_thinks_keeps_its_card_open_and_counting(
    window: MainWindow, loopback: LoopbackServer, qtbot: Any
) -> None:
    await send_and_answer(window, loopback, "hello", "Hi.", qtbot)
    key = window.presenter.key
    gate = Gate()
    reply = openai_stream(["The answer."], thinking_chunks=["Weighing it. ", "Still weighing. "])
    reply.chunks.insert(2, gate)  # after the first thought: the model keeps thinking
    loopback.enqueue(CHAT, reply)
    window.composer.set_text("Think hard")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(window.timeline.message_ids()) == 4)
    answer_id = window.timeline.message_ids()[-1]
    await until(lambda: (card := card_of(window, answer_id)) is not None and seconds(card) >= 1)
    card = card_of(window, answer_id)
    assert card is not None and card.is_expanded()
    counted = seconds(card)

    window.presenter.new_chat()
    await until(lambda: window.timeline.message_count() == 0)
    window.presenter.open_thread(key)
    await until(lambda: card_of(window, answer_id) is not None)
    card = card_of(window, answer_id)
    assert card is not None
    assert card.is_expanded()  # still thinking: still open
    assert seconds(card) >= counted  # counting on from when it began, not from 0

    gate.open()
    await until(lambda: not window.chat.is_running(key))
    await until(lambda: window.timeline.message_text(answer_id) == "The answer.")


@pytest.mark.parametrize(("stored", "shown_open"), [(None, True), ("collapsed", False)])
async def test_out_of_the_box_reasoning_streams_open_and_a_chosen_mode_stays(
    qtbot: Any,
    themed_app: QApplication,
    services: Services,
    loopback: LoopbackServer,
    stored: str | None,
    shown_open: bool,
) -> None:
    """A window launched as the app does (``open_window``) on a data folder
    with no thinking mode stored streams reasoning open (PRODUCT.md §6); one
    whose user chose "collapsed" keeps it."""
    if stored is not None:
        await services.settings.set("ui.thinking_display", stored)
    window = await open_window(themed_app, services, argparse.Namespace(theme="light", lang="en"))
    qtbot.addWidget(window, before_close_func=lambda w: w.close_without_asking())
    window.show()
    await window.start()
    try:
        gate = Gate()
        reply = openai_stream(["The answer."], thinking_chunks=["Weighing it. "])
        reply.chunks.insert(2, gate)
        loopback.enqueue(CHAT, reply)
        window.composer.set_text("Think hard")
        qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
        await until(lambda: len(window.timeline.message_ids()) == 2)
        answer_id = window.timeline.message_ids()[-1]
        await until(lambda: (card := card_of(window, answer_id)) is not None and card.isVisible())
        card = card_of(window, answer_id)
        assert card is not None and card.is_expanded() is shown_open
        gate.open()
        await until(lambda: not window.chat.is_running(window.presenter.key))
    finally:
        await close_window(window)
        await window.thread_model.aclose()
