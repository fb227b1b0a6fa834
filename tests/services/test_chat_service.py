"""ChatService against the loopback server and a real SQLite file: the
persistence rules of PRODUCT.md §2, errors, stop, and concurrent runs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.events import (
    AssistantMessageStarted,
    ChatEvent,
    Completed,
    Failed,
    RunStarted,
    Stopped,
    TextDelta,
    ThinkingDelta,
    ThreadCreated,
)
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import MessageStatus
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import (
    LoopbackServer,
    Pause,
    openai_json_error,
    openai_stream,
    raw_stream,
    text_reply,
)

from .conftest import CHAT, text_then_hang


async def collect(services: Services, request: SendRequest) -> list[ChatEvent]:
    return [event async for event in services.chat.send(request)]


async def thread_count(services: Services) -> int:
    return await services.store.worker.run(
        lambda db: db.execute("SELECT COUNT(*) FROM threads").fetchone()[0]
    )


async def message_rows(services: Services) -> list[dict[str, Any]]:
    return await services.store.worker.run(
        lambda db: list(
            db.query("SELECT role, status, text, thinking, error_json FROM messages ORDER BY seq")
        )
    )


async def new_thread(services: Services, loopback: LoopbackServer, provider: str) -> str:
    loopback.enqueue(CHAT, openai_stream(["first answer"]))
    events = await collect(services, SendRequest("first question", provider=provider, model="m"))
    assert isinstance(events[-1], Completed)
    assert events[-1].thread_id
    return events[-1].thread_id


async def test_draft_is_written_only_when_the_first_content_arrives(
    services, loopback, loop_provider
) -> None:
    loopback.enqueue(
        CHAT, openai_stream(["Hel", "lo"], usage={"prompt_tokens": 9, "completion_tokens": 2})
    )
    events = await collect(services, SendRequest("Hi", provider=loop_provider, model="m"))
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "RunStarted"
    # thread + user message are committed together just before the first delta is shown
    assert kinds.index("ThreadCreated") < kinds.index("TextDelta")
    final = events[-1]
    assert isinstance(final, Completed) and final.text == "Hello"
    assert final.usage.prompt_tokens == 9 and not final.usage.estimated
    rows = await message_rows(services)
    assert [(r["role"], r["status"], r["text"]) for r in rows] == [
        ("user", "complete", "Hi"),
        ("assistant", "complete", "Hello"),
    ]
    thread = await services.threads.get_thread(final.thread_id)
    assert thread.title == "Hi" and thread.active_leaf_id == final.message_id


async def test_the_first_text_comes_in_the_same_loop_turn_as_the_answers_row(
    services, loopback, loop_provider
) -> None:
    """The window can show the saved row and its first words in one frame: the
    first delta is queued with AssistantMessageStarted, not a loop turn later
    (it used to wait for the delta coalescer's end-of-turn flush)."""
    loopback.enqueue(CHAT, openai_stream(["Hel", "lo"], delay=0.05))
    turns = 0

    async def count_turns() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    counter = asyncio.create_task(count_turns())
    seen: list[tuple[str, int]] = []
    try:
        async for event in services.chat.send(SendRequest("Hi", provider=loop_provider, model="m")):
            seen.append((type(event).__name__, turns))
    finally:
        counter.cancel()
    kinds = [kind for kind, _ in seen]
    started = kinds.index("AssistantMessageStarted")
    assert kinds[started + 1] == "TextDelta"
    assert seen[started][1] == seen[started + 1][1], seen  # no loop turn between them
    assert kinds[started - 2 : started] == ["ThreadCreated", "UserMessageSaved"]


async def test_draft_stopped_before_any_content_writes_nothing(
    services, loopback, loop_provider
) -> None:
    loopback.enqueue(CHAT, raw_stream([Pause(0.1), b": keep-alive\n\n", *text_then_hang().chunks]))
    draft_id = new_id()

    async def stop_soon() -> None:
        await asyncio.sleep(0.3)
        assert services.chat.stop(draft_id)

    stopper = asyncio.create_task(stop_soon())
    events = await collect(
        services,
        SendRequest("draft text", provider=loop_provider, model="m", new_thread_id=draft_id),
    )
    await stopper
    final = events[-1]
    assert isinstance(final, Stopped) and final.thread_id is None
    assert await thread_count(services) == 0
    assert loopback.wait_for_disconnect(timeout=2.0)


async def test_draft_failing_before_content_writes_nothing_and_reports_the_reason(
    services, loopback, loop_provider
) -> None:
    loopback.enqueue(
        CHAT,
        openai_json_error(
            401,
            "Incorrect API key provided: sk-***123",
            type="invalid_request_error",
            code="invalid_api_key",
        ),
    )
    events = await collect(services, SendRequest("hello?", provider=loop_provider, model="m"))
    final = events[-1]
    assert isinstance(final, Failed) and final.thread_id is None
    assert final.error["code"] == "authentication"
    assert "Incorrect API key" in final.error["message"]
    assert final.error["hint"]
    assert await thread_count(services) == 0


async def test_existing_thread_commits_the_user_message_before_calling_the_model(
    services, loopback, loop_provider
) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, text_then_hang())
    events: list[ChatEvent] = []

    async def consume() -> None:
        async for event in services.chat.send(SendRequest("second question", thread_id=thread_id)):
            events.append(event)

    task = asyncio.create_task(consume())
    await asyncio.to_thread(loopback.wait_for_requests, 2)
    rows = await message_rows(services)
    assert rows[-1]["text"] == "second question" and rows[-1]["role"] == "user"
    services.chat.stop(thread_id)
    await task
    assert isinstance(events[-1], Stopped)
    # An empty stopped answer is kept so a reload shows what happened.
    rows = await message_rows(services)
    assert (rows[-1]["role"], rows[-1]["status"], rows[-1]["text"]) == ("assistant", "stopped", "")


async def test_stop_mid_stream_keeps_partial_text_and_closes_the_request(
    services, loopback, loop_provider
) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, text_then_hang("partial ", "answer", thinking=("pondering",)))
    events: list[ChatEvent] = []
    streamed = ""  # deltas of one loop turn arrive merged: watch the text, not the pieces
    async for event in services.chat.send(SendRequest("go on", thread_id=thread_id)):
        events.append(event)
        if isinstance(event, TextDelta):
            streamed += event.text
            if streamed == "partial answer":
                assert services.chat.stop(thread_id)
    final = events[-1]
    assert isinstance(final, Stopped)
    assert final.text == "partial answer" and final.thinking == "pondering"
    assert loopback.wait_for_disconnect(timeout=2.0)
    messages = await services.threads.get_active_messages(thread_id)
    assert messages[-1].status is MessageStatus.STOPPED
    assert messages[-1].text == "partial answer"
    assert messages[-1].usage is not None and messages[-1].usage.estimated
    assert messages[-1].usage.reasoning_estimated and messages[-1].usage.reasoning_tokens > 0


@pytest.mark.parametrize(
    ("reply", "code", "needle"),
    [
        (
            openai_json_error(404, "The model `nope` does not exist", code="model_not_found"),
            "model_not_found",
            "nope",
        ),
        (
            openai_json_error(
                429, "Rate limit reached", type="rate_limit_error", headers={"retry-after": "7"}
            ),
            "rate_limit",
            "Rate limit",
        ),
        (
            openai_json_error(
                400,
                "This model's maximum context length is 8192 tokens",
                code="context_length_exceeded",
            ),
            "context_overflow",
            "8192",
        ),
        (openai_json_error(500, "upstream exploded", type="server_error"), "server", "exploded"),
        (text_reply(502, "Bad gateway from proxy"), "server", "Bad gateway"),
    ],
)
async def test_http_errors_fail_the_answer_with_the_providers_reason(
    services, loopback, loop_provider, reply, code, needle
) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, reply)
    events = await collect(services, SendRequest("next", thread_id=thread_id))
    final = events[-1]
    assert isinstance(final, Failed) and final.error["code"] == code
    assert needle in final.error["message"]
    if code == "rate_limit":
        assert final.error["retry_after"] == 7
    messages = await services.threads.get_active_messages(thread_id)
    assert [m.text for m in messages][-2] == "next"  # what the user typed is kept
    assert messages[-1].status is MessageStatus.FAILED
    assert messages[-1].error["code"] == code


async def test_truncated_stream_fails_but_keeps_what_arrived(
    services, loopback, loop_provider
) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["kept ", "text"], done=False))
    final = (await collect(services, SendRequest("next", thread_id=thread_id)))[-1]
    assert isinstance(final, Failed) and final.error["code"] == "malformed_stream"
    messages = await services.threads.get_active_messages(thread_id)
    assert messages[-1].status is MessageStatus.FAILED and messages[-1].text == "kept text"


async def test_an_answer_that_only_reasons_fails_and_keeps_its_reasoning(
    services, loopback, loop_provider
) -> None:
    """A reasoning model that runs out of tokens while thinking: the stream
    ends properly with reasoning but no answer. It used to be saved as a
    complete, blank answer; it is a failure that says so (Retry shown), and
    the reasoning is kept."""
    thread_id = await new_thread(services, loopback, loop_provider)
    reply = openai_stream([], thinking_chunks=["weighing ", "options"], finish_reason="length")
    loopback.enqueue(CHAT, reply)
    final = (await collect(services, SendRequest("next", thread_id=thread_id)))[-1]
    assert isinstance(final, Failed) and final.error["code"] == "empty_answer"
    assert final.error["message"].startswith("The model only reasoned and gave no answer")
    message = (await services.threads.get_active_messages(thread_id))[-1]
    assert message.status is MessageStatus.FAILED and message.text == ""
    assert message.thinking == "weighing options"


async def test_an_answer_cut_at_the_length_limit_is_saved_saying_so(
    services, loopback, loop_provider
) -> None:
    """finish_reason "length" (Anthropic: "max_tokens") was ignored: the cut
    answer was saved as complete as any other, nothing saying its end is
    missing. It stays complete (its words are the model's), marked cut off."""
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["The list: 1. apples 2. pea"], finish_reason="length"))
    final = (await collect(services, SendRequest("List fruit", thread_id=thread_id)))[-1]
    assert isinstance(final, Completed) and final.to_dict()["cut_off"] == "length"
    message = (await services.threads.get_active_messages(thread_id))[-1]
    assert message.status is MessageStatus.COMPLETE and message.data == {"cut_off": "length"}
    loopback.enqueue(CHAT, openai_stream(["Whole."]))
    final = (await collect(services, SendRequest("Again", thread_id=thread_id)))[-1]
    assert final.to_dict()["cut_off"] is None
    assert (await services.threads.get_active_messages(thread_id))[-1].data is None


async def test_reasoning_whose_opening_tag_the_server_never_sent_is_thinking(
    services, loopback, loop_provider
) -> None:
    """DeepSeek-R1 distills on llama.cpp (the template writes <think> into the
    prompt) stream their reasoning as answer text, then </think>: the whole of
    it was saved and shown as the answer, tag and all."""
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(
        CHAT, openai_stream(["Two and two: ", "four.</th", "ink>\n\nThe answer is 4."])
    )
    final = (await collect(services, SendRequest("2+2?", thread_id=thread_id)))[-1]
    assert isinstance(final, Completed) and final.text == "The answer is 4."
    message = (await services.threads.get_active_messages(thread_id))[-1]
    assert (message.text, message.thinking) == ("The answer is 4.", "Two and two: four.")
    loopback.enqueue(CHAT, openai_stream(["Still weighing it up.</think>"]))
    final = (await collect(services, SendRequest("And 3+3?", thread_id=thread_id)))[-1]
    assert isinstance(final, Failed) and final.error["code"] == "empty_answer"
    assert final.error["message"].startswith("The model only reasoned")


async def test_malformed_json_in_the_stream_fails_with_a_clear_message(
    services, loopback, loop_provider
) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(
        CHAT,
        raw_stream(
            ['data: {"choices": [{"delta": {"content": "ok "}}]}', "", "data: {not json", ""]
        ),
    )
    final = (await collect(services, SendRequest("next", thread_id=thread_id)))[-1]
    assert isinstance(final, Failed) and final.error["code"] == "malformed_stream"
    assert final.text == "ok "


async def test_server_gone_is_a_network_error(services, loopback, loop_provider) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.stop()
    final = (await collect(services, SendRequest("anyone?", thread_id=thread_id)))[-1]
    assert isinstance(final, Failed) and final.error["code"] == "network"
    messages = await services.threads.get_active_messages(thread_id)
    assert messages[-2].text == "anyone?" and messages[-1].status is MessageStatus.FAILED


async def test_unknown_provider_is_a_failed_event_not_an_exception(services) -> None:
    final = (await collect(services, SendRequest("hi", provider="ghost", model="m")))[-1]
    assert isinstance(final, Failed) and "ghost" in final.error["message"]
    assert await thread_count(services) == 0


async def test_answer_is_persisted_while_it_streams(services, loopback, loop_provider) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, openai_stream([f"w{i} " for i in range(40)], delay=0.05))
    statements: list[str] = []
    await services.store.worker.run(lambda db: db.conn.set_trace_callback(statements.append))
    seen_streaming = []
    async for event in services.chat.send(SendRequest("long answer please", thread_id=thread_id)):
        if isinstance(event, TextDelta) and event.text == "w30 ":
            rows = await message_rows(services)
            seen_streaming.append((rows[-1]["status"], rows[-1]["text"]))
    await services.store.worker.run(lambda db: db.conn.set_trace_callback(None))
    status, text = seen_streaming[0]
    assert status == "streaming" and text.startswith("w0 w1 ")
    updates = [s for s in statements if s.lstrip().startswith("UPDATE messages SET text")]
    # ~2 s of streaming at one write per 0.5 s: a handful of writes, not one per token.
    assert 2 <= len(set(updates)) <= 8


async def test_two_threads_stream_at_once_and_stop_affects_only_one(
    services, loopback, loop_provider
) -> None:
    first = await new_thread(services, loopback, loop_provider)
    second = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, text_then_hang("A is running"))
    loopback.enqueue(CHAT, openai_stream(["B ", "finished"], delay=0.3))
    run_a = asyncio.create_task(collect(services, SendRequest("a", thread_id=first)))
    await asyncio.sleep(0.2)
    run_b = asyncio.create_task(collect(services, SendRequest("b", thread_id=second)))
    await asyncio.sleep(0.3)
    assert services.chat.running_thread_ids() == {first, second}
    services.chat.stop(first)
    events_a, events_b = await asyncio.gather(run_a, run_b)
    assert isinstance(events_a[-1], Stopped) and events_a[-1].text == "A is running"
    assert isinstance(events_b[-1], Completed) and events_b[-1].text == "B finished"


async def test_sending_to_a_busy_thread_is_refused(services, loopback, loop_provider) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, text_then_hang("busy"))
    run = asyncio.create_task(collect(services, SendRequest("one", thread_id=thread_id)))
    await asyncio.sleep(0.3)
    refused = (await collect(services, SendRequest("two", thread_id=thread_id)))[-1]
    assert isinstance(refused, Failed) and "still answering" in refused.error["message"]
    services.chat.stop(thread_id)
    assert isinstance((await run)[-1], Stopped)


async def test_requests_carry_the_active_branch_and_the_new_text(
    services, loopback, loop_provider
) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    await collect(services, SendRequest("follow-up", thread_id=thread_id))
    body = loopback.requests[-1].json
    assert body["messages"] == [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "follow-up"},
    ]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert loopback.requests[-1].headers["authorization"] == "Bearer sk-secret-123"


async def test_thinking_is_kept_with_its_duration_and_reported_reasoning_tokens(
    services, loopback, loop_provider
) -> None:
    usage = {
        "prompt_tokens": 3,
        "completion_tokens": 30,
        "completion_tokens_details": {"reasoning_tokens": 21},
    }
    loopback.enqueue(
        CHAT,
        openai_stream(["answer"], thinking_chunks=["step 1 ", "step 2"], usage=usage, delay=0.05),
    )
    events = await collect(services, SendRequest("think", provider=loop_provider, model="m"))
    final = events[-1]
    assert isinstance(final, Completed) and final.thinking == "step 1 step 2"
    assert final.usage.reasoning_tokens == 21 and not final.usage.reasoning_estimated
    message = (await services.threads.get_active_messages(final.thread_id))[-1]
    assert message.thinking == "step 1 step 2" and message.thinking_ms and message.thinking_ms >= 50


async def test_stop_thinking_asks_for_an_answer_from_the_reasoning_so_far(
    services, loopback, loop_provider
) -> None:
    loopback.enqueue(CHAT, text_then_hang(thinking=("long ", "reasoning")))
    loopback.enqueue(CHAT, openai_stream(["short answer"]))
    draft = new_id()
    events: list[ChatEvent] = []
    thought = ""  # deltas of one loop turn arrive merged: watch the text, not the pieces
    async for event in services.chat.send(
        SendRequest("hard question", provider=loop_provider, model="m", new_thread_id=draft)
    ):
        events.append(event)
        if isinstance(event, ThinkingDelta):
            thought += event.text
            if thought == "long reasoning":
                assert services.chat.stop_thinking(draft)
    final = events[-1]
    assert isinstance(final, Completed) and final.text == "short answer"
    assert final.thinking == "long reasoning"
    follow_up = loopback.requests[-1].json["messages"][-1]["content"]
    assert "long reasoning" in follow_up and "answer" in follow_up.lower()


async def test_start_up_recovery_marks_dead_streaming_rows_stopped(
    services, loopback, loop_provider
) -> None:
    thread_id = await new_thread(services, loopback, loop_provider)
    await services.store.worker.run(
        lambda db: db.conn.execute(
            "UPDATE messages SET status = 'streaming', owner = 'otherhost-gone:1:1' WHERE role = 'assistant'"
        )
    )
    # A different host cannot be checked: left alone.
    assert await services.chat.recover() == 0
    await services.store.worker.run(
        lambda db: db.conn.execute(
            "UPDATE messages SET owner = ? WHERE role = 'assistant'", [_dead_owner()]
        )
    )
    assert await services.chat.recover() == 1
    messages = await services.threads.get_active_messages(thread_id)
    assert messages[-1].status is MessageStatus.STOPPED and messages[-1].text == "first answer"


def _dead_owner() -> str:
    import socket
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return f"{socket.gethostname()}:{proc.pid}:1"


async def test_events_serialise_with_a_type(services, loopback, loop_provider) -> None:
    loopback.enqueue(CHAT, openai_stream(["x"]))
    events = await collect(services, SendRequest("hi", provider=loop_provider, model="m"))
    for event in events:
        assert "type" in event.to_dict()
    assert isinstance(events[0], RunStarted) and not events[0].persisted
    assert any(isinstance(e, ThreadCreated) for e in events)
    assert any(isinstance(e, AssistantMessageStarted) for e in events)
