"""Stopping a run whatever it is doing (PRODUCT.md §2, §5, §6): a Stop asked
again while the answer is being saved, and a Stop while the send is still
being prepared (its knowledge retrieved over the network). Real HTTP to the
loopback server, a real SQLite file."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.core.events import ChatEvent, Completed, Stopped, TextDelta
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import LoopbackServer, openai_stream

from .conftest import CHAT, text_then_hang

#: long enough for any machine; a run that never ends fails here, not at pytest's limit
PATIENCE = 30.0


async def answer_rows(services: Services, thread_id: str) -> list[tuple[Any, ...]]:
    return await services.store.worker.run(
        lambda db: db.execute(
            "SELECT role, status, text FROM messages WHERE thread_id = ? ORDER BY seq",
            [thread_id],
        ).fetchall()
    )


async def first_thread(services: Services, loopback: LoopbackServer, provider: str) -> str:
    loopback.enqueue(CHAT, openai_stream(["first answer"]))
    request = SendRequest("first question", provider=provider, model="m")
    final = [e async for e in services.chat.send(request)][-1]
    assert isinstance(final, Completed) and final.thread_id
    return final.thread_id


async def until_end(events: AsyncIterator[ChatEvent]) -> list[ChatEvent]:
    return await asyncio.wait_for(_all(events), PATIENCE)


async def _all(events: AsyncIterator[ChatEvent]) -> list[ChatEvent]:
    return [event async for event in events]


async def test_a_second_stop_while_the_answer_is_saved_still_ends_the_run(
    services, loopback, loop_provider
) -> None:
    """Stop pressed twice (or Ctrl+C twice, or Stop then Enter): the second
    one used to cut the saving of the stopped answer short — no end event
    (the Stop button and spinner stayed forever, the CLI hung) and, when it
    hit the token estimate, an answer left ``streaming``."""
    thread_id = await first_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, text_then_hang("half an answer"))
    database_free = threading.Event()
    events: list[ChatEvent] = []

    async def consume() -> None:
        async for event in services.chat.send(SendRequest("go on", thread_id=thread_id)):
            events.append(event)
            if not isinstance(event, TextDelta):
                continue
            # a busy database (a slow disk): the stopped answer's write waits
            busy = asyncio.ensure_future(
                services.store.worker.run(lambda _db: database_free.wait(PATIENCE))
            )
            try:
                assert services.chat.stop(thread_id)
                # the first Stop has reached the run: it closed the request
                assert await asyncio.to_thread(loopback.wait_for_disconnect, PATIENCE)
                for _ in range(20):  # and went on to save what it has
                    await asyncio.sleep(0)
                services.chat.stop(thread_id)  # the second Stop
            finally:
                database_free.set()
                await busy

    try:
        await asyncio.wait_for(consume(), PATIENCE)
    finally:
        database_free.set()
    final = events[-1]
    assert isinstance(final, Stopped) and final.text == "half an answer"
    assert [type(e) for e in events].count(Stopped) == 1
    assert (await answer_rows(services, thread_id))[-1] == (
        "assistant",
        "stopped",
        "half an answer",
    )
    assert not services.chat.is_running(thread_id)
