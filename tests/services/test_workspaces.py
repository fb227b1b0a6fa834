"""Workspaces on a real data folder: create / rename / colour / root folder,
moving threads, and deletion that keeps every message (threads go to the trash
of Mira BASE, restorable there); Mira BASE is protected."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError, NotFoundError

from .seed import make_thread, sql


async def test_create_rename_colour_and_root(services: Services, tmp_path: Path) -> None:
    work = await services.workspaces.create("  Work  ", color="Blue", root_dir=str(tmp_path))
    assert (work.name, work.color, work.root_dir) == ("Work", "#3b82f6", str(tmp_path.resolve()))
    home = await services.workspaces.create("Home", color="#ABC")
    assert home.color == "#aabbcc" and home.root_dir is None
    with pytest.raises(ConfigError, match="already exists"):
        await services.workspaces.create("work")
    with pytest.raises(ConfigError, match="colour"):
        await services.workspaces.create("Bad", color="blurple")
    with pytest.raises(ConfigError, match="does not exist"):
        await services.workspaces.create("Gone", root_dir=str(tmp_path / "nope"))
    renamed = await services.workspaces.rename(work.id, "Office")
    assert renamed.name == "Office"
    with pytest.raises(ConfigError, match="already exists"):
        await services.workspaces.rename(home.id, "OFFICE")
    assert (await services.workspaces.set_color(home.id, "green")).color == "#22c55e"
    assert (await services.workspaces.set_root_dir(work.id, None)).root_dir is None
    names = [w.name for w in await services.workspaces.list_workspaces()]
    assert names == ["Mira BASE", "Office", "Home"]
    assert (await services.workspaces.find("office")).id == work.id
    with pytest.raises(NotFoundError, match="nowhere") as missing:
        await services.workspaces.find("nowhere")
    assert missing.value.hint == "Known: Mira BASE, Office, Home."


async def test_mira_base_cannot_be_deleted_or_renamed(services: Services) -> None:
    base = await services.workspaces.default_workspace()
    with pytest.raises(ConfigError, match="cannot be deleted"):
        await services.workspaces.delete(base.id)
    with pytest.raises(ConfigError, match="keeps its name"):
        await services.workspaces.rename(base.id, "Renamed")
    assert (await services.workspaces.rename(base.id, "Mira BASE")).name == "Mira BASE"
    assert (await services.workspaces.set_color(base.id, "red")).color == "#ef4444"


async def test_move_threads_and_filter_by_workspace(services: Services) -> None:
    work = await services.workspaces.create("Work")
    a = await make_thread(services, "a")
    b = await make_thread(services, "b")
    assert await services.workspaces.move_threads([a.id, b.id, a.id], work.id) == 2
    assert [t.title for t in await services.history.list_threads(workspace_id=work.id)] == [
        "b",
        "a",
    ]
    assert (
        await services.history.list_threads(
            workspace_id=(await services.workspaces.default_workspace()).id
        )
        == []
    )
    with pytest.raises(NotFoundError):
        await services.workspaces.move_threads(
            [a.id, "missing"], (await services.workspaces.default_workspace()).id
        )
    assert (await services.store.get_thread(a.id)).workspace_id == work.id  # all or none


async def test_deleting_a_workspace_keeps_every_message(services: Services) -> None:
    base = await services.workspaces.default_workspace()
    work = await services.workspaces.create("Work")
    kept = await make_thread(services, "kept", ["hello", "world"], workspace_id=work.id)
    archived = await make_thread(services, "archived", ["old"], workspace_id=work.id)
    await services.history.archive(archived.id)
    await services.history.pin(kept.id)
    elsewhere = await make_thread(services, "elsewhere", ["x"])
    messages_before = await sql(services, "SELECT COUNT(*) FROM messages")

    assert await services.workspaces.workspace_thread_count(work.id) == 2
    assert await services.workspaces.delete(work.id) == 2

    assert await sql(services, "SELECT COUNT(*) FROM messages") == messages_before
    assert await sql(services, "SELECT COUNT(*) FROM workspaces WHERE id = ?", work.id) == [(0,)]
    assert await sql(services, "PRAGMA foreign_key_check") == []
    trash = await services.history.list_threads(view="trash")
    assert sorted(t.title for t in trash) == ["archived", "kept"]
    assert {t.workspace_id for t in trash} == {base.id}
    restored = await services.history.restore(kept.id)
    assert restored.workspace_id == base.id and restored.deleted_at is None
    assert [m.text for m in await services.threads.get_active_messages(kept.id)] == [
        "hello",
        "world",
    ]
    assert {t.title for t in await services.history.list_threads()} == {"kept", "elsewhere"}
    assert elsewhere.workspace_id == base.id
    with pytest.raises(NotFoundError):
        await services.workspaces.workspace_thread_count(work.id)


async def test_an_edit_saves_every_field_or_none(services: Services, tmp_path: Path) -> None:
    """The window's Edit dialog saves name, colour and folder together: a
    folder that does not exist (or a taken name) leaves all of them as they
    were; a folder kept as it is may be gone and the rest still saves."""
    folder = tmp_path / "proj"
    folder.mkdir()
    proj = await services.workspaces.create("Proj", color="#123456", root_dir=str(folder))
    await services.workspaces.create("Taken")
    ws = services.workspaces
    with pytest.raises(ConfigError, match="does not exist"):
        await ws.update(proj.id, name="Proj2", color="#ef4444", root_dir=str(tmp_path / "nope"))
    with pytest.raises(ConfigError, match="already exists"):
        await ws.update(proj.id, name="taken", color="#ef4444", root_dir=None)
    same = await ws.get(proj.id)
    assert (same.name, same.color, same.root_dir) == ("Proj", "#123456", str(folder.resolve()))
    folder.rmdir()
    edited = await ws.update(proj.id, name="Proj2", color="#ef4444", root_dir=same.root_dir)
    assert (edited.name, edited.color, edited.root_dir) == ("Proj2", "#ef4444", same.root_dir)
    cleared = await ws.update(proj.id, name="Proj2", color="#ef4444", root_dir=None)
    assert cleared.root_dir is None
