"""Unsaved edits in the provider, model and role forms are not dropped
without asking: choosing another entry in the list, Add / New, Duplicate, or
closing the dialog (Esc, Close) asks "Save changes to …?" — Save saves first,
Discard lets the edits go, Cancel stays. The real window, dialogs and
services; the question is answered by a replaced QMessageBox.question."""

from __future__ import annotations

from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

from mira_desktop.bootstrap import Services
from mira_desktop.ui.dialogs.role_dialog import RoleDialog
from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until

Answer = QMessageBox.StandardButton


class Questions:
    """QMessageBox.question answered with the next of ``answers``; ``asked``:
    the texts asked."""

    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.asked: list[str] = []

    def __call__(self, _parent: QWidget, _title: str, text: str, *_args: Any) -> Answer:
        self.asked.append(text)
        return self.answers.pop(0)

    def answer(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.asked = []


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> Questions:
    asker = Questions()
    monkeypatch.setattr(QMessageBox, "question", staticmethod(asker))
    return asker


def is_open(dialog: QDialog) -> bool:
    return shiboken6.isValid(dialog) and dialog.isVisible()


async def open_settings(window: MainWindow) -> SettingsDialog:
    window.open_settings()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None
    await until(lambda: dialog.models_tab.model_list.count() > 0)
    return dialog


def type_into(edit: Any, text: str) -> None:
    edit.selectAll()
    edit.insert(text)  # as typed (textEdited)


async def test_provider_edits_are_asked_about_before_they_are_left(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    questions: Questions,
    qtbot: Any,
) -> None:
    await services.providers.add_provider("Other", "openai", loopback.url + "/v1")
    dialog = await open_settings(window)
    tab = dialog.providers_tab
    await until(lambda: tab.provider_list.count() == 2)
    tab._select("Local")
    type_into(tab.form.url_edit, "http://127.0.0.1:9/v1")

    questions.answer(Answer.Cancel)  # another provider: stay
    tab.provider_list.setCurrentRow(1)
    await until(lambda: questions.asked)
    assert questions.asked == ["Save changes to “Local”?"]
    await until(lambda: tab.provider_list.currentItem().text() == "Local")
    assert tab.form.url_edit.text() == "http://127.0.0.1:9/v1"

    questions.answer(Answer.Discard)  # Add: the edits go
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    assert len(questions.asked) == 1 and tab.form.original() is None
    assert (await services.providers.get_provider("Local")).base_url == loopback.url + "/v1"

    tab._select("Other")
    type_into(tab.form.url_edit, "http://127.0.0.1:8/v1")
    questions.answer(Answer.Save)  # closing: saved first, then closed
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert questions.asked == ["Save changes to “Other”?"]
    await until(lambda: not is_open(dialog))
    assert (await services.providers.get_provider("Other")).base_url == "http://127.0.0.1:8/v1"


async def test_model_edits_are_asked_about_before_they_are_left(
    window: MainWindow, services: Services, questions: Questions
) -> None:
    dialog = await open_settings(window)
    dialog.show_tab("models")
    models = dialog.models_tab
    models.select_model("Local", "m1")
    models.window_spin.setValue(8192)

    questions.answer(Answer.Save)  # another model: m1 saved first
    models.model_list.setCurrentRow(1)
    await until(lambda: models.title_label.text() == "Local · m2")
    assert questions.asked == ["Save changes to “Local · m1”?"]
    saved = await services.providers.get_model("Local", "m1")
    assert saved is not None and saved.context_window == 8192

    models.threshold_edit.setText("0.5")
    questions.answer(Answer.Cancel)  # closing: stay, the edit kept
    dialog.buttons.rejected.emit()  # Close
    assert questions.asked == ["Save changes to “Local · m2”?"] and is_open(dialog)
    assert models.threshold_edit.text() == "0.5"
    questions.answer(Answer.Discard)
    dialog.reject()
    await until(lambda: not is_open(dialog))
    saved = await services.providers.get_model("Local", "m2")
    assert saved is None or saved.compaction_threshold is None


async def test_role_edits_are_asked_about_before_they_are_left(
    window: MainWindow, services: Services, questions: Questions, qtbot: Any
) -> None:
    tutor = await services.roles.create("Tutor", persona="Patient.")
    await services.roles.create("Critic", persona="Terse.")
    window.context_actions.open_roles()
    dialog = window.context_actions.role_dialog
    assert isinstance(dialog, RoleDialog)
    await until(lambda: dialog.loads > 0)
    dialog.role_list.setCurrentRow(dialog.role_names().index("Tutor"))
    await until(lambda: dialog.form.name_edit.text() == "Tutor")
    dialog.form.areas["persona"].setPlainText("Patient and kind.")

    questions.answer(Answer.Save)  # Duplicate: the edits saved, then copied
    qtbot.mouseClick(dialog.duplicate_button, Qt.MouseButton.LeftButton)
    await until(lambda: "Copy of Tutor" in dialog.role_names())
    assert questions.asked == ["Save changes to “Tutor”?"]
    assert (await services.roles.get(tutor.id)).persona == "Patient and kind."

    dialog.form.name_edit.setText("Copy of Tutor, edited")
    questions.answer(Answer.Discard)  # another role: the edits go
    dialog.role_list.setCurrentRow(dialog.role_names().index("Critic"))
    await until(lambda: dialog.form.name_edit.text() == "Critic")
    assert questions.asked == ["Save changes to “Copy of Tutor”?"]

    dialog.form.name_edit.setText("Critic, edited")
    questions.answer(Answer.Cancel, Answer.Save)  # New: stay; then closing: save
    qtbot.mouseClick(dialog.new_button, Qt.MouseButton.LeftButton)
    assert dialog.form.name_edit.text() == "Critic, edited"
    dialog.close()
    await until(lambda: not is_open(dialog))
    assert len(questions.asked) == 2
    assert sorted(r.name for r in await services.roles.list()) == [
        "Copy of Tutor",
        "Critic, edited",
        "Tutor",
    ]
