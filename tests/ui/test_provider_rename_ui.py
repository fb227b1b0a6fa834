"""Renaming a provider in Settings while the window uses one of its models:
the open conversation keeps its model under the provider's new name (it does
not say "its provider was removed", sending still works), and a new chat
starts on that same model, not on another provider's. The real window,
Settings dialog and services, on the loopback server."""

from __future__ import annotations

from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until
from tests.ui.test_provider_removal_ui import send


async def rename_in_settings(window: MainWindow, name: str, new_name: str) -> None:
    window.open_settings()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None
    tab = dialog.providers_tab
    await until(lambda: tab.provider_list.count() > 0)
    row = next(
        i for i in range(tab.provider_list.count()) if tab.provider_list.item(i).text() == name
    )
    tab.provider_list.setCurrentRow(row)
    tab.form.name_edit.selectAll()
    tab.form.name_edit.insert(new_name)  # as typed: textEdited
    tab.save_button.click()
    await until(lambda: new_name in [p.name for p in tab.providers()])
    dialog.close()


async def test_a_renamed_provider_keeps_the_conversation_and_new_chats_on_its_model(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    # "Another" is listed first: a new chat that lost its choice starts there
    await services.providers.add_provider("Another", "openai", loopback.url + "/v1")
    await services.store.save_listed_models("Another", ["x1"])
    await window.presenter.reload_models()
    assert window.presenter.choice == ("Local", "m1")
    await send(window, loopback, "hi", qtbot)
    thread = window.presenter.current_thread
    assert thread is not None and not window.presenter.is_draft

    await rename_in_settings(window, "Local", "Home")

    picker = window.header.model_picker
    await until(lambda: picker.currentText() == "Home · m1")
    assert window.presenter.choice == ("Home", "m1")
    assert window.composer.enabled_reason() is None
    await send(window, loopback, "still there?", qtbot)
    assert loopback.requests[-1].json["model"] == "m1"
    assert (
        window.presenter.current_thread is not None
        and window.presenter.current_thread.id == thread.id
    )

    window.presenter.new_chat()
    assert window.presenter.choice == ("Home", "m1")
    assert picker.currentText() == "Home · m1"
