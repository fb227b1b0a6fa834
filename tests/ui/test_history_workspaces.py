"""Workspaces in the real MainWindow's sidebar (PRODUCT.md §1, §8, §13): the
selector filters the list, threads move by right-click or by dropping them on
an entry, the dialog creates and edits (name, colour, root folder through the
system folder dialog), deleting asks with the number of conversations and
where they go, Mira BASE cannot be deleted; batch Move to; and screenshots of
the sidebar (light, dark, Chinese)."""

from __future__ import annotations

import asyncio
import runpy
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from mira_desktop.bootstrap import Services
from mira_desktop.paths import resource_path
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.sidebar.batch import encode_ids
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.window.main_window import MainWindow
from tests.ui.history_support import (  # noqa: F401 (fixtures)
    ago,
    not_blank,
    refresh,
    save_shot,
    scalar,
    seed,
    services_fixture,
    until,
    window_fixture,
)


def titles(window: MainWindow) -> list[str]:
    g = window.sidebar.grouped
    return [t.title for r in range(g.rowCount()) if (t := g.thread_at(r)) is not None]


def id_of(window: MainWindow, title: str) -> str:
    g = window.sidebar.grouped
    return next(t.id for r in range(g.rowCount()) if (t := g.thread_at(r)) and t.title == title)


async def create_workspace(
    window: MainWindow, name: str, color: str, folder: str | None = None
) -> str:
    window.sidebar.add_workspace_button.click()
    dialog = window.workspace_actions.dialog
    assert dialog is not None and dialog.isVisible()
    dialog.name_edit.setText(name)
    dialog.set_color(color)
    if folder:
        dialog.folder_edit.setText(folder)
    dialog.accept()
    await until(lambda: any(w.name == name for w in window.sidebar.workspaces()))
    return next(w.id for w in window.sidebar.workspaces() if w.name == name)


def drop_on_workspace(window: MainWindow, thread_ids: list[str], workspace_id: str) -> None:
    """What a drag from the thread list does when released over an entry."""
    ws = window.sidebar.workspace_list
    pos = QPointF(ws.visualItemRect(ws.item(ws.row_of(workspace_id))).center())
    data = encode_ids(thread_ids)  # the event only points to it: keep it alive
    event = QDropEvent(
        pos,
        Qt.DropAction.MoveAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    ws.dropEvent(event)
    assert event.isAccepted()


async def test_workspaces_filter_move_and_delete_with_confirmation(
    window: MainWindow,
    services: Services,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one, two, three = await seed(
        services, [{"title": f"Chat {n}", "updated_at": ago(hours=n)} for n in (1, 2, 3)]
    )
    await refresh(window)
    sidebar = window.sidebar
    folder = tmp_path / "papers"
    folder.mkdir()
    research = await create_workspace(window, "Research", "#a855f7", str(folder))
    workspace = await services.workspaces.get(research)
    assert (workspace.color, workspace.root_dir) == ("#a855f7", str(folder.resolve()))
    await until(lambda: sidebar.workspace_id() == research)  # a new one is shown at once
    await until(lambda: titles(window) == [] and sidebar.empty_label.isVisible())
    assert "workspace" in sidebar.empty_label.text()
    sidebar.workspace_list.select_workspace(None)
    await until(lambda: titles(window) == ["Chat 1", "Chat 2", "Chat 3"])
    # right-click → Move to ▸ Research
    sidebar.thread_menu_for(one).action_named(f"move:{research}").trigger()  # type: ignore[union-attr]
    await until_moved(services, one, research)
    # colour dots tell workspaces apart in "All"
    g = sidebar.grouped
    assert g.data(g.index(g.row_of(one)), g.ColorRole) == "#a855f7"
    assert g.data(g.index(g.row_of(two)), g.ColorRole) is None  # Mira BASE: no dot
    # drag onto the workspace entry
    drop_on_workspace(window, [two], research)
    await until_moved(services, two, research)
    sidebar.workspace_list.select_workspace(research)
    await until(lambda: titles(window) == ["Chat 1", "Chat 2"])
    # a new chat started here belongs here (the presenter's draft takes the filter)
    # Mira BASE's menu: delete disabled, with the reason
    base = (await services.workspaces.default_workspace()).id
    base_menu = sidebar.workspace_list.workspace_menu(base)
    delete_base = next(a for a in base_menu.actions() if a.objectName() == "delete")
    assert not delete_base.isEnabled() and "cannot be deleted" in delete_base.toolTip()
    # deleting Research asks, naming its 2 conversations and Mira BASE's trash
    questions: list[str] = []

    def question(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
        questions.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    menu = sidebar.workspace_list.workspace_menu(research)
    next(a for a in menu.actions() if a.objectName() == "delete").trigger()
    await until(lambda: research not in {w.id for w in sidebar.workspaces()})
    assert "Research" in questions[0] and "2 conversation" in questions[0]
    assert "Mira BASE" in questions[0]
    assert sidebar.workspace_id() is None
    await until(lambda: titles(window) == ["Chat 3"])
    trashed = await scalar(
        services,
        "SELECT COUNT(*) FROM threads WHERE deleted_at IS NOT NULL AND workspace_id = ?",
        base,
    )
    assert trashed == 2
    del three


async def until_moved(services: Services, thread_id: str, workspace_id: str) -> None:
    deadline = asyncio.get_running_loop().time() + 5
    while (
        await scalar(services, "SELECT workspace_id FROM threads WHERE id = ?", thread_id)
        != workspace_id
    ):
        assert asyncio.get_running_loop().time() < deadline, "not moved"
        await asyncio.sleep(0.02)


async def test_edit_workspace_and_choose_its_folder(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    research = await create_workspace(window, "Research", "#3b82f6")
    chosen = tmp_path / "notes"
    chosen.mkdir()
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", staticmethod(lambda *args, **kw: str(chosen))
    )
    window.sidebar.workspace_list.workspace_menu(research).actions()[0].trigger()  # Edit…
    dialog = window.workspace_actions.dialog
    assert dialog is not None and dialog.name_edit.text() == "Research"
    dialog.choose_button.click()
    assert dialog.folder_edit.text() == str(chosen)
    dialog.name_edit.setText("Studies")
    dialog.set_color("#22c55e")
    dialog.accept()
    await until(lambda: [w.name for w in window.sidebar.workspaces()] == ["Mira BASE", "Studies"])
    workspace = await services.workspaces.get(research)
    assert (workspace.name, workspace.color, workspace.root_dir) == (
        "Studies",
        "#22c55e",
        str(chosen.resolve()),
    )
    # Mira BASE keeps its name: the field is locked, colour still changes
    base = (await services.workspaces.default_workspace()).id
    window.sidebar.workspace_list.workspace_menu(base).actions()[0].trigger()
    dialog = window.workspace_actions.dialog
    assert dialog is not None and not dialog.name_edit.isEnabled()
    dialog.set_color("#ef4444")
    dialog.accept()
    await until(lambda: window.sidebar.workspaces()[0].color == "#ef4444")


async def test_batch_move_to_a_workspace(window: MainWindow, services: Services) -> None:
    ids = await seed(services, [{"title": f"B{n}", "updated_at": ago(hours=n)} for n in range(4)])
    research = await create_workspace(window, "Research", "#14b8a6")
    window.sidebar.workspace_list.select_workspace(None)
    await until(lambda: len(titles(window)) == 4)
    sidebar = window.sidebar
    sidebar.view_bar.batch_button.click()
    for thread_id in ids[:2]:
        sidebar.grouped.set_checked(thread_id, True)
    move = sidebar.view_bar.move_menu
    next(a for a in move.actions() if a.objectName() == f"move:{research}").trigger()
    for thread_id in ids[:2]:
        await until_moved(services, thread_id, research)
    assert sidebar.grouped.checked_count() == 0
    assert (
        await scalar(services, "SELECT COUNT(*) FROM threads WHERE workspace_id = ?", research) == 2
    )


@pytest.mark.parametrize(
    ("theme", "language"), [("light", "en"), ("dark", "en"), ("light", "zh_CN")]
)
async def test_sidebar_screenshots(
    window: MainWindow, services: Services, tmp_path: Path, theme: str, language: str
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    research = await services.workspaces.create("Research", color="purple")
    await services.workspaces.create("Travel", color="orange")
    rows = [
        {"title": "Roadmap for Q1 学习计划", "updated_at": ago(days=40), "pinned": True,
         "pin_order": 0},
        {"title": "Reading list", "updated_at": ago(days=9), "pinned": True, "pin_order": 1},
        {"title": "机器学习入门笔记", "updated_at": ago(minutes=30), "workspace_id": research.id},
        {"title": "Fix the flaky CI job", "updated_at": ago(hours=3)},
        {"title": "Weekend trip to Kyoto", "updated_at": ago(days=1)},
        {"title": "Paper summary: attention", "updated_at": ago(days=3),
         "workspace_id": research.id},
        {"title": "Tax questions", "updated_at": ago(days=12)},
        {"title": "Old brainstorm", "updated_at": ago(days=75)},
        {"title": "Recipe ideas", "updated_at": ago(days=80)},
    ]  # fmt: skip
    await seed(services, rows)
    await window.workspace_actions.reload()
    await refresh(window)
    try:
        install_translator(app, language)
        window.timeline.set_dark(apply_theme(app, theme))
        window.sidebar.select_thread(id_of(window, "Fix the flaky CI job"))
        await asyncio.sleep(0.15)
        image = window.sidebar.grab().toImage()
        not_blank(image)
        save_shot(image, tmp_path, f"sidebar_{theme}_{language}.png")
        window.sidebar.view_bar.batch_button.click()  # batch mode, two ticked
        window.sidebar.grouped.set_checked(id_of(window, "Reading list"), True)
        window.sidebar.grouped.set_checked(id_of(window, "Tax questions"), True)
        await asyncio.sleep(0.1)
        batch = window.sidebar.grab().toImage()
        not_blank(batch)
        save_shot(batch, tmp_path, f"sidebar_batch_{theme}_{language}.png")
    finally:
        install_translator(app, "en")
        apply_theme(app, "light")


HISTORY_CONTEXTS = {
    "GroupedThreadModel", "HistoryActions", "SearchDialog", "ThreadGroups", "ThreadItemDelegate",
    "ThreadMenu", "ThreadSidebar", "ViewBar", "WorkspaceActions", "WorkspaceDialog",
    "WorkspaceListWidget",
}  # fmt: skip


def test_every_history_string_is_in_chinese() -> None:
    """The sidebar, its dialogs and the search dialog are fully translated."""
    ts_file = resource_path("i18n", "mira_zh_CN.ts")
    extract = runpy.run_path(str(Path(__file__).parents[2] / "packaging" / "extract_strings.py"))
    present = set(extract["_messages"](ts_file))
    missing = [f for f in extract["scan"]() if f.context in HISTORY_CONTEXTS and f not in present]
    assert missing == []
    untranslated = [f for f in extract["untranslated"](ts_file) if f.context in HISTORY_CONTEXTS]
    assert untranslated == []


async def test_reordering_the_pins_of_one_workspace_leaves_the_others_in_place(
    window: MainWindow, services: Services
) -> None:
    """Pins A (one workspace), B and C (another): shown filtered to the
    second, dragging C above B used to make the whole order C, B, A — the
    sidebar names only the pins it shows, and they were put first. Now they
    swap among their own places: A, C, B."""
    one = (await services.workspaces.create("One", color="#a855f7")).id
    two = (await services.workspaces.create("Two", color="#22c55e")).id
    a, b, c = await seed(
        services,
        [
            {"title": "A", "updated_at": ago(hours=1), "workspace_id": one},
            {"title": "B", "updated_at": ago(hours=2), "workspace_id": two},
            {"title": "C", "updated_at": ago(hours=3), "workspace_id": two},
        ],
    )
    for thread_id in (a, b, c):
        await services.history.pin(thread_id)
    await window.workspace_actions.reload()
    await refresh(window)
    sidebar = window.sidebar
    sidebar.workspace_list.select_workspace(two)
    await until(lambda: titles(window) == ["B", "C"])
    view, grouped = sidebar.list_view, sidebar.grouped
    rect = view.visualRect(grouped.index(grouped.row_of(b)))
    data = encode_ids([c])  # the event only points to it: keep it alive
    event = QDropEvent(
        QPointF(rect.center().x(), rect.top() + 1),  # the top edge of B: above it
        Qt.DropAction.MoveAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    view.dropEvent(event)

    async def order() -> list[str]:
        return [t.title for t in await services.history.pinned_threads()]

    for _ in range(250):
        if await order() != ["A", "B", "C"]:
            break
        await asyncio.sleep(0.02)
    assert await order() == ["A", "C", "B"]
    await until(lambda: titles(window) == ["C", "B"])
    sidebar.workspace_list.select_workspace(None)
    await until(lambda: titles(window) == ["A", "C", "B"])
