"""Roles in the real MainWindow: the role library dialog (create, validate,
duplicate, delete with its confirmation) and the header's role picker bound
to a welcome draft and to a saved thread — the role's prompt and its
temperature / top_p / max_tokens reach the loopback server's next request."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from mira_desktop.bootstrap import Services
from mira_desktop.ui.dialogs.role_dialog import RoleDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, openai_stream
from tests.ui.test_attachments_ui import CHAT, until


def request_of(loopback: LoopbackServer, index: int = -1) -> dict[str, Any]:
    body = loopback.requests[index].json
    assert isinstance(body, dict)
    return body


def system_prompt(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


async def until_value(read: Callable[[], Awaitable[object]], expected: object) -> None:
    for _ in range(250):
        if await read() == expected:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never became {expected!r}")


async def open_dialog(window: MainWindow) -> RoleDialog:
    window.context_actions.open_roles()
    dialog = window.context_actions.role_dialog
    assert dialog is not None
    await until(lambda: dialog.isVisible() and dialog.loads > 0)
    return dialog


async def send(window: MainWindow, loopback: LoopbackServer, text: str, qtbot: Any) -> None:
    count = len(loopback.requests)
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    window.composer.set_text(text)
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(loopback.requests) == count + 1)
    await until(lambda: not window.chat.is_running(window.presenter.key))


async def test_create_a_role_in_the_dialog_and_bind_it_to_a_new_chat(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    dialog = await open_dialog(window)
    qtbot.mouseClick(dialog.new_button, Qt.MouseButton.LeftButton)
    form = dialog.form
    form.name_edit.setText("Patient tutor")
    form.description_edit.setText("Explains step by step")
    form.areas["persona"].setPlainText("A calm maths teacher.")
    form.areas["constraints"].setPlainText("Never give the answer straight away.")
    form.temperature.setValue(0.3)
    form.top_p.setValue(0.9)
    form.max_tokens.setValue(300)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    await until(lambda: dialog.role_names() == ["Patient tutor"])
    picker = window.header.role_picker
    await until(lambda: [r.name for r in picker.roles()] == ["Patient tutor"])
    role = picker.roles()[0]
    assert (role.temperature, role.top_p, role.max_tokens) == (0.3, 0.9, 300)
    dialog.close()
    assert picker.text() == "No role"
    picker.choose(role.id)
    assert "Patient tutor" in picker.text()
    await send(window, loopback, "What is 7 × 8?", qtbot)
    body = request_of(loopback)
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.3, 0.9, 300)
    prompt = system_prompt(body)
    assert "A calm maths teacher." in prompt and "Never give the answer" in prompt
    thread = await services.threads.get_thread(window.presenter.key)
    assert thread.role_id == role.id
    assert picker.current_role_id() == role.id
    window.presenter.new_chat()
    assert picker.current_role_id() is None  # a new chat starts without a role


async def test_the_header_binds_and_unbinds_the_role_of_a_saved_thread(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    await send(window, loopback, "hello", qtbot)
    key = window.presenter.key
    assert "temperature" not in request_of(loopback)
    role = await services.roles.create("Pirate", persona="Talks like a pirate.", temperature=1.2)
    await window.context_actions.reload_roles()
    window.header.role_picker.choose(role.id)

    async def bound_role() -> str | None:
        return (await services.threads.get_thread(key)).role_id

    await until_value(bound_role, role.id)
    await send(window, loopback, "ahoy?", qtbot)
    assert request_of(loopback)["temperature"] == 1.2
    assert "Talks like a pirate." in system_prompt(request_of(loopback))
    window.header.role_picker.choose(None)
    await until_value(bound_role, None)
    await send(window, loopback, "plain again", qtbot)
    assert "Talks like a pirate." not in system_prompt(request_of(loopback))
    # reopening the thread shows its role in the picker
    window.header.role_picker.choose(role.id)
    await until(lambda: window.presenter.current_thread is not None)
    window.presenter.new_chat()
    window.presenter.open_thread(key)
    await until(lambda: window.header.role_picker.current_role_id() == role.id)


async def test_duplicate_and_delete_with_a_confirmation_that_threads_keep_history(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    role = await services.roles.create("Critic", style="Terse.")
    await window.context_actions.reload_roles()
    window.header.role_picker.choose(role.id)
    await send(window, loopback, "review this", qtbot)
    key = window.presenter.key
    dialog = await open_dialog(window)
    await until(lambda: dialog.role_names() == ["Critic"])
    await until(lambda: dialog.form.name_edit.text() == "Critic")
    qtbot.mouseClick(dialog.duplicate_button, Qt.MouseButton.LeftButton)
    await until(lambda: sorted(dialog.role_names()) == ["Copy of Critic", "Critic"])
    asked: list[str] = []

    def answer_yes(_parent: object, _title: str, text: str, *args: object) -> object:
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", answer_yes)
    dialog.role_list.setCurrentRow(dialog.role_names().index("Critic"))
    qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: dialog.role_names() == ["Copy of Critic"])
    assert "Critic" in asked[0] and "keep their whole history" in asked[0]
    assert "1" in dialog.status.text()
    thread = await services.threads.get_thread(key)
    assert thread.role_id is None
    assert len(await services.threads.get_active_messages(key)) == 2
    await until(lambda: [r.name for r in window.header.role_picker.roles()] == ["Copy of Critic"])


async def test_a_role_without_a_name_is_refused_in_the_dialog(
    window: MainWindow, qtbot: Any
) -> None:
    dialog = await open_dialog(window)
    qtbot.mouseClick(dialog.new_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    await until(lambda: dialog.status.property("status") == "error")
    assert "name" in dialog.status.text()
    assert dialog.role_names() == []


async def test_a_new_chat_whose_role_is_deleted_sends_without_it(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The draft kept the deleted role's id: the header said "No role" while
    every send was refused ("No role with id …")."""
    role = await services.roles.create("Tutor", persona="Patient and kind.")
    await window.context_actions.reload_roles()
    window.header.role_picker.choose(role.id)
    assert window.context_actions.draft_role_id() == role.id
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *_a: QMessageBox.StandardButton.Yes)
    )
    dialog = await open_dialog(window)
    await until(lambda: dialog.form.name_edit.text() == "Tutor")
    qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    await until(lambda: dialog.role_names() == [])
    dialog.close()
    await until(lambda: window.header.role_picker.roles() == [])
    assert window.context_actions.draft_role_id() is None
    assert window.header.role_picker.text() == "No role"
    await send(window, loopback, "hello there", qtbot)
    assert "Patient and kind." not in system_prompt(request_of(loopback))
    thread = await services.threads.get_thread(window.presenter.key)
    assert thread.role_id is None and window.notice_bar.text() == ""
