"""Helpers of the window tests on media made after an answer (PRODUCT.md §10):
send a question and wait for its answer, then wait for the answer's audio or
picture to reach a status."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, openai_stream
from tests.ui.test_attachments_ui import CHAT, until


def _chat_requests(loopback: LoopbackServer) -> int:
    return len([r for r in loopback.requests if r.path == CHAT])


async def send_and_answer(
    window: MainWindow, loopback: LoopbackServer, text: str, answer: str, qtbot: Any
) -> str:
    """Type ``text`` and press Enter; the loopback answers ``answer``. Returns
    the answer's id once its run has ended."""
    count = _chat_requests(loopback)
    loopback.enqueue(CHAT, openai_stream([answer]))
    window.composer.set_text(text)
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: _chat_requests(loopback) == count + 1)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(lambda: len(window.timeline.message_ids()) >= 2)
    return window.timeline.message_ids()[-1]


async def until_made(window: MainWindow, message_id: str, key: str, status: str) -> None:
    """Until the shown answer's ``data[key]`` ("speech", "image") has ``status``."""

    def reached() -> bool:
        message = window.timeline.message(message_id)
        made = (message.data or {}).get(key) if message else None
        return isinstance(made, dict) and made.get("status") == status

    await until(reached, timeout=20)
