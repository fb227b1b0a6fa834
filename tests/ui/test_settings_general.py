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
        )

    values: list[tuple[object, ...]] = []

    async def poll() -> None:
        while True:
            values.append(await saved())
            if values[-1] == (False, 20, 0, 5):
                return
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), 5)
    dialog.show_tab("general")
    assert dialog.tabs.currentWidget() is tab
