"""Import files that are odd but not malformed JSON (PRODUCT.md §9): times the
app cannot read, or written with an offset; text with a lone surrogate;
numbers too large to store; encrypted ZIPs; nesting too deep to handle.
Each either imports cleanly (normalised) or is refused with a clear
message, never a traceback, and a refused file imports nothing. Real
libraries in temp folders, real files the tests write."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import InvalidImportError
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, Thread

from ..seed import sql
from .test_json_export import export_doc, import_doc, thread_count


async def small_doc(services: Services, title: str = "small") -> dict[str, Any]:
    """The Mira export of a question and its answer."""
    workspace = await services.store.default_workspace()
    at = "2026-01-01T00:00:00.000Z"
    thread = await services.store.create_thread(
        Thread(id=new_id(), title=title, workspace_id=workspace.id, created_at=at, updated_at=at)
    )
    question = Message(new_id(), thread.id, MessageRole.USER, "question", at)
    await services.store.add_message(question, make_active=True)
    answer = Message(
        new_id(), thread.id, MessageRole.ASSISTANT, "answer", at, parent_id=question.id
    )
    await services.store.add_message(answer, make_active=True)
    return await export_doc(services, thread.id)


def timed(doc: dict[str, Any], thread_id: str, at: str) -> dict[str, Any]:
    """``doc`` as another thread (new ids), every time of it ``at``."""
    doc = copy.deepcopy(doc)
    ids = {m["id"]: f"{thread_id}-{i}" for i, m in enumerate(doc["messages"])}
    for message in doc["messages"]:
        message["id"] = ids[message["id"]]
        message["parent_id"] = ids.get(message["parent_id"])
        message["created_at"] = message["updated_at"] = at
    info = doc["thread"]
    info["id"], info["title"] = thread_id, thread_id
    info["created_at"] = info["updated_at"] = at
    info["active_leaf_id"] = ids[info["active_leaf_id"]]
    return doc


async def test_times_with_an_offset_are_stored_as_utc_and_sort_by_the_real_time(
    services: Services, tmp_path: Path
) -> None:
    base = await small_doc(services)
    # 09:00 at +08:00 is 01:00 UTC: newer than 00:30 UTC, though its text sorts lower
    east = timed(base, "east", "2026-06-01T09:00:00+08:00")
    west = timed(base, "west", "2026-06-01T00:30:00Z")
    report = await import_doc(services, [west, east], tmp_path)
    assert [t.id for t in report.imported] == ["west", "east"]

    stored = await sql(services, "SELECT created_at, updated_at FROM threads WHERE id = 'east'")
    assert stored == [("2026-06-01T01:00:00.000Z", "2026-06-01T01:00:00.000Z")]
    times = await sql(
        services, "SELECT DISTINCT created_at, updated_at FROM messages WHERE thread_id = 'east'"
    )
    assert times == [("2026-06-01T01:00:00.000Z", "2026-06-01T01:00:00.000Z")]
    listed = await services.history.list_threads()
    assert [t.id for t in listed][:2] == ["east", "west"]
    assert all(services.history.group_of(t) for t in listed)  # the sidebar's groups


@pytest.mark.parametrize(
    ("where", "field"),
    [("thread", "$.thread.created_at"), ("message", "$.messages[1].created_at")],
)
async def test_a_time_the_app_cannot_read_refuses_the_file_naming_it(
    services: Services, tmp_path: Path, where: str, field: str
) -> None:
    good = timed(await small_doc(services), "good", "2026-06-01T00:30:00Z")
    bad = timed(good, "bad", "2026-06-01T00:30:00Z")
    if where == "thread":
        bad["thread"]["created_at"] = "yesterday!!"
    else:
        bad["messages"][1]["created_at"] = "not a time at all"
    before = await thread_count(services)
    with pytest.raises(InvalidImportError) as caught:
        await import_doc(services, [good, bad], tmp_path)
    assert caught.value.message.startswith("Thread 2 of the file does not match")
    assert f"{field}: " in caught.value.message
    assert "is not a date and time" in caught.value.message
    assert await thread_count(services) == before
    assert all(services.history.group_of(t) for t in await services.history.list_threads())
