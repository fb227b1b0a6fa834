"""The context meter (PRODUCT.md §4) on a real data folder: exact counts with
the shipped tiktoken encoding, window / remaining / share / peak, what it
includes (role, summary, checkpoint, draft files), incremental counting, and
its speed on a 100,000-token thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.core.models import Message, MessageRole, Thread
from mira_desktop.paths import resource_path
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.meter import ContextMeterService
from mira_desktop.services.tokens import TiktokenCounter
from tests.support.documents import make_pdf
from tests.support.loopback import LoopbackServer, openai_stream

from .conftest import CHAT


class CountingCounter:
    """The shipped counter, remembering what it was asked to count."""

    def __init__(self, inner: TiktokenCounter) -> None:
        self.inner = inner
        self.texts: list[str] = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return self.inner.count(text)


async def hello_thread(services: Services, loopback: LoopbackServer, provider: str) -> str:
    loopback.enqueue(
        CHAT,
        openai_stream(["hello world"], usage={"prompt_tokens": 9, "completion_tokens": 2}),
    )
    events = [
        e
        async for e in services.chat.send(SendRequest("hello world", provider=provider, model="m"))
    ]
    assert events[-1].thread_id
    return events[-1].thread_id


async def test_exact_counts_with_the_shipped_encoding(services, loopback, loop_provider) -> None:
    assert services.tokens.count("hello world") == 2
    thread_id = await hello_thread(services, loopback, loop_provider)
    meter = await services.meter.measure(thread_id)
    # reply priming 3 + two messages of (4 framing + 2 tokens)
    assert meter.current_tokens == 3 + 6 + 6 == 15
    assert meter.peak_tokens == 15  # the stored prompt (9) was smaller
    assert meter.context_window is None and meter.remaining is None and meter.share is None
    typed = await services.meter.measure(thread_id, "hello world")
    assert typed.current_tokens == 15 + 4 + 2
    await services.providers.update_model_settings(
        "loop", "m", context_window=100, vision=False, tier=None, compaction_threshold=None
    )
    meter = await services.meter.measure(thread_id)
    assert (meter.context_window, meter.remaining, meter.share) == (100, 85, 0.15)
    assert meter.to_dict() == {
        "current_tokens": 15,
        "peak_tokens": 15,
        "context_window": 100,
        "remaining": 85,
        "share": 0.15,
    }


async def test_peak_comes_from_the_largest_stored_request(
    services, loopback, loop_provider
) -> None:
    loopback.enqueue(
        CHAT, openai_stream(["x"], usage={"prompt_tokens": 5000, "completion_tokens": 1})
    )
    events = [
        e async for e in services.chat.send(SendRequest("hi", provider=loop_provider, model="m"))
    ]
    meter = await services.meter.measure(events[-1].thread_id)
    assert meter.peak_tokens == 5000 and meter.current_tokens < 20


async def test_role_summary_checkpoint_and_draft_files_are_counted(
    services, loopback, loop_provider, tmp_path: Path
) -> None:
    thread_id = await hello_thread(services, loopback, loop_provider)
    base = (await services.meter.measure(thread_id)).current_tokens
    role = await services.roles.create("Tutor", persona="Teach slowly.")
    await services.threads.set_role(thread_id, role.id)
    with_role = (await services.meter.measure(thread_id)).current_tokens
    assert with_role > base
    await services.summaries.set(thread_id, "A long summary of many things " * 5)
    assert (await services.meter.measure(thread_id)).current_tokens > with_role
    loopback.enqueue(CHAT, openai_stream(["tiny"]))
    await services.chat.compact(thread_id)
    compacted = (await services.meter.measure(thread_id)).current_tokens
    assert compacted < (await services.meter.measure(thread_id, "x")).current_tokens
    pdf_path = tmp_path / "r.pdf"
    pdf_path.write_bytes(make_pdf([["Quarterly numbers: " + "12345 " * 50]]))
    pdf = await services.attachments.prepare(pdf_path)
    with_file = await services.meter.measure(thread_id, "x", attachments=[pdf])
    assert with_file.current_tokens > compacted + 50
    await services.attachments.discard(pdf)


async def test_counting_is_incremental(services, loopback, loop_provider) -> None:
    counter = CountingCounter(services.tokens)
    meter = ContextMeterService(services.store, services.store.context, counter)
    thread_id = await hello_thread(services, loopback, loop_provider)
    await meter.measure(thread_id)
    assert counter.texts == ["hello world", "hello world"]
    counter.texts.clear()
    await meter.measure(thread_id)
    assert counter.texts == []  # nothing changed: nothing counted
    for draft in ("h", "he", "hel"):
        await meter.measure(thread_id, draft)
    assert counter.texts == ["h", "he", "hel"]  # typing counts only the draft
    counter.texts.clear()
    loopback.enqueue(CHAT, openai_stream(["second answer"]))
    _ = [e async for e in services.chat.send(SendRequest("second question", thread_id=thread_id))]
    await meter.measure(thread_id, "hel")
    assert sorted(counter.texts) == ["second answer", "second question"]


async def big_thread(services: Services, target: int = 100_000) -> tuple[str, int]:
    """A thread of ~500-token messages, ``target`` tokens in all."""
    now = utc_now()
    workspace = await services.store.default_workspace()
    thread = await services.store.create_thread(
        Thread(id=new_id(), title="big", workspace_id=workspace.id, created_at=now, updated_at=now)
    )
    total, parent, index = 0, None, 0
    while total < target:
        text = " ".join(f"token{index}-{n} 数据 {n * 7919 % 1000}" for n in range(90))
        role = MessageRole.USER if index % 2 == 0 else MessageRole.ASSISTANT
        message = Message(new_id(), thread.id, role, text, utc_now(), parent_id=parent)
        await services.store.add_message(message)
        total += services.tokens.count(text)
        parent, index = message.id, index + 1
    return thread.id, total


async def test_fast_on_a_100k_token_thread(services) -> None:
    thread_id, total = await big_thread(services)
    assert total >= 100_000
    started = time.perf_counter()
    cold = await services.meter.measure(thread_id)
    cold_s = time.perf_counter() - started
    assert cold.current_tokens >= total
    started = time.perf_counter()
    for draft in ("a", "ab", "abc", "abcd", "abcde"):
        typed = await services.meter.measure(thread_id, draft)
    typing_s = (time.perf_counter() - started) / 5
    assert typed.current_tokens == cold.current_tokens + 4 + services.tokens.count("abcde")
    print(
        f"\nmeter on {total} tokens: cold {cold_s * 1000:.0f} ms, typing {typing_s * 1000:.1f} ms"
    )
    assert cold_s < 5.0 and typing_s < 0.05


class ThreadRecordingCounter(TiktokenCounter):
    """The shipped counter, remembering which thread each count ran on."""

    def __init__(self, cache_dir: Path) -> None:
        super().__init__(cache_dir)
        self.threads: list[str] = []

    def count(self, text: str) -> int:
        self.threads.append(threading.current_thread().name)
        return super().count(text)


async def test_first_count_loads_the_encoding_off_the_calling_thread(services) -> None:
    """Loading tiktoken takes 0.5-1 s: a short draft measured before the
    encoding is loaded must not count on the (Qt) thread that asked; once
    loaded, short drafts are counted inline."""
    counter = ThreadRecordingCounter(resource_path("tiktoken_cache"))
    meter = ContextMeterService(services.store, services.store.context, counter)
    here = threading.current_thread().name
    assert not counter.loaded
    first = await meter.measure(new_id(), "hi")
    assert counter.loaded and first.current_tokens > 0
    assert counter.threads and here not in counter.threads
    counter.threads.clear()
    await meter.measure(new_id(), "hello")
    assert counter.threads == [here]
