"""How hard a model reasons, from its setting to the wire (PRODUCT.md §6, §12):
a model's reasoning level is saved with its other settings and kept across
restarts; every answer of that model carries it (send, regenerate), one send
can choose another, and "Stop thinking" asks for the answer with reasoning
off. Real data folder, real HTTP to the loopback server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.errors import ConfigError
from mira_desktop.core.events import ChatEvent, Completed, ThinkingDelta
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Reasoning
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.regenerate import RegenerateRequest
from tests.support.loopback import (
    Hang,
    LoopbackServer,
    ndjson,
    ollama_stream,
    openai_stream,
    raw_stream,
)

from .conftest import CHAT, text_then_hang

OLLAMA = "/api/chat"


async def set_reasoning(services: Services, provider: str, model: str, level: str | None) -> None:
    await services.providers.update_model_settings(
        provider, model, context_window=8_192, vision=True, tier="reasoning",
        compaction_threshold=0.8, reasoning=level,
    )  # fmt: skip


async def answer(services: Services, events: Any) -> Completed:
    collected: list[ChatEvent] = [event async for event in events]
    assert isinstance(collected[-1], Completed), collected[-1]
    return collected[-1]


def bodies(loopback: LoopbackServer, path: str) -> list[dict[str, Any]]:
    return [r.json for r in loopback.requests if r.path == path]


async def test_the_models_level_is_saved_and_kept_across_a_restart(
    services: Services, loopback: LoopbackServer, loop_provider: str, data_dir: Path
) -> None:
    await set_reasoning(services, loop_provider, "m", "high")
    info = await services.providers.get_model(loop_provider, "m")
    assert info is not None and info.reasoning is Reasoning.HIGH
    assert (info.context_window, info.vision, info.compaction_threshold) == (8_192, True, 0.8)
    again = build_services(data_dir)
    try:
        reopened = await again.providers.get_model(loop_provider, "m")
        assert reopened is not None and reopened.reasoning is Reasoning.HIGH
        await set_reasoning(again, loop_provider, "m", None)  # back to the server's default
        cleared = await again.providers.get_model(loop_provider, "m")
        assert cleared is not None and cleared.reasoning is None
    finally:
        await again.aclose()


async def test_an_unknown_level_is_refused_and_nothing_changes(
    services: Services, loop_provider: str
) -> None:
    await set_reasoning(services, loop_provider, "m", "low")
    with pytest.raises(ConfigError, match="off, low, medium or high"):
        await set_reasoning(services, loop_provider, "m", "extreme")
    info = await services.providers.get_model(loop_provider, "m")
    assert info is not None and info.reasoning is Reasoning.LOW


async def test_every_answer_of_the_model_carries_its_level_and_a_send_may_choose(
    services: Services, loopback: LoopbackServer
) -> None:
    await services.providers.add_provider("local", "ollama", loopback.url)
    await set_reasoning(services, "local", "qwen3:8b", "off")
    loopback.enqueue(OLLAMA, ollama_stream(["Quick."]))
    first = await answer(
        services, services.chat.send(SendRequest("Hi", provider="local", model="qwen3:8b"))
    )
    # this one question asks for thought; the model's setting stays as it was
    loopback.enqueue(OLLAMA, ollama_stream(["Slow."], thinking_chunks=["Hmm."]))
    thought = await answer(
        services,
        services.chat.send(
            SendRequest("Prove it", thread_id=first.thread_id, reasoning=Reasoning.HIGH)
        ),
    )
    assert thought.thinking == "Hmm."
    loopback.enqueue(OLLAMA, ollama_stream(["Again."]))
    await answer(
        services,
        services.chat.regenerate(RegenerateRequest(first.thread_id, thought.message_id)),
    )
    sent = bodies(loopback, OLLAMA)
    assert [body["think"] for body in sent] == [False, True, False]
    info = await services.providers.get_model("local", "qwen3:8b")
    assert info is not None and info.reasoning is Reasoning.OFF


async def test_no_level_sends_nothing(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    await answer(services, services.chat.send(SendRequest("Hi", provider=loop_provider, model="m")))
    assert "reasoning_effort" not in bodies(loopback, CHAT)[-1]


async def stop_thinking(services: Services, provider: str, model: str) -> None:
    """Send a question, press "Stop thinking" once its reasoning is there."""
    draft = new_id()
    thought = ""
    final: ChatEvent | None = None
    async for event in services.chat.send(
        SendRequest("hard question", provider=provider, model=model, new_thread_id=draft)
    ):
        final = event
        if isinstance(event, ThinkingDelta):
            thought += event.text
            if thought == "long reasoning":
                assert services.chat.stop_thinking(draft)
    assert isinstance(final, Completed) and final.text == "short answer"


@pytest.mark.parametrize(("level", "then"), [("medium", "low"), ("off", "low"), (None, None)])
async def test_stop_thinking_asks_for_the_answer_with_the_least_reasoning(
    services: Services,
    loopback: LoopbackServer,
    loop_provider: str,
    level: str | None,
    then: str | None,
) -> None:
    """An OpenAI-compatible server cannot be told "off": the follow-up asks
    for "low" (a model set to low stays low, not the server's medium); a
    model with no level gets no field it never had."""
    await set_reasoning(services, loop_provider, "m", level)
    loopback.enqueue(CHAT, text_then_hang(thinking=("long ", "reasoning")))
    loopback.enqueue(CHAT, openai_stream(["short answer"]))
    await stop_thinking(services, loop_provider, "m")
    asked, follow_up = bodies(loopback, CHAT)
    assert asked.get("reasoning_effort") == (level and ("low" if level == "off" else level))
    assert follow_up.get("reasoning_effort") == then


async def test_stop_thinking_turns_ollamas_thinking_off(
    services: Services, loopback: LoopbackServer
) -> None:
    await services.providers.add_provider("local", "ollama", loopback.url)
    await set_reasoning(services, "local", "qwen3:8b", "high")
    thinking = [
        ndjson({"message": {"role": "assistant", "thinking": t}}) for t in ("long ", "reasoning")
    ]
    loopback.enqueue(OLLAMA, raw_stream([*thinking, Hang()]))
    loopback.enqueue(OLLAMA, ollama_stream(["short answer"]))
    await stop_thinking(services, "local", "qwen3:8b")
    assert [body["think"] for body in bodies(loopback, OLLAMA)] == [True, False]


@pytest.mark.parametrize(("level", "sent"), [("high", "low"), (None, None)])
async def test_summaries_and_compaction_ask_with_the_least_reasoning(
    services: Services,
    loopback: LoopbackServer,
    loop_provider: str,
    level: str | None,
    sent: str | None,
) -> None:
    """A summary needs no thought: a model set to reason is asked with the
    least it takes (low for reasoning_effort); one left at the server's
    default gets no field."""
    await set_reasoning(services, loop_provider, "m", level)
    loopback.enqueue(CHAT, openai_stream(["An answer."]))
    first = await answer(
        services, services.chat.send(SendRequest("A question", provider=loop_provider, model="m"))
    )
    loopback.enqueue(CHAT, openai_stream(["They talked."]))
    await services.summaries.generate(first.thread_id)
    loopback.enqueue(CHAT, openai_stream(["Compressed."]))
    await services.compaction.compact(first.thread_id)
    asked, summary, compaction = bodies(loopback, CHAT)
    assert asked.get("reasoning_effort") == level
    assert summary.get("reasoning_effort") == compaction.get("reasoning_effort") == sent
