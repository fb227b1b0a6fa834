"""A first start, as a new user meets it: no provider yet. "Add a provider…"
on the first-start screen opens Settings with the Ollama form pre-filled, and
the form stays pre-filled once Settings has loaded. Real services on a fresh
data folder, the loopback server as the model server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.services.ollama_host import ollama_url
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer


@pytest.fixture
async def services(data_dir: Path) -> AsyncIterator[Services]:
    """A first start: no provider at all."""
    built = build_services(data_dir)
    await built.settings.set("chat.auto_title", False)
    yield built
    await built.aclose()


@pytest.fixture
async def window(qtbot: Any, services: Services) -> AsyncIterator[MainWindow]:
    win = MainWindow(services)
    qtbot.addWidget(win, before_close_func=lambda w: w.close_without_asking())
    win.show()
    await win.start()
    yield win
    await win.tasks.cancel_all()
    await win.thread_model.aclose()


def settings_dialog(window: MainWindow) -> SettingsDialog:
    [dialog] = window.findChildren(SettingsDialog)
    return dialog


async def test_add_a_provider_keeps_the_ollama_form_pre_filled_once_settings_loaded(
    window: MainWindow, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", loopback.url.removeprefix("http://"))
    assert window.stack.currentWidget() is window.empty_state
    window.empty_state.add_button.click()
    dialog = settings_dialog(window)
    form = dialog.providers_tab.form
    await dialog.load()  # the load the dialog starts as it shows: its list is empty
    await asyncio.sleep(0.2)
    assert (form.name_edit.text(), form.kind(), form.url_edit.text()) == (
        "Ollama",
        "ollama",
        ollama_url(),
    )
    form.set_provider(None)  # nothing unsaved: the dialog closes without asking
