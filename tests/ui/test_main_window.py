"""The real MainWindow on a qasync loop, against the loopback model server and a
real data folder: send → stream → stop, failures with Retry, background runs
while switching threads, the welcome draft that writes nothing, screenshots."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

from mira_desktop.bootstrap import Services
from mira_desktop.core.models import MessageStatus
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.full_disk import fill_the_disk, free_the_disk
from tests.support.loopback import (
    Hang,
    LoopbackServer,
    openai_json_error,
    openai_stream,
    raw_stream,
)
from tests.support.qt_async import until
from tests.support.window_close import close_window

CHAT = "/v1/chat/completions"


def delta(text: str) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}) + "\n"


async def db_count(services: Services, sql: str) -> int:
    return await services.store.worker.run(lambda db: db.execute(sql).fetchone()[0])


def type_and_send(window: MainWindow, text: str) -> None:
    window.composer.set_text(text)
    window.composer.send_requested.emit(window.composer.text())


async def test_send_streams_into_the_timeline_and_is_saved(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    loopback.enqueue(
        CHAT,
        openai_stream(["Hello ", "from ", "Mira"], thinking_chunks=["thinking hard"], delay=0.05),
    )
    type_and_send(window, "Say hello")
    assert window.composer.is_running()
    await until(lambda: not window.chat.is_running(window.presenter.key))
    key = window.presenter.key
    assert not window.presenter.is_draft
    ids = window.timeline.message_ids()
    assert len(ids) == 2
    assert window.timeline.message_text(ids[1]) == "Hello from Mira"
    assert window.header.title() == "Say hello"
    assert window.thread_model.row_of(key) == 0
    messages = await services.threads.get_active_messages(key)
    assert [(str(m.role), m.text) for m in messages] == [
        ("user", "Say hello"),
        ("assistant", "Hello from Mira"),
    ]
    assert messages[1].thinking == "thinking hard"
    assert not window.composer.is_running()


async def test_stop_mid_stream_cancels_the_request_and_keeps_the_text(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    loopback.enqueue(CHAT, raw_stream([delta("Partial "), delta("words"), Hang()]))
    type_and_send(window, "Write a long essay")
    await until(
        lambda: any(
            window.timeline.message_text(i) == "Partial words"
            for i in window.timeline.message_ids()
        )
    )
    assert window.composer.is_running()
    window.composer.stop_requested.emit()
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert loopback.wait_for_disconnect(timeout=2)
    messages = await services.threads.get_active_messages(window.presenter.key)
    assert messages[-1].status is MessageStatus.STOPPED and messages[-1].text == "Partial words"
    widget = window.timeline.message_widget(messages[-1].id)
    assert widget is not None


async def test_failure_shows_the_reason_and_retry_asks_again(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    loopback.enqueue(CHAT, openai_stream(["first"]))
    type_and_send(window, "Question one")
    await until(
        lambda: not window.chat.is_running(window.presenter.key) and not window.presenter.is_draft
    )
    loopback.enqueue(CHAT, openai_json_error(500, "backend exploded", type="server_error"))
    type_and_send(window, "Question two")
    await until(
        lambda: (
            not window.chat.is_running(window.presenter.key)
            and len(window.timeline.message_ids()) == 4
        )
    )
    failed_id = window.timeline.message_ids()[-1]
    messages = await services.threads.get_active_messages(window.presenter.key)
    assert (
        messages[-1].status is MessageStatus.FAILED
        and "backend exploded" in messages[-1].error["message"]
    )
    loopback.enqueue(CHAT, openai_stream(["second, at last"]))
    window.timeline.retry_requested.emit(failed_id)
    await until(
        lambda: (
            loopback.requests[-1].json["messages"][-1]["content"] == "Question two"
            and len(loopback.requests) == 3
        )
    )
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(
        lambda: (
            "second, at last"
            in [window.timeline.message_text(i) for i in window.timeline.message_ids()]
        )
    )


async def test_cancelled_welcome_draft_writes_nothing_and_gives_the_text_back(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    loopback.enqueue(CHAT, raw_stream([b": keep-alive\n\n", Hang()]))
    type_and_send(window, "a draft I care about")
    await until(lambda: len(loopback.requests) == 1)
    assert window.composer.text() == ""
    window.composer.stop_requested.emit()
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(lambda: window.composer.text() == "a draft I care about")
    assert window.presenter.is_draft
    assert window.notice_label.isVisible() and "nothing was saved" in window.notice_label.text()
    assert await db_count(services, "SELECT COUNT(*) FROM threads") == 0
    assert window.thread_model.rowCount() == 0


async def test_a_draft_given_back_keeps_what_was_typed_meanwhile(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    loopback.enqueue(CHAT, raw_stream([b": keep-alive\n\n", Hang()]))
    type_and_send(window, "a draft I care about")
    await until(lambda: len(loopback.requests) == 1)
    window.composer.set_text("and my next thought")  # typed while it waited
    window.composer.stop_requested.emit()
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(lambda: "a draft I care about" in window.composer.text())
    assert window.composer.text() == "a draft I care about\n\nand my next thought"
    assert "nothing was saved" in window.notice_label.text()


async def test_failed_welcome_draft_shows_the_error_and_keeps_the_text(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    loopback.enqueue(
        CHAT, openai_json_error(401, "Bad key for this server", code="invalid_api_key")
    )
    type_and_send(window, "hello there")
    await until(lambda: window.composer.text() == "hello there")
    assert "Bad key for this server" in window.notice_label.text()
    assert await db_count(services, "SELECT COUNT(*) FROM threads") == 0


async def test_two_threads_stream_at_once_while_switching(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    pieces = [delta(f"A{i} ") for i in range(1, 60)]
    loopback.enqueue(CHAT, raw_stream([*pieces, Hang()], delay=0.03))
    type_and_send(window, "thread A")
    await until(lambda: not window.presenter.is_draft)
    thread_a = window.presenter.key
    window.presenter.new_chat()
    loopback.enqueue(CHAT, raw_stream([delta("B-part "), Hang()]))
    type_and_send(window, "thread B")
    await until(lambda: not window.presenter.is_draft)
    thread_b = window.presenter.key
    assert thread_a != thread_b
    assert window.chat.is_running(thread_a) and window.chat.is_running(thread_b)
    assert window.thread_model.running_ids() >= {thread_a, thread_b}
    # back to A mid-stream: the text that arrived meanwhile is shown, and keeps growing
    window.presenter.open_thread(thread_a)
    await until(
        lambda: (
            window.presenter.current_thread is not None
            and window.presenter.current_thread.id == thread_a
        )
    )
    answer_a = window.timeline.message_ids()[1]
    shown = window.timeline.message_text(answer_a)
    assert shown.startswith("A1 A2 ")
    await until(lambda: len(window.timeline.message_text(answer_a)) > len(shown))
    # Stop applies to the shown thread only
    window.composer.stop_requested.emit()
    await until(lambda: not window.chat.is_running(thread_a))
    assert window.chat.is_running(thread_b)
    window.presenter.open_thread(thread_b)
    await until(
        lambda: any(
            window.timeline.message_text(i) == "B-part " for i in window.timeline.message_ids()
        )
    )
    window.composer.stop_requested.emit()
    await until(lambda: not window.chat.is_running(thread_b))
    stored_a = await services.threads.get_active_messages(thread_a)
    assert stored_a[-1].status is MessageStatus.STOPPED
    assert stored_a[-1].text == window.timeline.message_text(answer_a) or stored_a[
        -1
    ].text.startswith(shown)


async def test_model_picker_lists_all_models_and_new_threads_take_the_last_choice(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    picker = window.header.model_picker if hasattr(window.header, "model_picker") else None
    assert window.presenter.choice == ("Local", "m1")
    window.header.model_chosen.emit("Local", "m2")
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    type_and_send(window, "which model?")
    await until(lambda: len(loopback.requests) == 1)
    assert loopback.requests[0].json["model"] == "m2"
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert await services.settings.get("chat.last_model") == {"provider": "Local", "model": "m2"}
    window.presenter.new_chat()
    assert window.presenter.choice == ("Local", "m2")
    del picker


def _not_blank(path: Path) -> None:
    image = QImage(str(path))
    assert not image.isNull() and image.width() > 600
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)
    }
    assert len(colours) > 8, "the screenshot looks blank"


@pytest.mark.parametrize(
    ("theme", "language"), [("light", "en"), ("dark", "en"), ("light", "zh_CN")]
)
async def test_screenshots_are_not_blank(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    tmp_path: Path,
    theme: str,
    language: str,
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    loopback.enqueue(CHAT, openai_stream(["## 标题\n\n- one\n- two\n\n`code` 中文"]))
    type_and_send(window, "截图测试 screenshot")
    await until(lambda: not window.chat.is_running(window.presenter.key))
    try:
        install_translator(app, language)
        window.timeline.set_dark(apply_theme(app, theme))
        await asyncio.sleep(0.1)
        path = tmp_path / f"{theme}-{language}.png"
        assert window.grab().save(str(path))
        _not_blank(path)
        if language == "zh_CN":
            assert window.new_chat_action.text() != "New chat"
    finally:
        install_translator(app, "en")
        apply_theme(app, "light")


async def test_escape_in_the_composer_stops(
    window: MainWindow, loopback: LoopbackServer, qtbot
) -> None:  # type: ignore[no-untyped-def]
    loopback.enqueue(CHAT, raw_stream([delta("x"), Hang()]))
    type_and_send(window, "go")
    await until(
        lambda: window.chat.is_running(window.presenter.key) and len(loopback.requests) == 1
    )
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Escape)
    await until(lambda: not window.chat.is_running(window.presenter.key))


async def test_window_geometry_and_splitter_are_remembered(qtbot, services: Services) -> None:  # type: ignore[no-untyped-def]
    first = MainWindow(services)
    qtbot.addWidget(first)
    first.show()
    await first.start()
    first.resize(760, 560)
    first.splitter.setSizes([250, 500])
    await asyncio.sleep(0.05)
    expected, expected_size = first.splitter.sizes(), first.size()
    assert expected_size.height() == 560
    first.close()
    second = MainWindow(services)
    qtbot.addWidget(second)
    second.show()
    await second.start()
    await second.state.restore()
    await asyncio.sleep(0.05)
    assert second.size() == expected_size
    assert second.splitter.sizes() == expected
    await close_window(first)
    await close_window(second)


async def test_the_token_encoding_loads_while_the_window_settles(window: MainWindow) -> None:
    """tiktoken's BPE holds the GIL for ~180 ms while it is built, wherever it
    runs: a normal launch loads it shortly after the window shows, off the
    Qt thread, so that the first answer or keystrokes do not pay it."""
    from mira_desktop.ui.launch import start_token_warm_up

    tokens = window.services.tokens
    assert not tokens.loaded  # nothing counted tokens yet
    start_token_warm_up(window, delay_s=0.05)
    await until(lambda: tokens.loaded, timeout=20)
    assert tokens.count("Hello world") == 2


async def _an_answer_the_full_disk_cannot_take(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> tuple[str, str]:
    """A thread with one saved turn, then the database capped at its size
    (SQLite's own SQLITE_FULL) and a short question whose long answer does not
    fit: (thread id, the answer)."""
    loopback.enqueue(CHAT, openai_stream(["first"]))
    type_and_send(window, "Question one")
    await until(
        lambda: not window.chat.is_running(window.presenter.key) and not window.presenter.is_draft
    )
    key = window.presenter.key

    await services.store.worker.run(fill_the_disk)
    answer = "too long to keep " * 25_000  # 425 kB
    loopback.enqueue(CHAT, openai_stream([answer[:2000], answer[2000:]]))
    type_and_send(window, "short")
    await until(lambda: not window.chat.is_running(key) and len(window.timeline.message_ids()) == 4)
    return key, answer


async def test_an_answer_the_full_disk_could_not_keep_stays_shown_then_is_saved(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    """The database capped at its size (SQLite's own SQLITE_FULL): a short
    question fits, its long answer does not. The answer is shown whole, with
    why it is not saved — also after leaving the chat and coming back, where
    the half-written row used to show as an answer still streaming."""
    key, answer = await _an_answer_the_full_disk_cannot_take(window, services, loopback)

    def shown() -> tuple[str, str]:
        answer_id = window.timeline.message_ids()[-1]
        widget = window.timeline.message_widget(answer_id)
        assert widget is not None
        return window.timeline.message_text(answer_id), widget.findChild(
            object, "messageError"
        ).text()

    text, error = shown()
    assert text == answer and error.startswith("This answer could not be saved: the disk is full.")
    window.presenter.new_chat()
    window.presenter.open_thread(key)
    await until(
        lambda: (
            window.presenter.current_thread is not None
            and window.presenter.current_thread.id == key
            and len(window.timeline.message_ids()) == 4
        )
    )
    assert shown() == (text, error)
    stored = await services.threads.get_active_messages(key)
    assert stored[-1].status is MessageStatus.STREAMING  # what the database holds
    # room again: coming back to the chat saves the kept answer
    await services.store.worker.run(free_the_disk)
    window.presenter.new_chat()
    window.presenter.open_thread(key)
    await until(lambda: window.chat.unsaved(stored[-1].id) is None)
    stored = await services.threads.get_active_messages(key)
    assert (stored[-1].status, stored[-1].text) == (MessageStatus.COMPLETE, answer)
    await until(lambda: window.notice_bar.isVisible())
    assert window.notice_label.text() == "Saved the answer that did not fit on the disk before."
    widget = window.timeline.message_widget(stored[-1].id)
    assert widget is not None and window.timeline.message_text(stored[-1].id) == answer
    error_label = widget.findChild(object, "messageError")
    assert error_label is None or not error_label.isVisible()  # shown as complete now


async def test_quitting_with_an_unsaved_answer_asks_first(
    window: MainWindow, services: Services, loopback: LoopbackServer, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    await _an_answer_the_full_disk_cannot_take(window, services, loopback)
    asked: list[str] = []
    answer = QMessageBox.StandardButton.No

    def question(parent, title: str, text: str, *args):  # type: ignore[no-untyped-def]
        asked.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    window.quit_action.trigger()
    assert window.isVisible()  # "No": the window stays, the answer with it
    assert asked and asked[0].startswith("1 answer(s) could not be saved")
    answer = QMessageBox.StandardButton.Yes
    window.quit_action.trigger()
    assert not window.isVisible() and len(asked) == 2


async def test_the_system_closing_the_window_does_not_ask(
    window: MainWindow, services: Services, loopback: LoopbackServer, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    await _an_answer_the_full_disk_cannot_take(window, services, loopback)
    monkeypatch.setattr(QMessageBox, "question", None)  # any question would fail
    window.close_without_asking()  # what a signal or the session ending does
    assert not window.isVisible()


async def test_a_kept_answer_on_a_branch_not_shown_is_saved_too(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    key, answer = await _an_answer_the_full_disk_cannot_take(window, services, loopback)
    kept_id = window.timeline.message_ids()[-1]
    question_id = window.timeline.message_ids()[-2]
    await services.store.worker.run(free_the_disk)
    # an edit of the question: a new branch, shown instead of the kept answer's
    loopback.enqueue(CHAT, openai_stream(["the edited answer"]))
    window.chat.edit(key, key, question_id, "short, edited", provider="Local", model="m1")
    await until(lambda: not window.chat.is_running(key))
    window.presenter.new_chat()
    window.presenter.open_thread(key)
    await until(lambda: window.chat.unsaved(kept_id) is None)
    assert kept_id not in window.timeline.message_ids()  # still on the other branch
    rows = await services.store.worker.run(
        lambda db: db.execute(
            "SELECT status, text FROM messages WHERE id = ?", [kept_id]
        ).fetchone()
    )
    assert tuple(rows) == ("complete", answer)


@pytest.mark.parametrize("how", ["delete forever", "empty the trash"])
async def test_a_kept_answer_of_a_thread_deleted_forever_is_let_go(
    window: MainWindow, services: Services, loopback: LoopbackServer, monkeypatch, how: str
) -> None:  # type: ignore[no-untyped-def]
    """Nothing is left to save a kept answer into once its thread is deleted
    forever (after the user said yes to that): quitting no longer asks."""
    key, _ = await _an_answer_the_full_disk_cannot_take(window, services, loopback)
    await services.store.worker.run(free_the_disk)
    window.presenter.new_chat()
    other, _ = await _an_answer_the_full_disk_cannot_take(window, services, loopback)
    await services.store.worker.run(free_the_disk)
    assert window.chat.unsaved_count() == 2 and key != other
    asked: list[str] = []

    def question(parent, title: str, text: str, *args):  # type: ignore[no-untyped-def]
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    await services.history.trash_many([key])
    if how == "delete forever":
        window.history_actions.purge([key])
    else:
        window.history_actions.empty_trash()
    await until(lambda: window.chat.unsaved_count() == 1)
    assert window.chat.unsaved_threads() == {other}  # the other chat's answer stays kept
    assert await services.threads.find_thread(key) is None


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_a_long_error_beside_retry_is_shown_whole_in_a_launch_on_the_thread(
    window: MainWindow,
    data_dir: Path,
    loopback: LoopbackServer,
    tmp_path: Path,
    monkeypatch,
    theme: str,
) -> None:  # type: ignore[no-untyped-def]
    """A failed answer's error wraps beside Retry. A launch on that thread
    measures its row while the window is still opening (the timeline 160 px
    wide), then at its width: the label used to keep the first measure's
    height there, its last line cut off."""
    import argparse
    import sys

    from mira_desktop.ui import launch

    loopback.enqueue(CHAT, openai_stream(["Fine."]))
    type_and_send(window, "First")
    await until(lambda: not window.presenter.is_draft and not window.chat.is_running(window.presenter.key))  # fmt: skip
    key = window.presenter.key
    words = "the upstream model server could not complete this request because "
    loopback.enqueue(CHAT, openai_json_error(500, words * 3 + "[code 17]"))
    type_and_send(window, "Will this fail?")
    await until(lambda: not window.chat.is_running(key) and len(window.timeline.message_ids()) == 4)  # fmt: skip

    seen: list[tuple[int, int]] = []
    shoot = launch.take_screenshot

    async def looked_at(launched: MainWindow, path: Path, thread_id: str | None) -> int:
        code = await shoot(launched, path, thread_id)
        widget = launched.timeline.message_widget(launched.timeline.message_ids()[-1])
        label = widget.findChild(QLabel, "messageError") if widget is not None else None
        assert label is not None and "[code 17]" in label.text()
        seen.append((label.height(), label.heightForWidth(label.width())))
        return code

    monkeypatch.setattr(launch, "take_screenshot", looked_at)  # looks, changes nothing
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # _main installs its own
    args = argparse.Namespace(screenshot=str(tmp_path / "shot.png"), gui_thread=key, theme=theme, lang="en")  # fmt: skip
    assert await launch._main(QApplication.instance(), args, data_dir) == 0
    [(height, needed)] = seen
    assert height >= needed


async def test_a_launch_on_a_thread_highlights_it_in_the_sidebar(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    """`--thread ID` (and a launch that reopens a thread) shows it open and
    selected, as a click on it would."""
    loopback.enqueue(CHAT, openai_stream(["Fine."]))
    type_and_send(window, "First")
    await until(lambda: not window.presenter.is_draft and not window.chat.is_running(window.presenter.key))  # fmt: skip
    key = window.presenter.key
    window.presenter.new_chat()
    window.sidebar.select_thread(None)
    await window.start(key)
    await until(lambda: window.presenter.key == key and window.sidebar.selected_thread_id() == key)


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
async def test_the_window_fits_800_pixels_with_a_role_a_base_and_a_long_model_name(
    window: MainWindow, tmp_path: Path, lang: str
) -> None:
    """The header's pickers never shrank below their labels and the empty
    state's card was 540 px fixed: the window could not be narrower than
    969 px (1,193 px with a role and a knowledge base bound). Now long labels
    are elided (their text and tooltips stay whole), short ones never cut."""
    from mira_desktop.core.knowledge import KnowledgeBase, KnowledgeBaseStats
    from mira_desktop.core.models import ModelInfo, Role

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    install_translator(app, lang, cache_dir=tmp_path / "qm")
    try:
        header = window.header
        role = Role(id="r1", name="A very thorough research assistant")
        header.role_picker.set_roles([role])
        header.role_picker.set_current("r1")
        base = KnowledgeBaseStats(KnowledgeBase(id="k1", name="Gardening notes and manuals"), 3)
        header.kb_picker.set_bases([base])
        header.kb_picker.set_current("k1")
        long_name = "qwen2.5-coder:32b-instruct-q8_0-with-a-very-long-model-name"
        header.set_models([ModelInfo(name=long_name, provider_name="Local")])
        header.set_current_model("Local", long_name)
        assert window.minimumSizeHint().width() <= 800
        window.resize(800, 600)
        await until(lambda: window.width() == 800)
        await asyncio.sleep(0.05)
        assert "A very thorough researc…" in header.role_picker.text()  # painted elided only
        assert header.role_picker.width() < header.role_picker.sizeHint().width()  # elided
        assert header.title_label.width() >= 96
        for widget in (header.role_picker, header.kb_picker):
            widget.grab()  # paints its elided label
        header.role_picker.set_current(None)  # "No role": short, never cut
        await asyncio.sleep(0.05)
        assert header.role_picker.width() >= header.role_picker.sizeHint().width()
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")
