"""Room in the window (``room.py``): the oldest tool results are shortened once
they pass the budget, never the last round's; through a chat, the budget
comes from the model's context window."""

from __future__ import annotations

from pathlib import Path

from mira_desktop.bootstrap import Services
from mira_desktop.core.events import Completed
from mira_desktop.core.models import ChatMessage
from mira_desktop.services.agent.room import DEFAULT_BUDGET, KEPT, budget_for, make_room
from tests.support.loopback import LoopbackServer, openai_stream, openai_tool_stream

from ..conftest import CHAT
from .chat_support import request, run


def results(*sizes: int) -> list[ChatMessage]:
    messages = [ChatMessage("system", "s" * 50_000), ChatMessage("user", "u")]
    return messages + [
        ChatMessage("tool", "abc"[i] * n, tool_call_id=f"c{n}") for i, n in enumerate(sizes)
    ]


def test_the_oldest_results_are_cut_first_and_the_last_round_is_spared() -> None:
    messages = results(9_000, 8_000, 7_000)
    assert make_room(messages, budget=12_000, keep_last=1) == 2
    first, second, last = (m.content for m in messages[2:])
    assert first.startswith("a" * KEPT) and "characters cut to leave room" in first
    assert second.startswith("b" * KEPT) and len(second) < 2_000
    assert last == "c" * 7_000  # the round that just ran
    assert messages[0].content == "s" * 50_000  # only tool results are touched
    assert messages[2].tool_call_id == "c9000"


def test_nothing_is_cut_under_budget_or_when_only_the_last_round_is_big() -> None:
    messages = results(1_000, 2_000)
    assert make_room(messages, budget=5_000, keep_last=1) == 0
    big = results(100, 90_000)
    assert make_room(big, budget=5_000, keep_last=1) == 0
    assert big[-1].content == "b" * 90_000


def test_the_budget_follows_the_models_window() -> None:
    assert budget_for(None) == DEFAULT_BUDGET
    assert budget_for(2_048) == 8_000  # a floor for tiny windows
    assert budget_for(128_000) == 256_000


async def test_a_small_model_gets_older_reads_shortened(
    services: Services,
    loop_provider: str,
    loopback: LoopbackServer,
    workspace_id: str,
    project: Path,
) -> None:
    (project / "big.txt").write_text("line of text\n" * 3_000)
    await services.store.save_listed_models("loop", ["m"])
    await services.store.update_model_settings("loop", "m", {"context_window": 4_096})
    read = {"path": "big.txt"}
    loopback.enqueue(CHAT, openai_tool_stream([("r1", "read", read)]))
    loopback.enqueue(CHAT, openai_tool_stream([("r2", "read", read)]))
    loopback.enqueue(CHAT, openai_stream(["Read it."]))
    events = await run(services, request("Read big.txt twice", workspace_id))
    assert isinstance(events[-1], Completed)
    first, second = (m for m in loopback.requests[-1].json["messages"] if m["role"] == "tool")
    assert "characters cut to leave room" in first["content"]
    assert len(second["content"]) > 30_000  # the last round's result, whole
