"""Stopping a run whatever it is doing (PRODUCT.md §2, §5, §6): a Stop asked
again while the answer is being saved, and a Stop while the send is still
being prepared (its knowledge retrieved over the network). Real HTTP to the
loopback server, a real SQLite file."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.core.events import ChatEvent, Completed, Stopped, TextDelta
from mira_desktop.core.ids import new_id
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import Hang, LoopbackServer, openai_stream, raw_stream
from tests.support.replies import rerank_results

from .conftest import CHAT, text_then_hang
from .kb_support import farm_kb

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


RERANK = "/v1/rerank"


async def reranked_base(services: Services, tmp_path: Path, provider: str) -> str:
    """A knowledge base whose passages are reranked by ``provider`` (a request
    made while the send is prepared, before any run exists)."""
    kb_id = await farm_kb(services, tmp_path)
    await services.knowledge.configure_rerank(kb_id, provider, "rerank-test")
    return kb_id


def wait_for_rerank(loopback: LoopbackServer, count: int = 1) -> None:
    """Block until ``count`` rerank requests reached the server."""
    arrived = len(loopback.requests)
    while sum(r.path == RERANK for r in loopback.requests) < count:
        arrived = len(loopback.wait_for_requests(arrived + 1, PATIENCE))


async def test_stop_while_the_knowledge_base_is_consulted_keeps_the_question(
    services, loopback, loop_provider, tmp_path
) -> None:
    """The window shows Stop from the moment of the send; pressing it while
    the passages were reranked did nothing, and the answer then streamed in
    full. Now the retrieval is cancelled and the turn ends as a Stop before
    any content: the question is kept with an empty stopped answer."""
    thread_id = await first_thread(services, loopback, loop_provider)
    kb_id = await reranked_base(services, tmp_path, loop_provider)
    asked = len(loopback.requests)
    loopback.enqueue(RERANK, raw_stream([Hang()], content_type="application/json"))
    request = SendRequest("How many apple trees?", thread_id=thread_id, kb_id=kb_id)
    consumer = asyncio.ensure_future(until_end(services.chat.send(request)))
    await asyncio.to_thread(wait_for_rerank, loopback)
    assert services.chat.is_running(thread_id)
    assert services.chat.stop(thread_id)
    assert await asyncio.to_thread(loopback.wait_for_disconnect, PATIENCE)
    events = await consumer
    final = events[-1]
    assert isinstance(final, Stopped) and final.thread_id == thread_id and final.text == ""
    assert [r.path for r in loopback.requests[asked:]] == [RERANK]  # the model was not asked
    assert (await answer_rows(services, thread_id))[-2:] == [
        ("user", "complete", "How many apple trees?"),
        ("assistant", "stopped", ""),
    ]
    assert not services.chat.is_running(thread_id)


async def test_a_draft_stopped_while_it_is_prepared_writes_nothing(
    services, loopback, loop_provider, tmp_path
) -> None:
    kb_id = await reranked_base(services, tmp_path, loop_provider)
    loopback.enqueue(RERANK, raw_stream([Hang()], content_type="application/json"))
    draft = new_id()
    request = SendRequest(
        "How many apple trees?", provider=loop_provider, model="m", new_thread_id=draft, kb_id=kb_id
    )
    consumer = asyncio.ensure_future(until_end(services.chat.send(request)))
    await asyncio.to_thread(wait_for_rerank, loopback)
    assert services.chat.stop(draft)
    assert await asyncio.to_thread(loopback.wait_for_disconnect, PATIENCE)
    final = (await consumer)[-1]
    assert isinstance(final, Stopped) and final.thread_id is None and final.message is None
    assert [r.path for r in loopback.requests] == [RERANK]
    count = await services.store.worker.run(
        lambda db: db.execute("SELECT COUNT(*) FROM threads").fetchone()[0]
    )
    assert count == 0


async def test_busy_input_while_the_send_is_prepared_stops_it_and_sends_the_new_text(
    services, loopback, loop_provider, tmp_path
) -> None:
    """Enter while the first send is still prepared: the first ends stopped
    (before, it went on and one of the two failed with "This thread is still
    answering."), the new text is answered after it."""
    thread_id = await first_thread(services, loopback, loop_provider)
    kb_id = await reranked_base(services, tmp_path, loop_provider)
    asked = len(loopback.requests)
    loopback.enqueue(RERANK, raw_stream([Hang()], content_type="application/json"))
    apples = SendRequest("How many apple trees?", thread_id=thread_id, kb_id=kb_id)
    first = asyncio.ensure_future(until_end(services.chat.send(apples)))
    await asyncio.to_thread(wait_for_rerank, loopback)
    loopback.enqueue(RERANK, rerank_results([(0, 0.9), (1, 0.1)]))
    loopback.enqueue(CHAT, openai_stream(["Pears: 12 [1]."]))
    pears = SendRequest("How many pear trees?", thread_id=thread_id)
    second = await until_end(services.chat.redirect(pears))
    stopped = (await first)[-1]
    assert isinstance(stopped, Stopped) and stopped.text == ""
    answered = second[-1]
    assert isinstance(answered, Completed), answered
    assert answered.text == "Pears: 12 [1]."
    assert [r.path for r in loopback.requests[asked:]] == [RERANK, RERANK, CHAT]
    rows = await answer_rows(services, thread_id)
    assert rows[-4:] == [
        ("user", "complete", "How many apple trees?"),
        ("assistant", "stopped", ""),
        ("user", "complete", "How many pear trees?"),
        ("assistant", "complete", "Pears: 12 [1]."),
    ]
