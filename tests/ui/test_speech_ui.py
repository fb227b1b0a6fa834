"""Answers read aloud in the real window (PRODUCT.md §10): the header menu's
switch on a welcome draft and on a saved thread, the answer's bar (reading,
read with Play and Save…, failed with Try again), "Read aloud" in an answer's
menu, Play handing a .wav to the system's player, and Chinese wording. The
voice is the real system voice (eSpeak NG); answers come from the loopback
server."""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu

from mira_desktop.bootstrap import Services
from mira_desktop.core.speech import SpeechInfo
from mira_desktop.services.speech import SpeechService
from mira_desktop.services.speech_engine import SystemVoice
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.speech_bar import SpeechBar, duration_text
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.opened_urls import opened_files
from tests.ui.answer_support import send_and_answer, until_made
from tests.ui.test_attachments_ui import until


def bar_of(window: MainWindow, message_id: str) -> SpeechBar | None:
    widget = window.timeline.message_widget(message_id)
    assert isinstance(widget, AssistantMessageWidget)
    return widget.speech_bar


def shown_speech(window: MainWindow, message_id: str) -> SpeechInfo | None:
    message = window.timeline.message(message_id)
    return SpeechInfo.from_data(message.data if message else None)


async def until_speech(window: MainWindow, message_id: str, status: str) -> None:
    await until_made(window, message_id, "speech", status)


async def test_the_switch_on_a_new_chat_reads_its_answers_aloud(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    action = window.speech_actions.read_aloud_action
    assert action in window.header.menu.actions() and not action.isChecked()
    action.trigger()  # on the welcome draft: kept until the first send
    assert window.presenter.draft_tts and action.isChecked()
    answer_id = await send_and_answer(
        window, loopback, "How do I boil pasta?", "Boil the water, then add the pasta.", qtbot
    )
    thread = await services.threads.get_thread(window.presenter.key)
    assert thread.tts_enabled
    await until_speech(window, answer_id, "ready")
    bar = bar_of(window, answer_id)
    assert bar is not None and bar.isVisible()
    assert (
        bar.play_button.isVisible()
        and bar.save_button.isVisible()
        and not bar.retry_button.isVisible()
    )
    info = shown_speech(window, answer_id)
    assert (
        info is not None
        and f"Spoken answer · {duration_text(info.duration_ms)}" in bar.label.text()
    )
    # the row grew to hold the bar: nothing of it is cut off
    widget = window.timeline.message_widget(answer_id)
    assert widget is not None and bar.geometry().bottom() < widget.height()
    # switched off on the saved thread: the next answer is not read aloud
    action.trigger()
    await until(lambda: not window.speech_actions.is_on())
    assert not (await services.threads.get_thread(thread.id)).tts_enabled
    second = await send_and_answer(window, loopback, "And then?", "Drain it.", qtbot)
    await services.speech.drain()
    assert shown_speech(window, second) is None and bar_of(window, second) is None
    # a new chat starts with the switch off
    window.new_chat_action.trigger()
    await until(lambda: window.presenter.is_draft)
    assert not action.isChecked()


async def test_read_aloud_from_the_menu_then_play_and_save(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer_id = await send_and_answer(window, loopback, "Hi", "Hello! **Nice** to meet you.", qtbot)
    menu = QMenu(window)
    window.timeline.message_menu_requested.emit(answer_id, menu)
    speak = next(a for a in menu.actions() if a.objectName() == "message:speak")
    assert speak.text() == "Read aloud"
    speak.trigger()
    await until_speech(window, answer_id, "ready")
    bar = bar_of(window, answer_id)
    assert bar is not None
    info = bar.info

    with opened_files() as opened:
        bar.play_button.click()
        await until(lambda: opened != [])
    played = Path(opened[0].toLocalFile())
    assert played.suffix == ".wav" and played.read_bytes() == await services.media.read(info.sha256)
    with wave.open(str(played)) as w:
        assert w.getnframes() > 0
    target = tmp_path / "kept.wav"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    bar.save_button.click()
    await until(target.exists)
    assert target.read_bytes() == played.read_bytes()
    await until(lambda: "Saved kept.wav" in window.notice_bar.text())
    menu = QMenu(window)
    window.timeline.message_menu_requested.emit(answer_id, menu)
    assert [a.text() for a in menu.actions() if a.objectName() == "message:speak"] == [
        "Read aloud again"
    ]


async def test_a_failed_voice_says_why_in_chinese_and_can_try_again(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any, tmp_path: Path
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    answer_id = await send_and_answer(window, loopback, "Hi", "Hello there.", qtbot)
    assert "speech" not in services.built
    broken = SpeechService(services.store, services.media, SystemVoice("no_such_driver"))
    services.speech = broken  # a computer without a speech engine (the window listens)
    install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
    try:
        window.speech_actions.speak(answer_id)
        await until_speech(window, answer_id, "failed")
        bar = bar_of(window, answer_id)
        assert bar is not None and bar.retry_button.isVisible() and not bar.play_button.isVisible()
        assert bar.label.text() == "未能朗读：这台电脑上没有语音引擎。"
        assert "eSpeak NG" in bar.label.toolTip() and bar.retry_button.text() == "重试"
        assert window.timeline.message(answer_id).text == "Hello there."  # type: ignore[union-attr]
        # the engine is back: Try again reads it
        services.speech = SpeechService(services.store, services.media)
        services.speech.add_listener(window.speech_actions.show_news)
        bar.retry_button.click()
        await until_speech(window, answer_id, "ready")
        assert bar.label.text().startswith("朗读音频 · 0:0")
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")
        await broken.aclose()
