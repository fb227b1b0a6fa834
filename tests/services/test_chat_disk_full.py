"""A full disk during a chat, for real: SQLite's ``max_page_count`` caps the
database file at its current size on the app's own connection, so every write
that needs a new page fails with SQLITE_FULL, as on a full disk. Then the
question or the answer cannot be saved; the run says so clearly, what was
saved before stays intact, and closing the data folder still works."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.errors import StorageError
from mira_desktop.core.events import ChatEvent, Completed, Failed
from mira_desktop.core.models import MessageStatus
from mira_desktop.services.chat import SendRequest
from mira_desktop.storage.database import DB_FILENAME
from tests.support.full_disk import fill_the_disk, free_the_disk
from tests.support.loopback import LoopbackServer, openai_stream

from .conftest import CHAT


async def _collect(services: Services, request: SendRequest) -> list[ChatEvent]:
    return [event async for event in services.chat.send(request)]


async def _thread_with_one_turn(services: Services, loopback: LoopbackServer) -> str:
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "sk-1")
    loopback.enqueue(CHAT, openai_stream(["first answer"]))
    final = (await _collect(services, SendRequest("first question", provider="loop", model="m")))[
        -1
    ]
    assert isinstance(final, Completed)
    return final.thread_id


def _rows(folder: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(folder / DB_FILENAME)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return [
            (role, status, text or "")
            for role, status, text in conn.execute(
                "SELECT role, status, text FROM messages ORDER BY seq"
            )
        ]
    finally:
        conn.close()


async def test_a_question_too_big_for_the_disk_fails_clearly_and_changes_nothing(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    services = build_services(data_dir)
    try:
        thread_id = await _thread_with_one_turn(services, loopback)
        await services.store.worker.run(fill_the_disk)
        question = "a long question " * 20_000  # 320 kB: needs new pages
        events = await _collect(
            services, SendRequest(question, provider="loop", model="m", thread_id=thread_id)
        )
    finally:
        await services.aclose()  # the upkeep on closing cannot write either: no error
    final = events[-1]
    assert isinstance(final, Failed) and final.error["code"] == "storage"
    assert final.error["message"].startswith("The disk is full")
    assert "disk is not full" in final.error["hint"]
    assert len([r for r in loopback.requests if r.path == CHAT]) == 1  # not asked again
    assert _rows(data_dir) == [
        ("user", "complete", "first question"),
        ("assistant", "complete", "first answer"),
    ]


async def test_an_answer_too_big_for_the_disk_is_reported_with_its_text(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    services = build_services(data_dir)
    answer = "an answer that will not fit " * 15_000  # 420 kB
    try:
        thread_id = await _thread_with_one_turn(services, loopback)
        await services.store.worker.run(fill_the_disk)
        loopback.enqueue(CHAT, openai_stream([answer[:1000], answer[1000:]]))
        events = await _collect(
            services, SendRequest("short", provider="loop", model="m", thread_id=thread_id)
        )
    finally:
        await services.aclose()
    final = events[-1]
    assert isinstance(final, Failed) and final.error["code"] == "storage"
    assert final.text == answer  # the whole answer reaches the screen
    assert final.error["message"] == (
        "This answer could not be saved: the disk is full. Free some space and open "
        "this chat again to save it; closing Mira before that loses it."
    )
    assert final.error["unsaved"] is True
    # what should have been written, for the window to keep and save later
    assert final.unsaved is not None and final.unsaved.id == final.message_id
    assert (final.unsaved.status, final.unsaved.text) == (MessageStatus.COMPLETE, answer)
    rows = _rows(data_dir)
    assert rows[:2] == [
        ("user", "complete", "first question"),
        ("assistant", "complete", "first answer"),
    ]
    # the short question fitted in the file's free space; the answer did not
    assert rows[2] == ("user", "complete", "short")
    assert rows[3][0] == "assistant" and rows[3][1] != MessageStatus.COMPLETE.value
    assert len(rows[3][2]) < len(answer)


async def test_a_kept_answer_is_saved_once_there_is_room(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    services = build_services(data_dir)
    answer = "kept until there is room " * 15_000
    try:
        thread_id = await _thread_with_one_turn(services, loopback)
        await services.store.worker.run(fill_the_disk)
        loopback.enqueue(CHAT, openai_stream([answer]))
        final = (
            await _collect(
                services, SendRequest("short", provider="loop", model="m", thread_id=thread_id)
            )
        )[-1]
        assert isinstance(final, Failed) and final.unsaved is not None
        with pytest.raises(StorageError):  # still full: nothing changes
            await services.chat.save_answer(final.unsaved)
        await services.store.worker.run(free_the_disk)
        await services.chat.save_answer(final.unsaved)
        messages = await services.threads.get_active_messages(thread_id)
    finally:
        await services.aclose()
    assert messages[-1].id == final.message_id
    assert (messages[-1].status, messages[-1].text) == (MessageStatus.COMPLETE, answer)
    assert messages[-1].error is None
    assert _rows(data_dir)[-1] == ("assistant", "complete", answer)
