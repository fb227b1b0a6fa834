"""Removing a provider in Settings while the window uses one of its models: the
thread shown says its model is gone before anything is sent (the composer
points to the model picker), new chats and a restarted window start on a
model that exists, and the errors the window shows name no command-line
command. The real window, Settings dialog and services, on the loopback
server."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import NotFoundError
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.error_texts import error_line
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, openai_stream
from tests.support.qt_async import until

CHAT = "/v1/chat/completions"


async def open_settings(window: MainWindow) -> SettingsDialog:
    window.open_settings()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None
    await until(lambda: dialog.providers_tab.provider_list.count() > 0)
    return dialog


async def remove_in_settings(window: MainWindow, name: str) -> None:
    dialog = await open_settings(window)
    tab = dialog.providers_tab
    row = next(
        i for i in range(tab.provider_list.count()) if tab.provider_list.item(i).text() == name
    )
    tab.provider_list.setCurrentRow(row)
    tab.remove_button.click()
    tab.confirm_remove_button.click()
    await until(lambda: name not in [p.name for p in tab.providers()])
    dialog.close()


async def send(window: MainWindow, loopback: LoopbackServer, text: str, qtbot: Any) -> None:
    count = len(loopback.requests)
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    window.composer.set_text(text)
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(loopback.requests) == count + 1)
    await until(lambda: not window.chat.is_running(window.presenter.key))


async def test_a_thread_on_a_removed_provider_says_so_and_new_chats_use_a_model_that_exists(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    await services.providers.add_provider("Other", "openai", loopback.url + "/v1")
    await services.store.save_listed_models("Other", ["x1"])
    await window.presenter.reload_models()
    await send(window, loopback, "hi", qtbot)
    assert loopback.requests[-1].json["model"] == "m1"

    await remove_in_settings(window, "Local")

    composer = window.composer
    await until(lambda: composer.enabled_reason() is not None)
    reason = composer.enabled_reason() or ""
    assert "Local · m1" in reason and "no longer available" in reason
    assert "Choose another model" in reason
    assert window.header.model_picker.currentText() == "Local · m1 (unavailable)"
    assert not composer.editor.isEnabled()
    assert await services.settings.get("chat.last_model") is None

    window.presenter.new_chat()
    assert window.presenter.choice == ("Other", "x1")
    assert window.header.model_picker.currentText() == "Other · x1"
    assert composer.enabled_reason() is None
    await send(window, loopback, "hello again", qtbot)
    assert loopback.requests[-1].json["model"] == "x1"

    # a window started afterwards (a restart) starts on it too
    await services.providers.remove_provider("Other")
    await services.providers.add_provider("Third", "openai", loopback.url + "/v1")
    await services.store.save_listed_models("Third", ["t1"])
    restarted = MainWindow(services)
    qtbot.addWidget(restarted, before_close_func=lambda w: w.close_without_asking())
    await restarted.start()
    try:
        assert restarted.presenter.choice == ("Third", "t1")
        assert restarted.composer.enabled_reason() is None
    finally:
        await restarted.tasks.cancel_all()
        await restarted.thread_model.aclose()


async def test_a_missing_provider_error_in_the_window_names_no_command(
    services: Services,
) -> None:
    try:
        await services.providers.get_provider("Gone")
    except NotFoundError as exc:
        line = error_line(exc)
    assert line.startswith('No provider named "Gone".')
    assert "mira-desktop" not in line and "Settings → Providers" in line
