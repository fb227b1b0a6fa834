"""Settings → Providers: a new provider named like an existing one but for
upper and lower case ("local" beside "Local") is refused in the form's
status line, and nothing is added. The real dialog and services."""

from __future__ import annotations

from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from tests.support.qt_async import until


async def test_a_name_differing_only_in_case_is_refused_in_the_form(
    qtbot: Any, services: Services
) -> None:
    dialog = SettingsDialog(services.providers, services.settings)
    qtbot.addWidget(dialog)
    await dialog.load()
    dialog.show()
    tab = dialog.providers_tab
    tab.start_new(kind="openai", name="local", base_url="http://127.0.0.1:9/v1")
    tab.status.clear_status()
    tab.save_button.click()
    await until(lambda: tab.status.status() in ("ok", "error"))
    assert tab.status.status() == "error"
    assert 'A provider named "Local" already exists' in tab.status.text()
    assert "Choose another name." in tab.status.text()
    assert [p.name for p in await services.providers.list_providers()] == ["Local"]
