"""Settings → Agent (PRODUCT.md §11): asking before changes, developer mode
and the web search address are saved at once; an address without {query} is
refused in the interface's language and the old one kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.agent import DEVELOPER_KEY, MODE_KEY, SEARCH_URL_KEY
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.i18n import install_translator


@pytest.fixture
async def services(data_dir: Path) -> AsyncIterator[Services]:
    built = build_services(data_dir)
    yield built
    await built.aclose()


async def stored(services: Services, key: str, value: object) -> None:
    for _ in range(250):
        if await services.settings.get(key) == value:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{key} is not {value!r}")


async def test_the_agent_settings_are_saved_at_once(qtbot: Any, services: Services) -> None:
    url = "http://localhost:8888/search?q={query}&format=json"
    await services.settings.set(SEARCH_URL_KEY, url)
    dialog = SettingsDialog(services.providers, services.settings, data_dir=services.data_dir)
    qtbot.addWidget(dialog)
    await dialog.load()
    tab = dialog.agent_tab
    assert tab.ask.isChecked() and not tab.developer.isChecked()
    assert tab.search_url.text() == url
    tab.ask.setChecked(False)
    await stored(services, MODE_KEY, "auto")
    tab.developer.setChecked(True)
    await stored(services, DEVELOPER_KEY, True)
    tab.search_url.setText("")
    tab.search_url.editingFinished.emit()
    await stored(services, SEARCH_URL_KEY, None)
    dialog.show_tab("agent")
    assert dialog.tabs.currentWidget() is tab


async def test_an_address_without_a_query_slot_is_refused_in_chinese(
    qtbot: Any, services: Services, qapp: Any
) -> None:
    url = "http://localhost:8888/search?q={query}"
    await services.settings.set(SEARCH_URL_KEY, url)
    install_translator(qapp, "zh_CN")
    try:
        dialog = SettingsDialog(services.providers, services.settings)
        qtbot.addWidget(dialog)
        await dialog.load()
        tab = dialog.agent_tab
        tab.search_url.setText("http://localhost:8888/search")
        tab.search_url.editingFinished.emit()
        for _ in range(100):
            if tab.status.text():
                break
            await asyncio.sleep(0.02)
        assert "{query}" in tab.status.text() and "http://" in tab.status.text()
        assert any("\u4e00" <= ch <= "\u9fff" for ch in tab.status.text())  # Chinese
        assert await services.settings.get(SEARCH_URL_KEY) == url  # the old one kept
    finally:
        install_translator(qapp, "en")
