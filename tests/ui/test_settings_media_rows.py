"""Settings → Chat & data: the image and speech-to-text rows follow the
providers changed in the same dialog — a provider added is offered, a removed
one is not, and a choice whose provider was removed shows as such (the
setting is kept: the feature says its provider is gone) rather than "None".
The real window, Settings dialog and services."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

from mira_desktop.bootstrap import Services
from mira_desktop.core.media_keys import IMAGE_MODEL_KEY, TRANSCRIPTION_MODEL_KEY
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until


def items(combo: QComboBox) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


async def open_settings(window: MainWindow) -> SettingsDialog:
    window.open_settings()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None
    await until(lambda: dialog.general_tab.image_provider.count() > 1)
    return dialog


async def test_the_media_rows_follow_providers_added_and_removed(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await services.settings.set(IMAGE_MODEL_KEY, {"provider": "Local", "model": "gpt-image-1"})
    await services.settings.set(TRANSCRIPTION_MODEL_KEY, {"provider": "Local", "model": "whisper"})
    dialog = await open_settings(window)
    general, tab = dialog.general_tab, dialog.providers_tab
    assert items(general.image_provider) == ["None", "Local"]

    tab.start_new()
    tab.form.name_edit.setText("Fresh")
    tab.form.url_edit.setText(loopback.url + "/v1")
    tab.save_button.click()
    await until(lambda: "Fresh" in items(general.image_provider))
    await until(lambda: "Fresh" in items(general.stt_provider))  # each row reads its own
    assert items(general.stt_provider) == ["None", "Fresh", "Local"]
    assert general.image_provider.currentText() == "Local"

    tab._select("Local")
    # saving "Fresh" fetches its models: the tab is busy (its buttons off) till then
    await until(lambda: tab.remove_button.isEnabled())
    tab.remove_button.click()
    await until(lambda: tab.confirm_remove_button.isEnabled())
    tab.confirm_remove_button.click()
    await until(lambda: "Local" not in items(general.image_provider))
    for combo, field, model in (
        (general.image_provider, general.image_model, "gpt-image-1"),
        (general.stt_provider, general.stt_model, "whisper"),
    ):
        assert items(combo) == ["None", "Fresh", "Local (provider removed)"]
        assert combo.currentText() == "Local (provider removed)" and field.text() == model
    assert await services.settings.model_choice(IMAGE_MODEL_KEY) == ("Local", "gpt-image-1")

    dialog.close()
    dialog = await open_settings(window)
    general = dialog.general_tab
    assert general.image_provider.currentText() == "Local (provider removed)"
    assert general.image_model.text() == "gpt-image-1"
