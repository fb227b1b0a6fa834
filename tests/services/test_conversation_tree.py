"""The conversation tree (PRODUCT.md §5) against the loopback server and a real
SQLite file: edit → branch, regenerate with presets and guidance, tier
escalation, undo / restore, switching branches, and busy-input redirect."""

from __future__ import annotations

import asyncio
import time

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError
from mira_desktop.core.events import ChatEvent, Completed, RunStarted, Stopped, TextDelta
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, MessageStatus
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.regenerate import RegeneratePreset, RegenerateRequest
from tests.support.loopback import Hang, LoopbackServer, openai_stream, raw_stream

from .conftest import CHAT, text_then_hang


async def answer(services: Services, loopback: LoopbackServer, reply: str, events) -> list:
    loopback.enqueue(CHAT, openai_stream([reply]))
    collected: list[ChatEvent] = [event async for event in events]
    assert isinstance(collected[-1], Completed), collected[-1]
    return collected


async def two_turns(services: Services, loopback: LoopbackServer, provider: str) -> str:
    """A thread q1 → a1 → q2 → a2; returns its id."""
    first = await answer(
        services,
        loopback,
        "a1",
        services.chat.send(SendRequest("q1", provider=provider, model="small")),
    )
    thread_id = first[-1].thread_id
    await answer(
        services, loopback, "a2", services.chat.send(SendRequest("q2", thread_id=thread_id))
    )
    return thread_id


def texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages]


def sent_messages(loopback: LoopbackServer) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in loopback.requests[-1].json["messages"]]


async def test_edit_makes_a_sibling_and_keeps_the_old_branch(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    old = await services.conversation.active_branch(thread_id)
    events = await answer(
        services, loopback, "a2 v2", services.chat.edit(thread_id, old[2].id, "q2 edited")
    )
    started = events[0]
    assert isinstance(started, RunStarted) and started.kind == "edit"
    assert sent_messages(loopback) == [("user", "q1"), ("assistant", "a1"), ("user", "q2 edited")]
    branch = await services.conversation.active_branch(thread_id)
    assert texts(branch) == ["q1", "a1", "q2 edited", "a2 v2"]
    edited = branch[2]
    assert edited.parent_id == old[2].parent_id and edited.data == {"edited_from": old[2].id}
    assert (edited.sibling_index, edited.sibling_count) == (1, 2)
    # the old version and its answer are intact, one click away
    assert texts(await services.conversation.branch_through(thread_id, old[2].id)) == [
        "q1",
        "a1",
        "q2",
        "a2",
    ]
    back = await services.conversation.switch_sibling(thread_id, edited.id, -1)
    assert texts(back) == ["q1", "a1", "q2", "a2"]
    assert (back[2].sibling_index, back[2].sibling_count) == (0, 2)
    thread = await services.threads.get_thread(thread_id)
    assert thread.active_leaf_id == old[3].id  # switching is persisted
    # clamped at the ends
    assert texts(await services.conversation.switch_sibling(thread_id, back[2].id, -1)) == texts(
        back
    )


async def test_editing_the_first_message_starts_a_new_root_version(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    first = (await services.conversation.active_branch(thread_id))[0]
    await answer(services, loopback, "fresh", services.chat.edit(thread_id, first.id, "q1 again"))
    assert sent_messages(loopback) == [("user", "q1 again")]
    branch = await services.conversation.active_branch(thread_id)
    assert texts(branch) == ["q1 again", "fresh"]
    assert branch[0].parent_id is None and branch[0].sibling_count == 2


async def test_only_user_messages_are_edited_and_only_answers_regenerated(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    branch = await services.conversation.active_branch(thread_id)
    failed = [e async for e in services.chat.edit(thread_id, branch[1].id, "x")][-1]
    assert "Only your own messages" in failed.error["message"]
    request = RegenerateRequest(thread_id, branch[0].id)
    failed = [e async for e in services.chat.regenerate(request)][-1]
    assert "Only an answer" in failed.error["message"]
    assert len(loopback.requests) == 2  # no model was called


@pytest.mark.parametrize(
    ("preset", "guidance", "expected"),
    [
        (RegeneratePreset.CONCISE, None, "Make the answer more concise."),
        (RegeneratePreset.DETAILED, None, "Make the answer more detailed."),
        (RegeneratePreset.CREATIVE, None, "Make the answer more creative."),
        (RegeneratePreset.CUSTOM, "Answer  in French.", "Answer in French."),
    ],
)
async def test_regenerate_sends_the_guidance_and_adds_a_sibling_answer(
    services, loopback, loop_provider, preset, guidance, expected
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    old = await services.conversation.active_branch(thread_id)
    request = RegenerateRequest(thread_id, old[3].id, preset=preset, guidance=guidance)
    events = await answer(services, loopback, "a2 again", services.chat.regenerate(request))
    assert isinstance(events[0], RunStarted) and events[0].kind == "regenerate"
    assert not any(type(e).__name__ == "UserMessageSaved" for e in events)
    assert sent_messages(loopback) == [
        ("user", "q1"),
        ("assistant", "a1"),
        ("user", f"q2\n\n[Regeneration guidance: {expected}]"),
    ]
    branch = await services.conversation.active_branch(thread_id)
    assert texts(branch) == ["q1", "a1", "q2", "a2 again"]
    new = branch[3]
    assert new.parent_id == old[2].id and (new.sibling_index, new.sibling_count) == (1, 2)
    assert new.data["regenerated_from"] == old[3].id and new.data["guidance"] == expected
    assert new.model == "small" and "escalated_from" not in new.data
    # the stored question is what the user typed; the old answer is intact
    assert branch[2].text == "q2"
    assert texts(await services.conversation.branch_through(thread_id, old[3].id))[-1] == "a2"


async def _set_tier(services: Services, model: str, tier: str | None) -> None:
    await services.providers.update_model_settings(
        "loop", model, context_window=None, vision=False, tier=tier, compaction_threshold=None
    )


async def test_plain_retry_escalates_to_the_next_configured_tier(
    services, loopback, loop_provider
) -> None:
    await _set_tier(services, "small", "fast")
    await _set_tier(services, "big", "standard")
    await _set_tier(services, "deep", "reasoning")
    thread_id = await two_turns(services, loopback, loop_provider)
    old = await services.conversation.active_branch(thread_id)
    retry = RegenerateRequest(thread_id, old[3].id)
    events = await answer(services, loopback, "better", services.chat.regenerate(retry))
    assert loopback.requests[-1].json["model"] == "big"
    started = events[0]
    assert isinstance(started, RunStarted) and started.model == "big"
    assert started.note and "escalated to big" in started.note
    assert started.to_dict()["escalated_from"] == {
        "provider": "loop",
        "model": "small",
        "tier": "fast",
    }
    new = (await services.conversation.active_branch(thread_id))[-1]
    assert new.model == "big" and new.data["escalated_from"]["model"] == "small"
    assert new.data["escalated_to"] == {"provider": "loop", "model": "big", "tier": "standard"}
    assert "escalated to big" in new.data["note"]
    # the next plain retry of that answer climbs once more; guidance never escalates
    await answer(
        services,
        loopback,
        "deepest",
        services.chat.regenerate(RegenerateRequest(thread_id, new.id)),
    )
    assert loopback.requests[-1].json["model"] == "deep"
    guided = RegenerateRequest(thread_id, old[3].id, preset="concise")
    await answer(services, loopback, "short", services.chat.regenerate(guided))
    assert loopback.requests[-1].json["model"] == "small"
    # escalation is one answer's: the thread keeps the chosen model
    assert (await services.threads.get_thread(thread_id)).model == "small"


async def test_plain_retry_without_tiers_uses_the_same_model(
    services, loopback, loop_provider
) -> None:
    await _set_tier(services, "big", "standard")  # tiers elsewhere, none on "small"
    thread_id = await two_turns(services, loopback, loop_provider)
    old = await services.conversation.active_branch(thread_id)
    events = await answer(
        services,
        loopback,
        "again",
        services.chat.regenerate(RegenerateRequest(thread_id, old[3].id)),
    )
    assert loopback.requests[-1].json["model"] == "small"
    assert events[0].note is None and sent_messages(loopback)[-1] == ("user", "q2")


async def test_undo_trashes_the_last_turn_and_restore_brings_it_back(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    before = await services.conversation.active_branch(thread_id)
    undone = await services.conversation.undo_last_turn(thread_id)
    assert undone.message_ids == (before[2].id, before[3].id)
    assert undone.active_leaf_id == before[1].id and texts(list(undone.branch)) == ["q1", "a1"]
    trashed = await services.store.worker.run(
        lambda db: db.execute(
            "SELECT COUNT(*) FROM messages WHERE deleted_at IS NOT NULL"
        ).fetchone()[0]
    )
    assert trashed == 2  # in the trash, not deleted
    # the next message follows a1 and the model no longer sees the undone turn
    await answer(
        services, loopback, "a3", services.chat.send(SendRequest("q3", thread_id=thread_id))
    )
    assert sent_messages(loopback) == [("user", "q1"), ("assistant", "a1"), ("user", "q3")]
    restored = await services.conversation.restore_turn(thread_id, before[2].id)
    assert texts(restored) == ["q1", "a1", "q2", "a2"]
    assert (restored[2].sibling_index, restored[2].sibling_count) == (0, 2)


async def test_undo_twice_then_restore_latest_first(services, loopback, loop_provider) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    await services.conversation.undo_last_turn(thread_id)
    emptied = await services.conversation.undo_last_turn(thread_id)
    assert emptied.active_leaf_id is None and emptied.branch == ()
    with pytest.raises(ConfigError, match="nothing to undo"):
        await services.conversation.undo_last_turn(thread_id)
    assert texts(await services.conversation.restore_turn(thread_id)) == ["q1", "a1"]
    assert texts(await services.conversation.restore_turn(thread_id)) == ["q1", "a1", "q2", "a2"]
    with pytest.raises(ConfigError, match="no undone turn"):
        await services.conversation.restore_turn(thread_id)


async def test_restoring_an_inner_turn_restores_the_turns_above_it(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    before = await services.conversation.active_branch(thread_id)
    await services.conversation.undo_last_turn(thread_id)
    await services.conversation.undo_last_turn(thread_id)
    with pytest.raises(ConfigError, match="trash"):
        await services.conversation.switch_branch(thread_id, before[3].id)
    restored = await services.conversation.restore_turn(thread_id, before[3].id)
    assert texts(restored) == ["q1", "a1", "q2", "a2"]


async def test_undo_takes_the_turns_other_versions_along_and_restore_shows_the_one_shown(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    before = await services.conversation.active_branch(thread_id)
    request = RegenerateRequest(thread_id, before[3].id, preset=RegeneratePreset.RETRY)
    await answer(services, loopback, "zebra crossing", services.chat.regenerate(request))
    assert [h.message_id for h in await services.search.search("zebra")] != []
    await services.conversation.switch_branch(thread_id, before[3].id)  # back to a2
    await services.conversation.undo_last_turn(thread_id)
    # the other answer, hidden under the undone question, is not found any more
    assert await services.search.search("zebra") == []
    restored = await services.conversation.restore_turn(thread_id)
    assert texts(restored) == ["q1", "a1", "q2", "a2"]  # as shown when undone
    assert (restored[3].sibling_index, restored[3].sibling_count) == (0, 2)
    assert [h.message_id for h in await services.search.search("zebra")] != []


async def test_undoing_an_edited_first_question_shows_its_earlier_version(
    services, loopback, loop_provider
) -> None:
    first = await answer(
        services,
        loopback,
        "a1",
        services.chat.send(SendRequest("q1", provider=loop_provider, model="small")),
    )
    thread_id = first[-1].thread_id
    q1 = (await services.conversation.active_branch(thread_id))[0]
    await answer(services, loopback, "a1 v2", services.chat.edit(thread_id, q1.id, "q1 v2"))
    undone = await services.conversation.undo_last_turn(thread_id)
    assert texts(list(undone.branch)) == ["q1", "a1"]  # not an empty thread
    assert texts(await services.conversation.active_branch(thread_id)) == ["q1", "a1"]
    restored = await services.conversation.restore_turn(thread_id)
    assert texts(restored) == ["q1 v2", "a1 v2"]


async def test_tree_changes_are_refused_while_the_thread_answers(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    branch = await services.conversation.active_branch(thread_id)
    loopback.enqueue(CHAT, text_then_hang("busy"))
    run = asyncio.create_task(_collect(services.chat.send(SendRequest("q3", thread_id=thread_id))))
    await asyncio.to_thread(loopback.wait_for_requests, 3)
    with pytest.raises(ConfigError, match="still answering"):
        await services.conversation.undo_last_turn(thread_id)
    with pytest.raises(ConfigError, match="still answering"):
        await services.conversation.switch_branch(thread_id, branch[0].id)
    refused = [
        e async for e in services.chat.regenerate(RegenerateRequest(thread_id, branch[3].id))
    ]
    assert "still answering" in refused[-1].error["message"]
    services.chat.stop(thread_id)
    assert isinstance((await run)[-1], Stopped)


async def _collect(events) -> list[ChatEvent]:
    return [event async for event in events]


async def test_redirect_stops_the_answer_keeps_it_and_sends_the_new_text(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    loopback.enqueue(CHAT, text_then_hang("partial ", "answer"))
    loopback.enqueue(CHAT, openai_stream(["redirected"]))
    first: list[ChatEvent] = []

    async def consume() -> None:
        async for event in services.chat.send(SendRequest("write an essay", thread_id=thread_id)):
            first.append(event)

    task = asyncio.create_task(consume())
    deadline = time.monotonic() + 10
    while "".join(e.text for e in first if isinstance(e, TextDelta)) != "partial answer":
        assert time.monotonic() < deadline, first
        await asyncio.sleep(0.01)
    second = await _collect(services.chat.redirect(SendRequest("no, a haiku", thread_id=thread_id)))
    await task
    assert isinstance(first[-1], Stopped) and first[-1].text == "partial answer"
    assert isinstance(second[-1], Completed) and second[-1].text == "redirected"
    assert loopback.wait_for_disconnect(timeout=2.0)
    assert sent_messages(loopback)[-3:] == [
        ("user", "write an essay"),
        ("assistant", "partial answer"),
        ("user", "no, a haiku"),
    ]
    branch = await services.conversation.active_branch(thread_id)
    stopped, new_user = branch[-3], branch[-2]
    assert (stopped.role, stopped.status, stopped.text) == (
        MessageRole.ASSISTANT,
        MessageStatus.STOPPED,
        "partial answer",
    )
    assert new_user.parent_id == stopped.id and branch[-1].text == "redirected"


async def test_busy_input_in_a_new_chat_before_its_answer_keeps_the_first_question(
    services, loopback, loop_provider
) -> None:
    """Enter in a new chat whose first answer has not begun: nothing was
    written, so the first question goes with the new words, not away."""
    draft = new_id()
    loopback.enqueue(CHAT, raw_stream([b": keep-alive\n\n", Hang()]))
    loopback.enqueue(CHAT, openai_stream(["Both answered."]))
    request = SendRequest("What is WAL?", provider=loop_provider, model="m", new_thread_id=draft)
    first = asyncio.ensure_future(_collect(services.chat.send(request)))
    deadline = time.monotonic() + 10
    while len(loopback.requests) < 1:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    then = SendRequest("And checkpoints?", provider=loop_provider, model="m", new_thread_id=draft)
    second = await _collect(services.chat.redirect(then))
    assert isinstance((await first)[-1], Stopped)
    assert isinstance(second[-1], Completed) and second[-1].thread_id == draft
    assert sent_messages(loopback)[-1] == ("user", "What is WAL?\n\nAnd checkpoints?")
    assert texts(await services.conversation.active_branch(draft)) == [
        "What is WAL?\n\nAnd checkpoints?",
        "Both answered.",
    ]


async def test_redirect_with_nothing_running_is_a_plain_send(
    services, loopback, loop_provider
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    await answer(
        services, loopback, "a3", services.chat.redirect(SendRequest("q3", thread_id=thread_id))
    )
    assert texts(await services.conversation.active_branch(thread_id))[-2:] == ["q3", "a3"]
