"""The conversation tree in the real MainWindow (qasync, loopback model server,
real data folder): Edit → branch with the "‹ k/n ›" switcher, Regenerate with
presets and custom guidance, the Retry of a failed answer as a new version,
Undo last turn (menu and Ctrl+Z) with Restore, busy input, Help → Check data,
and screenshots of a thread with versions and the Regenerate menu open."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QDialog, QMenu

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import MessageRole, MessageStatus
from mira_desktop.ui.dialogs.doctor_dialog import DoctorDialog
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.message_editor import UserEditWidget
from mira_desktop.ui.timeline.user_bubble import UserMessageWidget
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import (
    Hang,
    LoopbackServer,
    openai_json_error,
    openai_stream,
    raw_stream,
)
from tests.support.qt_async import until

CHAT = "/v1/chat/completions"
OLD = "2020-01-01T00:00:00.000Z"


def delta(text: str) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}) + "\n"


def idle(window: MainWindow) -> bool:
    return not window.chat.is_running(window.presenter.key) and window.tree.can_act()


async def ask(window: MainWindow, loopback: LoopbackServer, question: str, answer: str) -> None:
    """One complete turn through the composer."""
    loopback.enqueue(CHAT, openai_stream([answer]))
    count = window.timeline.message_count()
    window.composer.set_text(question)
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: window.timeline.message_count() == count + 2 and idle(window))
    await until(lambda: window.timeline.message_text(window.timeline.message_ids()[-1]) == answer)


def texts(window: MainWindow) -> list[str]:
    return [window.timeline.message_text(i) for i in window.timeline.message_ids()]


def widget_of(window: MainWindow, index: int):  # type: ignore[no-untyped-def]
    message_id = window.timeline.message_ids()[index]
    window.timeline.scroll_to_message(message_id)
    return window.timeline.message_widget(message_id)


async def tiers(services: Services, **tier_of: str) -> None:
    for model, tier in tier_of.items():
        await services.providers.update_model_settings(
            "Local", model, context_window=None, vision=False, tier=tier, compaction_threshold=None
        )


async def active_leaf(services: Services, thread_id: str) -> str | None:
    return (await services.threads.get_thread(thread_id)).active_leaf_id


async def test_edit_creates_a_branch_and_the_switcher_goes_back(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await ask(window, loopback, "Question one", "first answer")
    thread_id = window.presenter.key
    first_answer = window.timeline.message_ids()[1]
    bubble = widget_of(window, 0)
    assert isinstance(bubble, UserMessageWidget)
    assert not bubble.edit_button.isVisibleTo(bubble)  # only on hover
    bubble.set_hovered(True)
    assert bubble.edit_button.isVisibleTo(bubble)
    bubble.edit_button.click()
    editor = widget_of(window, 0)
    assert isinstance(editor, UserEditWidget)
    assert editor.editor.toPlainText() == "Question one"
    editor.editor.setPlainText("Question one, edited")
    loopback.enqueue(CHAT, openai_stream(["second ", "answer"], delay=0.05))
    editor.save_button.click()
    await until(lambda: not window.timeline.actions_enabled())  # streaming: no actions
    await until(lambda: idle(window) and texts(window) == ["Question one, edited", "second answer"])
    sent = loopback.requests[-1].json["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"] == ["Question one, edited"]
    new_user = widget_of(window, 0)
    assert isinstance(new_user, UserMessageWidget)
    await until(lambda: new_user.version_switcher.text() == "2/2")
    assert not new_user.version_switcher.next_button.isEnabled()
    assert await active_leaf(services, thread_id) == window.timeline.message_ids()[1]
    new_user.version_switcher.prev_button.click()
    await until(lambda: texts(window) == ["Question one", "first answer"])
    old_user = widget_of(window, 0)
    assert isinstance(old_user, UserMessageWidget)
    assert old_user.version_switcher.text() == "1/2"
    assert await active_leaf(services, thread_id) == first_answer
    old_user.version_switcher.next_button.click()
    await until(lambda: texts(window) == ["Question one, edited", "second answer"])


async def test_actions_wait_for_a_saved_idle_thread(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    assert window.presenter.is_draft and not window.timeline.actions_enabled()
    loopback.enqueue(CHAT, raw_stream([delta("Partial"), Hang()]))
    window.composer.set_text("hello")
    window.composer.send_requested.emit("hello")
    await until(lambda: "Partial" in texts(window) and not window.presenter.is_draft)
    assert not window.timeline.actions_enabled()
    assert not window.undo_turn_action.isEnabled()
    answer = widget_of(window, 1)
    assert isinstance(answer, AssistantMessageWidget)
    assert not answer.regenerate_button.isVisibleTo(answer)
    window.composer.stop_requested.emit()
    await until(lambda: idle(window))
    assert window.timeline.actions_enabled() and window.undo_turn_action.isEnabled()
    answer = widget_of(window, 1)
    assert answer.regenerate_button.isVisibleTo(answer)


async def test_regenerate_more_concise_sends_the_guidance_and_adds_a_version(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await ask(window, loopback, "Explain tides", "A long answer about tides.")
    original = window.timeline.message_ids()[1]
    answer = widget_of(window, 1)
    assert isinstance(answer, AssistantMessageWidget)
    loopback.enqueue(CHAT, openai_stream(["Moon pulls water."]))
    answer.regenerate_button.action_for("concise").trigger()
    await until(lambda: idle(window) and texts(window)[-1] == "Moon pulls water.")
    last_user = loopback.requests[-1].json["messages"][-1]["content"]
    assert last_user.startswith("Explain tides")
    assert "[Regeneration guidance: Make the answer more concise.]" in last_user
    assert len(texts(window)) == 2
    new = widget_of(window, 1)
    await until(lambda: new.version_switcher.text() == "2/2")
    # custom guidance: a small multi-line dialog
    loopback.enqueue(CHAT, openai_stream(["Tides, in a haiku."]))
    new.regenerate_button.action_for("custom").trigger()
    dialog = window.tree.guidance_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.setTextValue("Answer as a haiku")
    dialog.done(QDialog.DialogCode.Accepted)
    await until(lambda: idle(window) and texts(window)[-1] == "Tides, in a haiku.")
    sent = loopback.requests[-1].json["messages"][-1]["content"]
    assert "[Regeneration guidance: Answer as a haiku]" in sent
    third = widget_of(window, 1)
    await until(lambda: third.version_switcher.text() == "3/3")
    third.version_switcher.prev_button.click()
    third.version_switcher.prev_button.click()
    await until(lambda: texts(window)[-1] == "A long answer about tides.")
    assert await active_leaf(services, window.presenter.key) == original


async def test_retry_of_a_failed_answer_is_a_new_version_not_a_new_turn(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await tiers(services, m1="fast", m2="standard")
    await ask(window, loopback, "Question one", "first")
    loopback.enqueue(CHAT, openai_json_error(500, "backend exploded", type="server_error"))
    window.composer.send_requested.emit("Question two")
    await until(lambda: window.timeline.message_count() == 4 and idle(window))
    failed = widget_of(window, 3)
    assert isinstance(failed, AssistantMessageWidget) and failed.status_box is not None
    await until(lambda: failed.status_box.retry.isVisibleTo(failed))
    loopback.enqueue(CHAT, openai_stream(["second, at last"]))
    failed.status_box.retry.click()
    await until(lambda: idle(window) and texts(window)[-1] == "second, at last")
    request = loopback.requests[-1].json
    assert request["model"] == "m1"  # the thread's model: no escalation surprise
    contents = [m["content"] for m in request["messages"]]
    assert contents.count("Question two") == 1 and contents[-1] == "Question two"
    branch = await services.threads.get_active_messages(window.presenter.key)
    assert [m.role for m in branch].count(MessageRole.USER) == 2
    retried = widget_of(window, 3)
    await until(lambda: retried.version_switcher.text() == "2/2")
    # a plain Retry from the menu escalates, and says so under the answer
    loopback.enqueue(CHAT, openai_stream(["escalated answer"]))
    retried.regenerate_button.action_for("retry").trigger()
    await until(lambda: idle(window) and texts(window)[-1] == "escalated answer")
    assert loopback.requests[-1].json["model"] == "m2"
    note = widget_of(window, 3).note_label
    assert note.isVisibleTo(note.parentWidget()) and "m2" in note.text()
    window.presenter.new_chat()
    window.presenter.open_thread(branch[0].thread_id)
    await until(lambda: texts(window)[-1:] == ["escalated answer"])
    reloaded = widget_of(window, 3)
    assert "m2" in reloaded.note_label.text()
    assert reloaded.version_switcher.text() == "3/3"


async def test_retry_is_disabled_while_the_thread_answers_and_says_why(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    await ask(window, loopback, "Question one", "first")
    loopback.enqueue(CHAT, openai_json_error(500, "backend exploded", type="server_error"))
    window.composer.send_requested.emit("Question two")
    await until(lambda: window.timeline.message_count() == 4 and idle(window))
    failed_id = window.timeline.message_ids()[3]
    failed = widget_of(window, 3)
    assert isinstance(failed, AssistantMessageWidget) and failed.status_box is not None
    retry = failed.status_box.retry
    await until(lambda: retry.isVisibleTo(failed) and retry.isEnabled())
    loopback.enqueue(CHAT, raw_stream([delta("Partial"), Hang()]))
    window.composer.send_requested.emit("Question three")
    await until(lambda: "Partial" in texts(window))
    failed = widget_of(window, 3)
    assert isinstance(failed, AssistantMessageWidget) and failed.status_box is not None
    retry = failed.status_box.retry
    assert retry.isVisibleTo(failed) and not retry.isEnabled()
    assert "stopped answering" in retry.toolTip()
    requests = len(loopback.requests)
    window.tree.retry(failed_id)  # a click that beat the button's update
    assert "still answering" in window.notice_bar.text()
    assert len(loopback.requests) == requests
    window.composer.stop_requested.emit()
    await until(lambda: idle(window))
    failed = widget_of(window, 3)
    assert isinstance(failed, AssistantMessageWidget) and failed.status_box is not None
    assert failed.status_box.retry.isEnabled()


async def test_undo_last_turn_from_the_menu_and_restore(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await ask(window, loopback, "one", "answer one")
    await ask(window, loopback, "two", "answer two")
    assert window.undo_turn_action in window.header.menu.actions()
    assert window.undo_turn_action in window.edit_menu.actions()
    window.undo_turn_action.trigger()
    await until(lambda: texts(window) == ["one", "answer one"])
    assert window.notice_bar.isVisible() and "trash" in window.notice_bar.text()
    assert window.notice_bar.action_button.isVisible()
    trashed = await services.store.worker.run(
        lambda db: db.execute(
            "SELECT COUNT(*) FROM messages WHERE deleted_at IS NOT NULL"
        ).fetchone()[0]
    )
    assert trashed == 2
    window.notice_bar.action_button.click()
    await until(lambda: texts(window) == ["one", "answer one", "two", "answer two"])
    assert not window.notice_bar.isVisible()


async def test_undone_turns_come_back_after_their_notice_is_gone(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot
) -> None:  # type: ignore[no-untyped-def]
    await ask(window, loopback, "one", "answer one")
    await ask(window, loopback, "two", "answer two")
    assert window.restore_turn_action in window.edit_menu.actions()
    assert window.restore_turn_action in window.header.menu.actions()
    window.undo_turn_action.trigger()
    await until(lambda: texts(window) == ["one", "answer one"])
    window.undo_turn_action.trigger()  # its notice replaces the first one's
    await until(lambda: texts(window) == [])
    window.presenter.notice.emit("")  # the notice went (another notice, a send…)
    window.activateWindow()
    editor = window.composer.editor
    editor.setFocus()
    await until(lambda: QApplication.focusWidget() is editor)
    await until(window.restore_turn_action.isEnabled)
    qtbot.keyClick(editor, Qt.Key.Key_Z, CTRL_SHIFT)  # the latest undone first
    await until(lambda: texts(window) == ["one", "answer one"])
    window.restore_turn_action.trigger()
    await until(lambda: texts(window) == ["one", "answer one", "two", "answer two"])
    window.restore_turn_action.trigger()
    await until(lambda: "no undone turn" in window.notice_bar.text())
    qtbot.keyClicks(editor, "draft")  # a composer with text keeps its own redo
    assert not window.restore_turn_action.isEnabled()


CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


async def test_branch_into_a_new_chat_from_an_answers_menu_opens_the_copy(
    window: MainWindow, services: Services, loopback: LoopbackServer, qapp: Any
) -> None:
    await ask(window, loopback, "one", "answer one")
    await ask(window, loopback, "two", "answer two")
    original = window.presenter.key
    widget = widget_of(window, 1)
    menu = widget.findChild(QMenu, "messageMoreMenu")
    assert menu is not None
    install_translator(qapp, "zh_CN")
    try:
        menu.aboutToShow.emit()
        [branch] = [a for a in menu.actions() if a.objectName() == "message:branch"]
        assert branch.text() == "在新对话中分支" and branch.isEnabled()
        branch.trigger()
        await until(lambda: window.presenter.key != original)
        await until(lambda: texts(window) == ["one", "answer one"])
        copy = await services.threads.get_thread(window.presenter.key)
        assert copy.title.startswith("分支 · ")
        assert "已在新对话中分支" in window.notice_bar.text()
        await until(lambda: window.sidebar.selected_thread_id() == copy.id)
    finally:
        install_translator(qapp, "en")
    # the original keeps both turns
    branch = await services.conversation.active_branch(original)
    assert [m.text for m in branch] == ["one", "answer one", "two", "answer two"]


async def test_a_second_click_while_branching_makes_no_second_copy(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await ask(window, loopback, "one", "answer one")
    answer = window.timeline.message_ids()[1]
    window.tree.branch_into_new_chat(answer)
    window.tree.branch_into_new_chat(answer)  # before the first copy is written
    await until(lambda: window.presenter.key is not None and "Branch" in window.notice_bar.text())
    task = window.tasks.get("branch")
    if task is not None:
        await asyncio.wait({task})
    assert await services.threads.count_threads() == 2  # the chat and one copy


async def test_ctrl_z_undoes_a_turn_only_from_an_empty_composer(
    window: MainWindow, loopback: LoopbackServer, qtbot
) -> None:  # type: ignore[no-untyped-def]
    await ask(window, loopback, "one", "answer one")
    await ask(window, loopback, "two", "answer two")
    window.activateWindow()
    editor = window.composer.editor
    editor.setFocus()
    await until(lambda: QApplication.focusWidget() is editor)
    qtbot.keyClicks(editor, "draft")
    assert not window.undo_turn_action.isEnabled()
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    await asyncio.sleep(0.2)
    assert editor.toPlainText() != "draft"  # the composer's own undo
    assert window.timeline.message_count() == 4
    window.composer.clear()  # empty, with no undo history of its own
    await until(lambda: window.undo_turn_action.isEnabled())
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: texts(window) == ["one", "answer one"])
    assert window.notice_bar.action_button.isVisible()


async def test_enter_while_answering_stops_keeps_and_sends_next(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await ask(window, loopback, "warm up", "ready")
    loopback.enqueue(CHAT, raw_stream([delta("Partial "), delta("essay"), Hang()]))
    window.composer.send_requested.emit("Write a long essay")
    await until(lambda: "Partial essay" in texts(window))
    assert window.composer.is_running()
    loopback.enqueue(CHAT, openai_stream(["Sure, shorter."]))
    window.composer.set_text("Actually, keep it short")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: idle(window) and texts(window)[-1] == "Sure, shorter.")
    assert texts(window) == [
        "warm up",
        "ready",
        "Write a long essay",
        "Partial essay",
        "Actually, keep it short",
        "Sure, shorter.",
    ]
    branch = await services.threads.get_active_messages(window.presenter.key)
    assert branch[3].status is MessageStatus.STOPPED and branch[3].text == "Partial essay"
    stopped = widget_of(window, 3)
    assert isinstance(stopped, AssistantMessageWidget) and stopped.status_box is not None
    sent = loopback.requests[-1].json["messages"]
    assert {"role": "assistant", "content": "Partial essay"} in [
        {"role": m["role"], "content": m["content"]} for m in sent
    ]
    assert sent[-1]["content"] == "Actually, keep it short"


async def test_check_data_lists_problems_and_repair_fixes_them(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await ask(window, loopback, "hello", "hi")
    thread_id = window.presenter.key

    def plant(db) -> None:  # type: ignore[no-untyped-def]
        conn = db.conn
        conn.execute("PRAGMA foreign_keys = OFF")
        try:
            conn.execute("UPDATE threads SET active_leaf_id = 'gone' WHERE id = ?", [thread_id])
            conn.execute(
                "INSERT INTO messages (id, thread_id, parent_id, role, text, created_at, "
                "updated_at) VALUES (?, ?, 'parent-gone', 'user', 'orphan', ?, ?)",
                [new_id(), thread_id, OLD, OLD],
            )
        finally:
            conn.execute("PRAGMA foreign_keys = ON")

    await services.store.worker.run(plant)
    window.open_doctor()
    dialog = window.doctor_dialog
    assert isinstance(dialog, DoctorDialog)
    await until(lambda: dialog.report is not None and not dialog.is_busy())
    assert set(dialog.problem_codes()) == {"active_leaf_invalid", "message_parent_missing"}
    assert dialog.repair_button.isEnabled()
    dialog.repair_button.click()
    await until(lambda: dialog.report is not None and dialog.report.mode == "fix")
    await until(lambda: not dialog.is_busy())
    assert dialog.report.healthy and "healthy" in dialog.summary.text()
    assert dialog.problem_list.count() == 2  # what was done
    assert (await services.doctor.check()).healthy
    dialog.check()
    await until(lambda: not dialog.is_busy() and dialog.report.mode == "check")
    assert (
        dialog.summary.text() == "Everything looks healthy."
        and not dialog.repair_button.isEnabled()
    )
    dialog.close()


async def versions_thread(window: MainWindow, services: Services, loopback: LoopbackServer) -> None:
    """A question edited once (2/2) whose answer was regenerated twice (3/3),
    the last time by an escalated Retry (with its note)."""
    await ask(
        window, loopback, "What is a tree?", "A **tree** is a connected graph without cycles."
    )
    loopback.enqueue(CHAT, openai_stream(["A tree (graph theory) is connected and acyclic."]))
    window.tree.edit(window.timeline.message_ids()[0], "What is a tree, in graph theory?")
    await until(lambda: idle(window) and texts(window)[-1].startswith("A tree (graph"))
    loopback.enqueue(CHAT, openai_stream(["Connected, acyclic."]))
    window.tree.regenerate(window.timeline.message_ids()[1], "concise")
    await until(lambda: idle(window) and texts(window)[-1] == "Connected, acyclic.")
    await tiers(services, m1="fast", m2="standard")
    loopback.enqueue(CHAT, openai_stream(["A connected graph with no cycles; n nodes, n-1 edges."]))
    window.tree.regenerate(window.timeline.message_ids()[1], "retry")
    await until(lambda: idle(window) and texts(window)[-1].endswith("n-1 edges."))


def _save(image, folder: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    assert not image.isNull() and image.width() > 100
    assert image.save(str(folder / name))


@pytest.mark.parametrize(
    ("theme", "language"), [("light", "en"), ("dark", "en"), ("light", "zh_CN")]
)
async def test_screenshots_of_versions_and_the_regenerate_menu(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    tmp_path: Path,
    theme: str,
    language: str,
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    keep = os.environ.get("MIRA_SCREENSHOT_DIR")
    folder = Path(keep) if keep else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    await versions_thread(window, services, loopback)
    # fit the (offscreen) screen, so the menu opens under its button, not pushed aside
    screen = window.screen().availableGeometry()
    window.setGeometry(screen.x(), screen.y(), min(1180, screen.width()), min(780, screen.height()))
    try:
        install_translator(app, language)
        window.timeline.set_dark(apply_theme(app, theme))
        await asyncio.sleep(0.1)
        new = widget_of(window, 1)
        assert isinstance(new, AssistantMessageWidget)
        await until(lambda: new.version_switcher.text() == "3/3")
        assert "m2" in new.note_label.text()
        widget_of(window, 0).set_hovered(True)
        menu = new.regenerate_button.menu()
        menu.popup(new.regenerate_button.mapToGlobal(new.regenerate_button.rect().bottomLeft()))
        await until(menu.isVisible)
        await asyncio.sleep(0.1)
        name = f"{theme}-{language}"
        # the open menu is a window of its own: paint it where it is over the window
        shot = window.grab().toImage()
        painter = QPainter(shot)
        painter.drawPixmap(window.mapFromGlobal(menu.pos()), menu.grab())
        painter.end()
        _save(shot, folder, f"tree-{name}.png")
        if language == "zh_CN":
            assert menu.actions()[0].text() != "Retry"
        menu.close()
        window.timeline.begin_edit(window.timeline.message_ids()[0])
        await asyncio.sleep(0.1)
        _save(window.grab().toImage(), folder, f"tree-edit-{name}.png")
    finally:
        install_translator(app, "en")
        apply_theme(app, "light")


async def test_after_a_run_the_shown_versions_are_those_of_the_database(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    """A version number shown wrong (another process added a version, a
    provisional number) is put right when the next answer ends."""
    await ask(window, loopback, "First question", "First answer.")
    first_answer_id = window.timeline.message_ids()[1]
    shown = window.timeline.message(first_answer_id)
    assert shown is not None
    window.timeline.upsert_message(replace(shown, sibling_index=1, sibling_count=3))
    assert widget_of(window, 1).version_switcher.text() == "2/3"
    await ask(window, loopback, "Second question", "Second answer.")
    await until(lambda: window.timeline.message(first_answer_id).sibling_count == 1)
    assert window.timeline.message(first_answer_id).sibling_index == 0
    assert not widget_of(window, 1).version_switcher.isVisibleTo(widget_of(window, 1))


async def test_think_harder_answers_again_with_the_same_model_reasoning_high(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    """Regenerate → Think harder: a new version from the same model (no tier
    escalation, though one is configured), asked to reason hard; the model's
    own setting stays as it was."""
    await tiers(services, m1="fast", m2="standard")
    await ask(window, loopback, "Is 1,000,003 prime?", "Probably.")
    answer = widget_of(window, 1)
    assert isinstance(answer, AssistantMessageWidget)
    assert answer.regenerate_button.action_for("think").text() == "Think harder"
    loopback.enqueue(CHAT, openai_stream(["Yes: no divisor up to 1,000."]))
    answer.regenerate_button.action_for("think").trigger()
    await until(lambda: idle(window) and texts(window)[-1] == "Yes: no divisor up to 1,000.")
    request = loopback.requests[-1].json
    assert request["model"] == "m1" and request["reasoning_effort"] == "high"
    assert not any("Regeneration guidance" in m["content"] for m in request["messages"])
    new = widget_of(window, 1)
    await until(lambda: new.version_switcher.text() == "2/2")
    branch = await services.threads.get_active_messages(window.presenter.key)
    assert (branch[-1].data or {}).get("reasoning") == "high"
    assert "escalated_from" not in (branch[-1].data or {})
    info = await services.providers.get_model("Local", "m1")
    assert info is not None and info.reasoning is None


async def test_an_answer_cut_at_the_length_limit_says_so_under_it(
    window: MainWindow, services: Services, loopback: LoopbackServer, qapp: Any
) -> None:
    """Nothing told a cut answer from a whole one; its note says so now, also
    after the thread is opened again, and in Chinese."""
    loopback.enqueue(CHAT, openai_stream(["The list: 1. apples 2. pea"], finish_reason="length"))
    window.composer.send_requested.emit("List fruit")
    await until(lambda: window.timeline.message_count() == 2 and idle(window))
    note = widget_of(window, 1).note_label
    await until(lambda: note.isVisibleTo(note.parentWidget()))
    assert note.text().startswith("The model stopped at its length limit")
    thread_id = window.presenter.key
    window.presenter.new_chat()
    install_translator(qapp, "zh_CN")
    try:
        window.presenter.open_thread(thread_id)
        await until(lambda: window.timeline.message_count() == 2)
        assert widget_of(window, 1).note_label.text().startswith("模型在长度上限处停止")
    finally:
        install_translator(qapp, "en")


async def test_reasoning_closed_by_a_lone_tag_moves_to_the_thinking_card_at_the_end(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    """While it streams the reasoning reads as answer text (nothing can tell it
    apart yet); once the answer ends, the window shows it as the model's
    thinking and the answer alone below it."""
    loopback.enqueue(CHAT, openai_stream(["Two and two: four.", "</think>\n\nThe answer is 4."]))
    window.composer.send_requested.emit("2+2?")
    await until(lambda: window.timeline.message_count() == 2 and idle(window))
    await until(lambda: texts(window)[-1] == "The answer is 4.")
    answer = widget_of(window, 1)
    assert isinstance(answer, AssistantMessageWidget) and answer.thinking_card is not None
    assert "</think>" not in answer.body.toPlainText()
