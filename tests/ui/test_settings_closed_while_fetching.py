"""Settings closed while "Fetch models" still runs: the fetched models reach
the window's model picker when the fetch ends (the window hears it from the
provider service, not from the dialog, which is gone by then), also for a
first provider, whose chat was waiting for a model. The real window, Settings
dialog and services; the loopback server holds the model list with a Gate."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until
from tests.support.replies import Gate, Reply


def held_models(names: list[str]) -> tuple[Gate, Reply]:
    gate = Gate()
    body = json.dumps({"object": "list", "data": [{"id": n, "object": "model"} for n in names]})
    reply = Reply(headers={"content-type": "application/json"}, chunks=[gate, body.encode()])
    return gate, reply


def picker_items(window: MainWindow) -> list[str]:
    picker = window.header.model_picker
    return [picker.itemText(i) for i in range(picker.count())]


async def fetch_then_close(window: MainWindow, loopback: LoopbackServer) -> None:
    """Fetch models in Settings, close the dialog while the server holds the list."""
    window.open_settings()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None
    tab = dialog.providers_tab
    await until(lambda: tab.form.original() is not None)
    count = len(loopback.requests)
    tab.fetch_button.click()
    await until(lambda: len(loopback.requests) > count)  # the server holds the answer
    dialog.close()


async def test_models_fetched_after_settings_closed_reach_the_picker(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    gate, reply = held_models(["m1", "m2", "m3"])
    loopback.enqueue("/v1/models", reply)
    await fetch_then_close(window, loopback)
    assert "Local · m3" not in picker_items(window)
    gate.open()
    await until(lambda: "Local · m3" in picker_items(window))
    assert [m.name for m in window.presenter.models] == ["m1", "m2", "m3"]


@pytest.fixture
async def bare_services(data_dir: Path, loopback: LoopbackServer) -> AsyncIterator[Services]:
    """A provider without any model yet (added before its list was fetched)."""
    built = build_services(data_dir)
    await built.providers.add_provider("Local", "openai", loopback.url + "/v1")
    yield built
    await built.aclose()


async def test_a_first_providers_models_fetched_after_settings_closed_enable_the_chat(
    qtbot: Any, bare_services: Services, loopback: LoopbackServer
) -> None:
    window = MainWindow(bare_services)
    qtbot.addWidget(window, before_close_func=lambda w: w.close_without_asking())
    window.show()
    await window.start()
    try:
        assert window.composer.enabled_reason() is not None  # no model to talk to
        gate, reply = held_models(["llama3"])
        loopback.enqueue("/v1/models", reply)
        await fetch_then_close(window, loopback)
        gate.open()
        await until(lambda: window.presenter.choice == ("Local", "llama3"))
        assert window.composer.enabled_reason() is None
        assert window.header.model_picker.currentText() == "Local · llama3"
    finally:
        await window.tasks.cancel_all()
        await window.thread_model.aclose()


async def test_a_fetch_ending_keeps_the_models_tab_form_being_edited(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    """The reload after a fetch rewrote every field of the model shown:
    unsaved edits were lost."""
    window.open_settings()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None
    tab, models = dialog.providers_tab, dialog.models_tab
    await until(lambda: models.model_list.count() == 2)
    models.select_model("Local", "m2")
    gate, reply = held_models(["m1", "m2", "m3"])
    loopback.enqueue("/v1/models", reply)
    count = len(loopback.requests)
    tab.fetch_button.click()
    await until(lambda: len(loopback.requests) > count)
    dialog.show_tab("models")
    models.window_spin.setValue(32768)
    models.vision_check.setChecked(True)
    models.threshold_edit.setText("0.7")

    gate.open()
    await until(lambda: models.model_list.count() == 3)
    assert models.title_label.text() == "Local · m2"
    assert models.model_list.currentItem().text() == "Local · m2"
    assert (models.window_spin.value(), models.vision_check.isChecked()) == (32768, True)
    assert models.threshold_edit.text() == "0.7" and models.has_unsaved_changes()

    models.save_button.click()
    await until(lambda: models.status.status() == "ok")
    saved = await services.providers.get_model("Local", "m2")
    assert saved is not None
    assert (saved.context_window, saved.vision, saved.compaction_threshold) == (32768, True, 0.7)
    assert not models.has_unsaved_changes()
