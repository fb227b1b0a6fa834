"""Compaction (PRODUCT.md §4) against the loopback server: ``/compact`` writes a
"Context compressed" card and later requests replay only the checkpoint and
what follows; "Nothing to compact yet."; the prompt keeps identifiers; the
automatic compaction on a context overflow (one retry) and before a turn that
would exceed the model's threshold."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.context import NOTHING_TO_COMPACT, is_checkpoint
from mira_desktop.core.errors import ConfigError, MiraError
from mira_desktop.core.events import Compacted, Compacting, Completed, Failed
from mira_desktop.core.models import MessageRole
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.context import CHECKPOINT_HEADER
from mira_desktop.services.regenerate import RegenerateRequest
from tests.support.loopback import (
    Gate,
    LoopbackServer,
    json_reply,
    openai_json_error,
    openai_stream,
    raw_stream,
)

from .conftest import CHAT

URL = "https://pubmed.ncbi.nlm.nih.gov/31452104/"


async def turn(services: Services, loopback: LoopbackServer, events: Any, reply: str) -> list:
    loopback.enqueue(CHAT, openai_stream([reply]))
    collected = [e async for e in events]
    assert isinstance(collected[-1], Completed), collected[-1]
    return collected


async def two_turns(services: Services, loopback: LoopbackServer, provider: str) -> str:
    first = await turn(
        services,
        loopback,
        services.chat.send(
            SendRequest(f"Read {URL} (PMID 31452104)", provider=provider, model="m")
        ),
        "It reports 42 patients.",
    )
    thread_id = first[-1].thread_id
    await turn(
        services,
        loopback,
        services.chat.send(SendRequest("Save it to /data/run-7/notes.md", thread_id=thread_id)),
        "Saved.",
    )
    return thread_id


def contents(loopback: LoopbackServer, index: int = -1) -> list[tuple[str, Any]]:
    return [(m["role"], m["content"]) for m in loopback.requests[index].json["messages"]]


async def test_compact_writes_a_card_and_later_requests_replay_only_what_follows(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    loopback.enqueue(CHAT, openai_stream([f"Checkpoint: {URL}, 42 patients."]))
    result = await services.chat.compact(thread_id, "Focus on the numbers")
    assert result.compacted and result.message == "Context compressed."
    summary_request = loopback.requests[-1].json
    prompt = summary_request["messages"][0]["content"]
    for kept in ("URLs", "DOIs", "PMIDs", "file paths", "numbers"):
        assert kept in prompt
    transcript = summary_request["messages"][1]["content"]
    assert URL in transcript and "/data/run-7/notes.md" in transcript
    assert "Focus on the numbers" in transcript
    card = result.card
    branch = await services.conversation.active_branch(thread_id)
    assert branch[-1] == card and card.role is MessageRole.SYSTEM_CARD and is_checkpoint(card)
    assert card.data["summary"] == f"Checkpoint: {URL}, 42 patients."
    assert card.data["covers_until"] == branch[-2].id and card.data["trigger"] == "manual"
    assert card.data["instructions"] == "Focus on the numbers"

    await turn(
        services, loopback, services.chat.send(SendRequest("Next?", thread_id=thread_id)), "ok"
    )
    replay = contents(loopback)
    assert replay[0][0] == "system" and replay[0][1].startswith(CHECKPOINT_HEADER)
    assert replay[0][1].endswith(f"Checkpoint: {URL}, 42 patients.")
    assert replay[1:] == [("user", "Next?")]
    await turn(
        services, loopback, services.chat.send(SendRequest("More", thread_id=thread_id)), "k"
    )
    assert contents(loopback)[1:] == [("user", "Next?"), ("assistant", "ok"), ("user", "More")]


async def test_nothing_to_compact_is_a_result_not_an_error(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["summary"]))
    assert (await services.chat.compact(thread_id)).compacted
    requests = len(loopback.requests)
    again = await services.chat.compact(thread_id)
    assert not again.compacted and again.message == NOTHING_TO_COMPACT == "Nothing to compact yet."
    assert len(loopback.requests) == requests  # no model call


async def test_a_summary_cut_at_the_length_limit_changes_nothing(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    before = await services.conversation.active_branch(thread_id)
    loopback.enqueue(CHAT, openai_stream(["The user asked about PMID 314"], finish_reason="length"))
    with pytest.raises(MiraError, match="cut off at the model's answer length limit"):
        await services.chat.compact(thread_id)
    after = await services.conversation.active_branch(thread_id)
    assert [m.id for m in after] == [m.id for m in before]  # no card
    loopback.enqueue(CHAT, openai_stream(["cut"], finish_reason="length"))
    with pytest.raises(MiraError, match="cut off"):
        await services.summaries.generate(thread_id)
    assert await services.summaries.get(thread_id) is None  # nothing saved


async def test_a_message_sent_while_the_summary_is_written_counts_as_behind(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    gate = Gate()
    held = openai_stream(["A summary of two turns."])
    held.chunks.insert(1, gate)
    loopback.enqueue(CHAT, held)
    writing = asyncio.ensure_future(services.summaries.generate(thread_id))
    while len(loopback.requests) < 3:  # the summary request is with the server
        await asyncio.sleep(0.01)
    await turn(
        services, loopback, services.chat.send(SendRequest("One more", thread_id=thread_id)), "ok"
    )
    gate.open()
    summary = await writing
    assert summary.lag == 2  # "One more" and its answer are not in it
    assert (await services.summaries.get(thread_id)).lag == 2


async def test_a_compaction_overtaken_by_a_regeneration_saves_no_card(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    gate = Gate()
    held = openai_stream(["A summary."])
    held.chunks.insert(1, gate)
    loopback.enqueue(CHAT, held)
    compacting = asyncio.ensure_future(services.chat.compact(thread_id))
    while len(loopback.requests) < 3:
        await asyncio.sleep(0.01)
    answer = (await services.conversation.active_branch(thread_id))[-1]
    retry = RegenerateRequest(thread_id, answer.id)
    await turn(services, loopback, services.chat.regenerate(retry), "Saved, again.")
    gate.open()
    with pytest.raises(ConfigError, match="changed while it was being compressed"):
        await compacting
    branch = await services.conversation.active_branch(thread_id)
    assert branch[-1].text == "Saved, again." and not any(is_checkpoint(m) for m in branch)


async def test_a_second_compaction_folds_in_the_first(services, loopback, loop_provider) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    loopback.enqueue(CHAT, openai_stream(["first checkpoint"]))
    await services.chat.compact(thread_id)
    await turn(services, loopback, services.chat.send(SendRequest("q3", thread_id=thread_id)), "a3")
    loopback.enqueue(CHAT, openai_stream(["second checkpoint"]))
    await services.chat.compact(thread_id)
    transcript = loopback.requests[-1].json["messages"][1]["content"]
    assert "first checkpoint" in transcript and "User: q3" in transcript
    assert "42 patients" not in transcript  # covered by the first checkpoint already


async def test_overflow_compacts_and_retries_once(services, loopback, loop_provider) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    before = len(loopback.requests)
    loopback.enqueue(
        CHAT,
        openai_json_error(
            400,
            "This model's maximum context length is 50 tokens.",
            code="context_length_exceeded",
        ),
    )
    loopback.enqueue(CHAT, openai_stream([f"CKPT {URL}"]))
    loopback.enqueue(CHAT, openai_stream(["fits now"]))
    events = [e async for e in services.chat.send(SendRequest("And now?", thread_id=thread_id))]
    assert isinstance(events[-1], Completed) and events[-1].text == "fits now"
    first, summary, retry = (r.json for r in loopback.requests[before:])
    assert URL in summary["messages"][1]["content"]
    assert len(str(retry["messages"])) < len(str(first["messages"]))
    assert retry["messages"][0]["content"].startswith(CHECKPOINT_HEADER)
    assert f"CKPT {URL}" in retry["messages"][0]["content"]
    assert [m["content"] for m in retry["messages"][1:]] == ["And now?"]
    kinds = [type(e) for e in events]
    assert kinds.index(Compacting) < kinds.index(Compacted) < len(kinds) - 1
    compacted = next(e for e in events if isinstance(e, Compacted))
    assert compacted.trigger == "overflow" and compacted.to_dict()["type"] == "compacted"
    # the card follows the answer of its turn and covers what came before the question
    branch = await services.conversation.active_branch(thread_id)
    assert [m.role for m in branch[-3:]] == [
        MessageRole.USER,
        MessageRole.ASSISTANT,
        MessageRole.SYSTEM_CARD,
    ]
    assert branch[-1].parent_id == branch[-2].id == events[-1].message_id
    assert branch[-1].data["covers_until"] == branch[-4].id
    await turn(
        services, loopback, services.chat.send(SendRequest("Then?", thread_id=thread_id)), "k"
    )
    assert [m["content"] for m in loopback.requests[-1].json["messages"][1:]] == [
        "And now?",
        "fits now",
        "Then?",
    ]


LM_STUDIO_OVERFLOW = (
    "Trying to keep the first 900 tokens when context the overflows. However, the model is "
    "loaded with context length of only 512 tokens, which is not enough. Try to load the "
    "model with a larger context length, or provide a shorter input"
)


@pytest.mark.parametrize(
    "refusal",
    [
        json_reply({"error": LM_STUDIO_OVERFLOW}, 400),  # LM Studio
        openai_json_error(500, "Context size has been exceeded.", type="server_error"),
        # llama.cpp's server streaming: an ``error:`` field line, then [DONE]
        raw_stream(
            [
                b'error: {"code":400,"message":"the request exceeds the available '
                b'context size, try increasing it","type":"exceed_context_size_error"}\n\n',
                b"data: [DONE]\n\n",
            ]
        ),
    ],
    ids=["lm-studio-400", "llama-cpp-500", "llama-cpp-stream"],
)
async def test_servers_own_overflow_words_compact_and_retry(
    services, loopback, loop_provider, refusal
) -> None:
    """LM Studio's wording, and an overflow said with HTTP 500, are overflows
    too: the turn is compacted and sent again instead of failing."""
    thread_id = await two_turns(services, loopback, loop_provider)
    before = len(loopback.requests)
    loopback.enqueue(CHAT, refusal)
    loopback.enqueue(CHAT, openai_stream(["CKPT"]))
    loopback.enqueue(CHAT, openai_stream(["fits now"]))
    events = [e async for e in services.chat.send(SendRequest("And now?", thread_id=thread_id))]
    assert isinstance(events[-1], Completed) and events[-1].text == "fits now"
    assert any(isinstance(e, Compacted) and e.trigger == "overflow" for e in events)
    retry = loopback.requests[-1].json
    assert len(loopback.requests) - before == 3
    assert retry["messages"][0]["content"].startswith(CHECKPOINT_HEADER)


async def test_a_second_overflow_fails_with_the_providers_reason(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    too_long = openai_json_error(400, "prompt is too long", code="context_length_exceeded")
    loopback.enqueue(CHAT, too_long)
    loopback.enqueue(CHAT, openai_stream(["CKPT"]))
    loopback.enqueue(CHAT, too_long)
    events = [e async for e in services.chat.send(SendRequest("x", thread_id=thread_id))]
    assert isinstance(events[-1], Failed) and events[-1].error["code"] == "context_overflow"


async def test_overflow_with_nothing_to_compact_fails_at_once(
    services, loopback, loop_provider
) -> None:
    loopback.enqueue(
        CHAT, openai_json_error(400, "prompt is too long", code="context_length_exceeded")
    )
    events = [
        e async for e in services.chat.send(SendRequest("x", provider=loop_provider, model="m"))
    ]
    assert isinstance(events[-1], Failed) and events[-1].error["code"] == "context_overflow"
    assert not any(isinstance(e, Compacting) for e in events) and len(loopback.requests) == 1


async def test_pre_turn_compaction_when_the_request_exceeds_the_threshold(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    await services.providers.update_model_settings(
        "loop", "m", context_window=1000, vision=False, tier=None, compaction_threshold=0.05
    )
    before = len(loopback.requests)
    loopback.enqueue(CHAT, openai_stream(["short checkpoint"]))
    loopback.enqueue(CHAT, openai_stream(["answer"]))
    events = [e async for e in services.chat.send(SendRequest("Go on", thread_id=thread_id))]
    assert isinstance(events[-1], Completed)
    summary, request = (r.json for r in loopback.requests[before:])
    assert summary["messages"][0]["content"].startswith("You compress a conversation")
    assert [m["content"] for m in request["messages"][1:]] == ["Go on"]
    assert next(e for e in events if isinstance(e, Compacted)).trigger == "pre_turn"


async def test_regeneration_compacts_without_breaking_the_versions(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    branch = await services.conversation.active_branch(thread_id)
    too_long = openai_json_error(400, "prompt is too long", code="context_length_exceeded")
    loopback.enqueue(CHAT, too_long)
    loopback.enqueue(CHAT, openai_stream(["CKPT"]))
    loopback.enqueue(CHAT, openai_stream(["Saved again."]))
    events = [e async for e in services.chat.regenerate(RegenerateRequest(thread_id, branch[3].id))]
    assert isinstance(events[-1], Completed)
    assert [m["content"] for m in loopback.requests[-1].json["messages"][1:]] == [
        "Save it to /data/run-7/notes.md"
    ]
    new = await services.conversation.active_branch(thread_id)
    answer = new[-2]
    assert answer.text == "Saved again." and (answer.sibling_index, answer.sibling_count) == (1, 2)
    assert is_checkpoint(new[-1]) and new[-1].parent_id == answer.id


async def test_a_conversation_longer_than_the_window_is_summarised_in_chunks(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    await services.providers.update_model_settings(
        "loop", "m", context_window=40, vision=False, tier=None, compaction_threshold=None
    )
    before = len(loopback.requests)
    loopback.set_default(CHAT, openai_stream(["rolling summary"]))
    result = await services.chat.compact(thread_id)
    calls = [r.json["messages"][1]["content"] for r in loopback.requests[before:]]
    assert len(calls) > 1 and result.card is not None
    assert all(c.startswith("[Summary of the conversation before this part]") for c in calls[1:])
    assert URL in "".join(calls)
