"""Where an imported thread came from survives a move to another library
(PRODUCT.md §9): a ChatGPT conversation imported here, exported as Mira JSON
(a backup ZIP) and imported on another machine is still known there as that
conversation, so importing the ChatGPT export there too skips it instead of
duplicating it, and a newer export adds only what is new (the messages keep
their ChatGPT node ids through the move). Real libraries in temp folders,
real files."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, Thread

from ..seed import sql
from .chatgpt_fixture import branching, went_on
from .test_json_export import export_doc, import_doc


@pytest.fixture
async def other(tmp_path: Path) -> AsyncIterator[Services]:
    """A second, empty library (another machine)."""
    services = build_services(tmp_path / "other-library")
    yield services
    await services.aclose()


async def test_a_chatgpt_thread_moved_through_a_mira_zip_keeps_its_origin(
    services: Services, other: Services, tmp_path: Path
) -> None:
    conversations = tmp_path / "conversations.json"
    conversations.write_text(json.dumps([branching().data]), "utf-8")
    (first,) = (await services.imports.import_file(conversations)).imported
    backup = tmp_path / "backup.zip"
    await services.exports.export_zip([first.id], backup, inner="json")

    (moved,) = (await other.imports.import_file(backup)).imported
    assert moved.source_ref == "conv-branching"
    origin = await sql(other, "SELECT source, source_ref FROM threads WHERE id = ?", moved.id)
    assert origin == [("import:chatgpt", "conv-branching")]
    again = await other.imports.import_file(conversations)
    assert again.imported == []
    assert [(s.reason, s.source_ref) for s in again.skipped] == [
        ("already imported, nothing new", "conv-branching")
    ]
    count = await sql(other, "SELECT COUNT(*) FROM threads WHERE source_ref = 'conv-branching'")
    assert count == [(1,)]

    conversations.write_text(json.dumps([went_on().data]), "utf-8")
    newer = await other.imports.import_file(conversations)
    assert [(t.id, t.new_messages) for t in newer.updated] == [(moved.id, 2)]
    assert await sql(other, "SELECT COUNT(*) FROM messages") == [(13,)]


async def test_a_thread_made_here_is_an_import_from_mira_elsewhere(
    services: Services, other: Services, tmp_path: Path
) -> None:
    """Only an origin ``import:…`` is kept: a thread written in the exporting
    library (``desktop``) is ``import:mira``, its id there the reference."""
    workspace = await services.store.default_workspace()
    at = "2026-01-01T00:00:00.000Z"
    thread = await services.store.create_thread(
        Thread(id=new_id(), title="mine", workspace_id=workspace.id, created_at=at, updated_at=at)
    )
    await services.store.add_message(
        Message(new_id(), thread.id, MessageRole.USER, "hi", at), make_active=True
    )
    doc = await export_doc(services, thread.id)
    assert doc["thread"]["source"] == "desktop"
    (moved,) = (await import_doc(other, doc, tmp_path)).imported
    origin = await sql(other, "SELECT source, source_ref FROM threads WHERE id = ?", moved.id)
    assert origin == [("import:mira", thread.id)]
