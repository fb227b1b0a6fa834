"""The workspace dialog in the real MainWindow: it stays open, with the reason
and what was typed, when the values cannot be saved (a folder that does not
exist, a name taken), saves name, colour and folder together or not at all,
the sidebar always shows what the database holds, and a colour outside the
palette (the command line takes any) is kept as a custom swatch."""

from __future__ import annotations

from pathlib import Path

import shiboken6

from mira_desktop.bootstrap import Services
from mira_desktop.ui.dialogs.workspace_dialog import WorkspaceDialog
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.qt_async import until


def closed(dialog: WorkspaceDialog) -> bool:
    return not shiboken6.isValid(dialog) or not dialog.isVisible()  # deleted on close


def sidebar_names(window: MainWindow) -> list[str]:
    return [w.name for w in window.sidebar.workspaces()]


def open_edit(window: MainWindow, workspace_id: str) -> WorkspaceDialog:
    window.sidebar.workspace_list.workspace_menu(workspace_id).actions()[0].trigger()  # Edit…
    dialog = window.workspace_actions.dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


async def test_an_edit_that_cannot_be_saved_keeps_the_dialog_and_saves_nothing(
    window: MainWindow, services: Services, tmp_path: Path
) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    proj = await services.workspaces.create("Proj", color="#3b82f6", root_dir=str(folder))
    await window.workspace_actions.reload()
    dialog = open_edit(window, proj.id)
    dialog.name_edit.setText("Proj2")
    dialog.set_color("#22c55e")
    dialog.folder_edit.setText(str(tmp_path / "does-not-exist"))
    dialog.accept()

    await until(dialog.error_label.isVisible)
    assert "does not exist" in dialog.error_label.text()
    assert dialog.isVisible() and dialog.name_edit.text() == "Proj2"
    assert dialog.color() == "#22c55e"
    stored = await services.workspaces.get(proj.id)
    assert (stored.name, stored.color, stored.root_dir) == ("Proj", "#3b82f6", str(folder))
    assert sidebar_names(window) == ["Mira BASE", "Proj"]

    dialog.folder_edit.setText(str(folder))
    dialog.accept()
    await until(lambda: closed(dialog))
    await until(lambda: sidebar_names(window) == ["Mira BASE", "Proj2"])
    stored = await services.workspaces.get(proj.id)
    assert (stored.name, stored.color) == ("Proj2", "#22c55e")


async def test_a_taken_name_keeps_the_new_workspace_dialog_open(
    window: MainWindow, services: Services
) -> None:
    await services.workspaces.create("Research")
    await window.workspace_actions.reload()
    window.sidebar.add_workspace_button.click()
    dialog = window.workspace_actions.dialog
    assert dialog is not None
    dialog.name_edit.setText("research")
    dialog.accept()
    await until(dialog.error_label.isVisible)
    assert "already exists" in dialog.error_label.text()
    assert dialog.isVisible() and dialog.name_edit.text() == "research"
    dialog.name_edit.setText("Research 2")
    dialog.accept()
    await until(lambda: closed(dialog))
    await until(lambda: sidebar_names(window) == ["Mira BASE", "Research", "Research 2"])


async def test_a_colour_outside_the_palette_is_kept(window: MainWindow, services: Services) -> None:
    odd = await services.workspaces.create("Odd", color="#123456")
    await window.workspace_actions.reload()
    dialog = open_edit(window, odd.id)
    assert dialog.color() == "#123456"
    custom = dialog.swatches.checkedButton()
    assert custom is not None and custom.objectName() == "Swatch_custom"
    dialog.name_edit.setText("Odd one")
    dialog.accept()
    await until(lambda: sidebar_names(window) == ["Mira BASE", "Odd one"])
    assert (await services.workspaces.get(odd.id)).color == "#123456"
