"""Settings → Chat & data: each control saves its setting at once, and the data
folder shown is the one in use."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog


@pytest.fixture
async def services(data_dir: Path) -> AsyncIterator[Services]:
    built = build_services(data_dir)
    yield built
    await built.aclose()


async def test_chat_and_data_settings_are_saved_at_once(qtbot, services: Services) -> None:  # type: ignore[no-untyped-def]
    await services.settings.set("attachments.max_mb", 12)
    dialog = SettingsDialog(services.providers, services.settings, data_dir=services.data_dir)
    qtbot.addWidget(dialog)
    await dialog.load()
    tab = dialog.general_tab
    assert tab.max_mb.value() == 12 and tab.purge_days.value() == 30
    assert tab.auto_title.isChecked() and tab.summary_turns.value() == 0
    assert tab.folder_label.text() == str(services.data_dir)

    assert not tab.send_dictation.isChecked()
    tab.send_dictation.setChecked(True)
    tab.auto_title.setChecked(False)
    tab.max_mb.setValue(20)
    tab.purge_days.setValue(0)
    tab.summary_turns.setValue(5)

    async def saved() -> tuple[object, ...]:
        get = services.settings.get
        return (
            await get("chat.auto_title"),
            await get("attachments.max_mb"),
            await get("trash.purge_days"),
            await get("summary.auto_refresh_turns"),
            await get("media.send_dictation"),
        )

    values: list[tuple[object, ...]] = []

    async def poll() -> None:
        while True:
            values.append(await saved())
            if values[-1] == (False, 20, 0, 5, True):
                return
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), 5)
    dialog.show_tab("general")
    assert dialog.tabs.currentWidget() is tab


async def test_change_switches_at_the_next_start_and_can_be_cancelled(
    qtbot, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """The copy is made at the next start (what Mira writes until then is in
    it): Change… records the switch and says so; choosing the current folder
    again cancels it; a folder inside the current one is refused in words."""
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from mira_desktop.paths import DATA_DIR_ENV, chosen_data_dir
    from tests.services.seed import make_thread
    from tests.support.qt_async import until

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    await make_thread(services, "Moves along", ["hello"])
    target = tmp_path / "elsewhere"
    target.mkdir()
    questions: list[str] = []
    chosen = [str(target)]
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: chosen[-1])
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, text, *a: questions.append(text) or QMessageBox.StandardButton.Yes)  # fmt: skip
    dialog = SettingsDialog(services.providers, services.settings, data_dir=services.data_dir, data_folder=services.data_folder)  # fmt: skip
    qtbot.addWidget(dialog)
    await dialog.load()
    tab = dialog.general_tab
    tab.change_folder.click()
    assert questions and questions[0].startswith(f"Copy your conversations, attachments and keys to {target}")  # fmt: skip
    await until(lambda: "when it next starts" in tab.status.text())
    assert chosen_data_dir() is None and not (target / "mira.sqlite3").exists()  # not yet
    again = SettingsDialog(services.providers, services.settings, data_dir=services.data_dir, data_folder=services.data_folder)  # fmt: skip
    qtbot.addWidget(again)
    await again.load()  # the pending switch is shown when Settings opens again
    assert str(target.resolve()) in again.general_tab.status.text()
    # the current folder again: the switch is cancelled, no question asked
    chosen.append(str(services.data_dir))
    tab.change_folder.click()
    await until(lambda: "is cancelled" in tab.status.text())
    assert len(questions) == 1 and services.data_folder.pending() is None
    from mira_desktop.bootstrap import switch_data_folder

    assert switch_data_folder(services.data_dir.resolve()) is None
    # a folder inside the current one, and one holding other things: refused in words
    chosen.append(str(services.data_dir / "media" / "x"))
    tab.change_folder.click()
    assert "is inside the current data folder" in tab.status.text()
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "cat.jpg").write_bytes(b"meow")
    chosen.append(str(tmp_path / "photos"))
    tab.change_folder.click()
    assert "is not empty and holds no Mira data" in tab.status.text()
    assert len(questions) == 1 and services.data_folder.pending() is None


@pytest.mark.parametrize(
    ("kind", "key", "model"),
    [
        ("image", "media.image_model", "gpt-image-1"),
        ("stt", "media.transcription_model", "whisper-1"),
    ],
)
async def test_image_and_speech_models_are_chosen_among_openai_compatible_providers(
    qtbot,  # type: ignore[no-untyped-def]
    services: Services,
    kind: str,
    key: str,
    model: str,
) -> None:
    await services.providers.add_provider("cloud", "openai", "http://127.0.0.1:9/v1")
    await services.providers.add_provider("local", "ollama", "http://127.0.0.1:9")
    dialog = SettingsDialog(services.providers, services.settings, data_dir=services.data_dir)
    qtbot.addWidget(dialog)
    await dialog.load()
    tab = dialog.general_tab
    combo, field = getattr(tab, f"{kind}_provider"), getattr(tab, f"{kind}_model")
    # Ollama's API has neither endpoint: only "None" and the OpenAI-compatible one
    assert [combo.itemText(i) for i in range(combo.count())] == ["None", "cloud"]
    assert combo.currentIndex() == 0 and not field.isEnabled()
    combo.setCurrentIndex(1)
    combo.activated.emit(1)
    assert field.isEnabled()
    field.setText(model)
    field.editingFinished.emit()
    for _ in range(100):
        if await services.settings.get(key):
            break
        await asyncio.sleep(0.02)
    assert await services.settings.get(key) == {"provider": "cloud", "model": model}
    other = "media.transcription_model" if kind == "image" else "media.image_model"
    assert await services.settings.get(other) is None
    again = SettingsDialog(services.providers, services.settings, data_dir=services.data_dir)
    qtbot.addWidget(again)
    await again.load()
    combo, field = getattr(again.general_tab, f"{kind}_provider"), getattr(again.general_tab, f"{kind}_model")  # fmt: skip
    assert combo.currentText() == "cloud" and field.text() == model
    # None: no model
    combo.setCurrentIndex(0)
    combo.activated.emit(0)
    for _ in range(100):
        if await services.settings.get(key) is None:
            break
        await asyncio.sleep(0.02)
    assert await services.settings.get(key) is None
