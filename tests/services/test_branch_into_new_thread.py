""" "Branch into a new chat" (PRODUCT.md §5) against the loopback server and a
real SQLite file: the path down to a message becomes a thread of its own —
only that path, with its versions' references, attachments (one more
reference each), settings and search entries — the original untouched; the
copy answers on from there; a message still being written is refused;
purging either thread leaves the other whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError
from mira_desktop.core.events import Completed
from mira_desktop.services.chat import SendRequest
from mira_desktop.services.regenerate import RegenerateRequest
from tests.support.loopback import LoopbackServer

from .conftest import CHAT, text_then_hang
from .test_conversation_tree import answer, sent_messages, texts, two_turns


async def test_the_path_to_an_answer_becomes_a_new_thread_and_answers_on(
    services: Services, loopback: LoopbackServer, loop_provider: str, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("plum jam: 300 jars\n", "utf-8")
    attached = (await services.attachments.prepare(notes),)
    first = await answer(
        services,
        loopback,
        "a1",
        services.chat.send(
            SendRequest("q1", provider=loop_provider, model="small", attachments=attached)
        ),
    )
    thread_id = first[-1].thread_id
    await answer(
        services, loopback, "a2", services.chat.send(SendRequest("q2", thread_id=thread_id))
    )
    a1 = (await services.conversation.active_branch(thread_id))[1]
    # a second version of a1, so the copy has a reference to remap
    await answer(
        services, loopback, "a1 v2", services.chat.regenerate(RegenerateRequest(thread_id, a1.id))
    )
    original = await services.conversation.active_branch(thread_id)
    assert texts(original) == ["q1", "a1 v2"]
    await services.threads.rename(thread_id, "Jam")

    copy = await services.conversation.branch_into_new_thread(thread_id, original[1].id)

    assert copy.id != thread_id and copy.title == "Branch · Jam"
    assert copy.source == "branch"
    exported = await services.exports.thread_document(copy.id)
    assert exported["thread"]["source_ref"] == thread_id  # where it was branched from
    assert (copy.provider_id, copy.model, copy.workspace_id) == (
        (await services.threads.get_thread(thread_id)).provider_id,
        "small",
        (await services.threads.get_thread(thread_id)).workspace_id,
    )
    branch = await services.conversation.active_branch(copy.id)
    assert texts(branch) == ["q1", "a1 v2"]  # only the path, not a1 or q2 → a2
    assert [m.sibling_count for m in branch] == [1, 1]
    assert not {m.id for m in branch} & {m.id for m in original}
    assert branch[1].parent_id == branch[0].id
    assert branch[1].data == original[1].data  # a1 was not copied: its id stays as it was
    assert (branch[1].data or {})["regenerated_from"] == a1.id
    assert (branch[1].model, branch[1].created_at) == (original[1].model, original[1].created_at)
    # the attachment came along, one more reference to the same file
    files = await services.media.attachments([branch[0].id])
    [file] = files[branch[0].id]
    assert file.name == "notes.txt"
    assert await services.media.ref_count(file.sha256) == 2
    # the original is exactly as it was
    assert texts(await services.conversation.active_branch(thread_id)) == ["q1", "a1 v2"]
    assert len(await services.conversation.siblings(thread_id, a1.id)) == 2
    # search finds the copy's messages too
    hits = await services.search.search("a1 v2")
    assert {h.thread_id for h in hits} >= {thread_id, copy.id}

    # the copy answers on from where it was branched
    events = await answer(
        services, loopback, "a3", services.chat.send(SendRequest("q3", thread_id=copy.id))
    )
    assert isinstance(events[-1], Completed)
    assert sent_messages(loopback) == [
        ("user", "q1\n\n[Attached earlier: notes.txt]"),  # the file came along
        ("assistant", "a1 v2"),
        ("user", "q3"),
    ]
    assert texts(await services.conversation.active_branch(thread_id)) == ["q1", "a1 v2"]

    # purging the original leaves the copy and its file whole
    await services.history.trash(thread_id)
    await services.history.purge(thread_id)
    assert await services.media.ref_count(file.sha256) == 1
    assert services.media.path(file.sha256).read_bytes() == b"plum jam: 300 jars\n"
    report = await services.doctor.check()
    assert report.healthy, report


async def test_a_branch_from_a_question_ends_with_it_and_a_title_can_be_given(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    q2 = (await services.conversation.active_branch(thread_id))[2]
    copy = await services.conversation.branch_into_new_thread(thread_id, q2.id, "  另一条路  ")
    assert copy.title == "另一条路"
    assert texts(await services.conversation.active_branch(copy.id)) == ["q1", "a1", "q2"]


async def test_a_message_still_being_written_or_trashed_is_not_branched(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    thread_id = await two_turns(services, loopback, loop_provider)
    before = await services.threads.count_threads()
    undone = await services.conversation.undo_last_turn(thread_id)
    with pytest.raises(ConfigError, match="in the trash"):
        await services.conversation.branch_into_new_thread(thread_id, undone.message_ids[-1])
    await services.conversation.restore_turn(thread_id)

    loopback.enqueue(CHAT, text_then_hang("partial"))
    events = services.chat.send(SendRequest("q3", thread_id=thread_id))
    async for event in events:
        if getattr(event, "text", "") == "partial":
            break
    streaming = (await services.conversation.active_branch(thread_id))[-1]
    with pytest.raises(ConfigError, match="still being written"):
        await services.conversation.branch_into_new_thread(thread_id, streaming.id)
    services.chat.stop(thread_id)
    await events.aclose()
    await asyncio.sleep(0)
    assert await services.threads.count_threads() == before
