"""Settings → Providers and a provider's saved API key, with the real provider
service (keys in the test's secrets file) and the loopback server: the key can
be removed from the form; a base URL moved to another host asks whether the
key goes there too (No, the default, removes it); a name cleared in the form
is refused rather than silently kept."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until
from tests.support.replies import openai_models

Answer = QMessageBox.StandardButton


@pytest.fixture
async def services(data_dir: Path, loopback: LoopbackServer) -> AsyncIterator[Services]:
    built = build_services(data_dir)
    await built.providers.add_provider("Cloud", "openai", loopback.url + "/v1", "sk-old")
    yield built
    await built.aclose()


class Questions:
    """QMessageBox.question, answered with the next of ``answers`` (No, the
    default answer, when none is left); ``asked``: the texts asked."""

    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.asked: list[str] = []

    def __call__(self, _parent: QWidget, _title: str, text: str, *_args: Any) -> Answer:
        self.asked.append(text)
        return self.answers.pop(0) if self.answers else Answer.No


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> Questions:
    asker = Questions()
    monkeypatch.setattr(QMessageBox, "question", staticmethod(asker))
    return asker


async def open_dialog(qtbot: Any, services: Services) -> SettingsDialog:
    dialog = SettingsDialog(services.providers, services.settings)
    qtbot.addWidget(dialog)
    await dialog.load()
    dialog.show()
    assert dialog.providers_tab.form.original() is not None
    return dialog


def type_url(dialog: SettingsDialog, url: str) -> None:
    edit = dialog.providers_tab.form.url_edit
    edit.selectAll()
    edit.insert(url)  # as typed: textEdited


async def save(qtbot: Any, dialog: SettingsDialog) -> None:
    tab = dialog.providers_tab
    tab.status.clear_status()
    qtbot.mouseClick(tab.save_button, Qt.MouseButton.LeftButton)
    await until(lambda: tab.status.status() in ("ok", "error"))


async def authorization_of_a_fetch(
    qtbot: Any, dialog: SettingsDialog, loopback: LoopbackServer
) -> str | None:
    tab = dialog.providers_tab
    loopback.enqueue("/v1/models", openai_models(["a"]))
    count = len(loopback.requests)
    tab.status.clear_status()
    qtbot.mouseClick(tab.fetch_button, Qt.MouseButton.LeftButton)
    await until(lambda: len(loopback.requests) > count and tab.status.status() == "ok")
    return loopback.requests[-1].headers.get("authorization")


async def test_the_saved_key_can_be_removed_from_the_form(
    qtbot: Any, services: Services, loopback: LoopbackServer
) -> None:
    dialog = await open_dialog(qtbot, services)
    form = dialog.providers_tab.form
    assert await authorization_of_a_fetch(qtbot, dialog, loopback) == "Bearer sk-old"
    assert form.remove_key_check.isVisibleTo(dialog)

    form.remove_key_check.click()
    assert not form.key_edit.isEnabled()
    await save(qtbot, dialog)

    assert dialog.providers_tab.status.status() == "ok"
    assert not (await services.providers.get_provider("Cloud")).has_key
    assert not form.remove_key_check.isVisibleTo(dialog)  # nothing left to remove
    assert await authorization_of_a_fetch(qtbot, dialog, loopback) is None


async def test_a_new_host_asks_whether_the_key_goes_there_and_removes_it_by_default(
    qtbot: Any, services: Services, loopback: LoopbackServer, questions: Questions
) -> None:
    dialog = await open_dialog(qtbot, services)
    port = loopback.url.rsplit(":", 1)[1]

    async def cloud() -> tuple[str, bool]:
        config = await services.providers.get_provider("Cloud")
        return config.base_url, config.has_key

    # the same host (another path): no question, the key stays
    type_url(dialog, f"http://127.0.0.1:{port}/v1/")
    await save(qtbot, dialog)
    assert questions.asked == [] and (await cloud())[1]

    # another host, Cancel: nothing is saved
    questions.answers = [Answer.Cancel]
    type_url(dialog, "https://api.example.com/v1")
    qtbot.mouseClick(dialog.providers_tab.save_button, Qt.MouseButton.LeftButton)
    assert len(questions.asked) == 1
    assert "api.example.com" in questions.asked[0] and "Cloud" in questions.asked[0]
    assert await cloud() == (loopback.url + "/v1", True)

    # Yes keeps the key
    questions.answers = [Answer.Yes]
    await save(qtbot, dialog)
    assert await cloud() == ("https://api.example.com/v1", True)

    # No, the default answer, removes it
    type_url(dialog, "https://other.example.org/v1")
    await save(qtbot, dialog)
    assert len(questions.asked) == 3 and "other.example.org" in questions.asked[2]
    assert await cloud() == ("https://other.example.org/v1", False)
    assert not dialog.providers_tab.form.remove_key_check.isVisibleTo(dialog)


async def test_a_cleared_name_is_refused(qtbot: Any, services: Services) -> None:
    dialog = await open_dialog(qtbot, services)
    tab = dialog.providers_tab
    tab.form.name_edit.selectAll()
    tab.form.name_edit.del_()
    await save(qtbot, dialog)
    assert tab.status.status() == "error"
    assert "needs a name" in tab.status.text()
    assert [p.name for p in await services.providers.list_providers()] == ["Cloud"]


async def test_a_key_pasted_with_an_invisible_character_is_refused_in_plain_words(
    qtbot: Any, services: Services, loopback: LoopbackServer
) -> None:
    """Test connection with a key copied from a web page (a zero-width space
    inside): the form says to paste it again, never "'ascii' codec…", and the
    saved key stays."""
    dialog = await open_dialog(qtbot, services)
    tab = dialog.providers_tab
    tab.form.key_edit.insert("  sk-or-v1-abc\u200bdef  ")  # as typed: textEdited
    tab.status.clear_status()
    qtbot.mouseClick(tab.test_button, Qt.MouseButton.LeftButton)
    await until(lambda: tab.status.status() in ("ok", "error"))

    assert tab.status.status() == "error"
    assert "paste it again" in tab.status.text()
    assert "codec" not in tab.status.text() and "sk-or" not in tab.status.text()
    assert loopback.requests == []
    saved = await services.providers.get_provider("Cloud")
    assert services.secrets.get(saved.id) == "sk-old"
    tab.form.key_edit.clear()  # nothing left unsaved: the dialog closes without asking
