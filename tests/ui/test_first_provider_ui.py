"""A first start, as a new user meets it: no provider yet. "Add a provider…"
on the first-start screen opens Settings with the Ollama form pre-filled, and
the form stays pre-filled once Settings has loaded; "Add Ollama" reuses an
Ollama the command line added meanwhile. Saving a new provider
fetches its models at once, so the model picker offers them; a server that
lists none says what to do, and the picker and composer say "no models",
not "add a provider". Real services on a fresh data folder, the loopback
server as the model server."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.services.ollama_host import ollama_url
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer, ollama_tags, openai_models
from tests.support.qt_async import until

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
async def services(data_dir: Path) -> AsyncIterator[Services]:
    """A first start: no provider at all."""
    built = build_services(data_dir)
    await built.settings.set("chat.auto_title", False)
    yield built
    await built.aclose()


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


async def open_providers(window: MainWindow) -> SettingsDialog:
    window.open_settings()
    dialog = settings_dialog(window)
    await dialog.load()
    return dialog


def fill_new(dialog: SettingsDialog, kind: str, name: str, url: str) -> None:
    tab = dialog.providers_tab
    tab.start_new(kind=kind)
    tab.form.name_edit.insert(name)  # as typed: textEdited
    tab.form.url_edit.insert(url)


async def test_saving_a_new_provider_fetches_its_models_for_the_picker(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    loopback.set_default("/v1/models", openai_models(["m1", "m2"]))
    dialog = await open_providers(window)
    tab = dialog.providers_tab
    fill_new(dialog, "openai", "LM Studio", loopback.url + "/v1")
    tab.save_button.click()
    await until(lambda: tab.status.text() == "Fetched 2 models.")
    picker = window.header.model_picker
    await until(lambda: picker.isEnabled() and picker.currentText() == "LM Studio · m1")
    assert window.composer.enabled_reason() is None
    assert [r.path for r in loopback.requests] == ["/v1/models"]


async def test_a_new_ollama_with_no_model_pulled_says_what_to_do(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    loopback.set_default("/api/tags", ollama_tags([]))
    dialog = await open_providers(window)
    tab = dialog.providers_tab
    fill_new(dialog, "ollama", "Ollama", loopback.url)
    tab.save_button.click()
    await until(lambda: "ollama pull" in tab.status.text())
    assert tab.status.text() == (
        "“Ollama” has no models yet. Pull one in a terminal (for example "
        "`ollama pull llama3.2`), then click Fetch models."
    )
    picker = window.header.model_picker
    await until(lambda: "fetch them" in picker.currentText())
    assert picker.currentText() == "No models — fetch them in Settings → Providers"
    assert window.composer.enabled_reason() == (
        "No models to chat with yet: fetch them in Settings → Providers"
    )

    loopback.set_default("/api/tags", ollama_tags(["llama3.2"]))  # pulled meanwhile
    tab.fetch_button.click()
    await until(lambda: tab.status.text() == "Fetched 1 model.")
    await until(lambda: picker.currentText() == "Ollama · llama3.2")
    assert window.composer.enabled_reason() is None


async def test_add_ollama_reuses_the_ollama_the_command_line_added_meanwhile(
    window: MainWindow,
    services: Services,
    data_dir: Path,
    loopback: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first-start screen is open; `mira-desktop provider add` adds this
    Ollama in a terminal; then "Add Ollama" (clicked twice): it is reused, not
    added again, and its model is chosen."""
    monkeypatch.setenv("OLLAMA_HOST", loopback.url.removeprefix("http://"))
    loopback.set_default("/api/tags", ollama_tags(["llama3:8b"]))
    assert await window.empty_state.run_detection()
    added = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir),
        "provider", "add", "Local Ollama", "--kind", "ollama", "--base-url", loopback.url + "/",
        cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, stderr = await added.communicate()
    assert added.returncode == 0, stderr

    window.empty_state.add_ollama_button.click()
    window.empty_state.add_ollama_button.click()
    await until(lambda: window.presenter.choice == ("Local Ollama", "llama3:8b"))
    await asyncio.sleep(0.3)  # the second click's work too
    providers = await services.providers.list_providers()
    assert [(p.name, p.base_url) for p in providers] == [("Local Ollama", loopback.url)]
    assert window.header.model_picker.currentText() == "Local Ollama · llama3:8b"


async def test_add_ollama_clicked_twice_adds_one_ollama(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", loopback.url.removeprefix("http://"))
    loopback.set_default("/api/tags", ollama_tags(["llama3:8b"]))
    assert await window.empty_state.run_detection()
    window.empty_state.add_ollama_button.click()
    window.empty_state.add_ollama_button.click()
    await until(lambda: window.presenter.choice == ("Ollama", "llama3:8b"))
    await until(lambda: [r.path for r in loopback.requests].count("/api/tags") == 3)
    providers = await services.providers.list_providers()
    assert [(p.name, p.base_url) for p in providers] == [("Ollama", loopback.url)]
