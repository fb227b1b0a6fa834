"""Deltas of one event-loop turn reach the consumer merged (``DeltaCoalescer``
in ``ChatRun``): the text, the reasoning and their order are exactly what the
model streamed, with far fewer events than chunks on a fast stream."""

from __future__ import annotations

from mira_desktop.core.events import (
    ChatEvent,
    Completed,
    DeltaCoalescer,
    StreamDone,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageReported,
    merge_deltas,
)
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import openai_stream

from .conftest import CHAT


def test_coalescer_merges_runs_and_keeps_interleaving() -> None:
    merger = DeltaCoalescer()
    pieces = [
        ThinkingDelta("a"),
        ThinkingDelta(""),
        ThinkingDelta("b"),
        TextDelta("c"),
        TextDelta("d"),
        ThinkingDelta("e"),
        TextDelta("f"),
    ]
    for piece in pieces:
        merger.add(piece)
    assert merger
    assert merger.take() == [
        ThinkingDelta("ab"),
        TextDelta("cd"),
        ThinkingDelta("e"),
        TextDelta("f"),
    ]
    assert not merger and merger.take() == []


def test_coalescer_drops_empty_deltas() -> None:
    merger = DeltaCoalescer()
    merger.add(TextDelta(""))
    assert not merger and merger.take() == []


def test_merge_deltas_keeps_other_events_in_place() -> None:
    call = ToolCallDelta(0, "c1", "f", "{}")
    events = [
        ThinkingDelta("a"),
        ThinkingDelta("b"),
        TextDelta("c"),
        call,
        TextDelta("d"),
        TextDelta(""),
        TextDelta("e"),
        UsageReported(1, 2),
        StreamDone("stop"),
    ]
    assert merge_deltas(events) == [
        ThinkingDelta("ab"),
        TextDelta("c"),
        call,
        TextDelta("de"),
        UsageReported(1, 2),
        StreamDone("stop"),
    ]
    assert merge_deltas([TextDelta("x")]) == [TextDelta("x")]
    assert merge_deltas([]) == []


async def test_fast_stream_arrives_merged_with_the_exact_text(
    services, loopback, loop_provider
) -> None:
    thinking = [f"t{i} " for i in range(200)]
    text = [f"w{i} " for i in range(1000)]
    loopback.enqueue(CHAT, openai_stream(text, thinking_chunks=thinking))
    events: list[ChatEvent] = []
    request = SendRequest("go", provider=loop_provider, model="m")
    async for event in services.chat.send(request):
        events.append(event)
    deltas = [e for e in events if isinstance(e, TextDelta | ThinkingDelta)]
    assert "".join(e.text for e in deltas if isinstance(e, ThinkingDelta)) == "".join(thinking)
    assert "".join(e.text for e in deltas if isinstance(e, TextDelta)) == "".join(text)
    kinds = [type(e) for e in deltas]
    first_text = kinds.index(TextDelta)
    assert set(kinds[:first_text]) == {ThinkingDelta} and set(kinds[first_text:]) == {TextDelta}
    assert len(deltas) < len(thinking) + len(text)  # merged per loop turn
    final = events[-1]
    assert isinstance(final, Completed) and final.text == "".join(text)
    assert final.thinking == "".join(thinking)
