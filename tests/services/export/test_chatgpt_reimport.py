"""Importing a newer ChatGPT export of conversations imported before (people
do this while moving over): what is new in a conversation that went on —
more turns, a regenerated answer, an edited question — is added to the
thread already here, under the right parents; nothing is duplicated, the
user's own changes in Mira stay, and a conversation with nothing new is left
untouched. Real files, a real library in a temp folder."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import StorageError
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.core.models import Message, MessageRole
from mira_desktop.services.importers import ImportReport, chatgpt
from mira_desktop.storage.import_repo import insert_imports
from tests.support.documents import make_image

from ..seed import sql
from .chatgpt_fixture import Conversation, branching, went_on
from .test_chatgpt_pictures import picture
from .test_json_export import export_doc, thread_count

NOTHING_NEW = "already imported, nothing new"


async def import_json(services: Services, tmp_path: Path, *conversations: Any) -> ImportReport:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([c.data for c in conversations], ensure_ascii=False), "utf-8")
    return await services.imports.import_file(path)


def parents(doc: dict[str, Any]) -> dict[str, str | None]:
    """Each message's text by its parent's text (texts are unique here)."""
    text = {m["id"]: m["text"] for m in doc["messages"]}
    return {m["text"]: text.get(m["parent_id"]) for m in doc["messages"]}


def active_texts(doc: dict[str, Any]) -> list[str]:
    return [m["text"] for m in doc["messages"] if m["on_active_branch"]]


async def message_count(services: Services) -> int:
    return (await sql(services, "SELECT COUNT(*) FROM messages"))[0][0]


async def test_a_newer_export_adds_the_new_turns_under_their_parents(
    services: Services, tmp_path: Path
) -> None:
    (first,) = (await import_json(services, tmp_path, branching())).imported
    assert first.message_count == 11

    again = await import_json(services, tmp_path, went_on())
    assert await thread_count(services) == 1
    assert await message_count(services) == 13  # the two new turns, nothing twice
    doc = await export_doc(services, first.id)
    found = parents(doc)
    assert found["And a bigger one?"] == "Here is a picture:\n\n" + (
        "[Image not imported: file-service://file-XYZ, 1024×768]"
    )
    assert found["Here is a bigger one."] == "And a bigger one?"
    assert active_texts(doc)[-2:] == ["And a bigger one?", "Here is a bigger one."]
    assert again.imported == [] and again.skipped == []
    assert [(t.id, t.title, t.new_messages, t.source_ref) for t in again.updated] == [
        (first.id, "Branches 分支 🌳", 2, "conv-branching")
    ]
    assert again.to_dict()["updated"] == [
        {"id": first.id, "title": "Branches 分支 🌳", "messages": 2, "source_ref": "conv-branching"}
    ]
    # the conversation went on: its last activity is the newer export's
    assert doc["thread"]["updated_at"] == "2024-11-30T08:00:00.000Z"
    branch = await services.threads.get_active_messages(first.id)
    assert [m.text for m in branch][-1] == "Here is a bigger one."


async def test_a_new_branch_from_an_edited_question_or_a_regenerated_answer(
    services: Services, tmp_path: Path
) -> None:
    (first,) = (await import_json(services, tmp_path, branching())).imported
    c = branching()
    c.say("a2b", "u2", "assistant", "Another example: 斐波那契", at=50)  # regenerated
    c.say("u3b", "a1b", "user", "Draw it in colour", at=51)  # "Draw it", edited
    c.say("a3b", "u3b", "assistant", "A colourful tree.", at=52)
    c.say("u1c", "ctx", "user", "What is recursion? (edited again)", at=53)  # a new first question
    c.current("a3b")

    report = await import_json(services, tmp_path, c)
    assert [(t.id, t.new_messages) for t in report.updated] == [(first.id, 4)]
    doc = await export_doc(services, first.id)
    found = parents(doc)
    assert found["Another example: 斐波那契"] == "Example?"
    assert found["Draw it in colour"] == "Second version: 递归。"
    assert found["A colourful tree."] == "Draw it in colour"
    assert found["What is recursion? (edited again)"] is None  # a third version of the root
    assert len(doc["messages"]) == 15
    # the user had not chosen another branch here: ChatGPT's current one is shown
    assert active_texts(doc) == [
        "你好！Explain recursion.",
        "Second version: 递归。",
        "Draw it in colour",
        "A colourful tree.",
    ]
    # the new versions come after the old ones
    siblings = await services.store.siblings(first.id, _id(doc, "A colourful tree."))
    assert [m.text for m in siblings] == ["A colourful tree."]
    versions = await services.store.siblings(first.id, _id(doc, "Draw it in colour"))
    assert [m.text for m in versions] == ["Draw it", "Draw it in colour"]


def _id(doc: dict[str, Any], text: str) -> str:
    return next(m["id"] for m in doc["messages"] if m["text"] == text)


async def _total_changes(services: Services) -> int:
    return await services.store.worker.run(lambda db: db.conn.total_changes)


async def test_nothing_new_leaves_the_thread_untouched(services: Services, tmp_path: Path) -> None:
    other = Conversation("conv-other", "Other")
    other.say("u", "root", "user", "hi", at=1)
    other.say("a", "u", "assistant", "hello", at=2)
    other.current("a")
    await import_json(services, tmp_path, branching(), other)
    before = await export_doc(services, (await sql(services, "SELECT id FROM threads"))[0][0])
    changes = await _total_changes(services)

    again = await import_json(services, tmp_path, branching(), other)
    assert again.imported == [] and again.updated == []
    assert [(s.source_ref, s.reason) for s in again.skipped] == [
        ("conv-branching", NOTHING_NEW),
        ("conv-other", NOTHING_NEW),
    ]
    assert await _total_changes(services) == changes  # not one row written
    after = await export_doc(services, before["thread"]["id"])
    assert {**after, "exported_at": None} == {**before, "exported_at": None}


async def test_the_users_title_and_chosen_branch_stay(services: Services, tmp_path: Path) -> None:
    (first,) = (await import_json(services, tmp_path, branching())).imported
    await services.threads.rename(first.id, "Recursion notes")
    doc = await export_doc(services, first.id)
    chosen = await services.store.switch_branch(first.id, _id(doc, "The sum is 10. ✅"))

    report = await import_json(services, tmp_path, went_on())
    assert [(t.title, t.new_messages) for t in report.updated] == [("Recursion notes", 2)]
    doc = await export_doc(services, first.id)
    assert doc["thread"]["title"] == "Recursion notes"
    assert doc["thread"]["active_leaf_id"] == chosen  # the branch the user chose
    assert parents(doc)["Here is a bigger one."] == "And a bigger one?"


async def test_a_thread_the_user_continued_in_mira_keeps_their_turns(
    services: Services, tmp_path: Path
) -> None:
    (first,) = (await import_json(services, tmp_path, branching())).imported
    doc = await export_doc(services, first.id)
    leaf = doc["thread"]["active_leaf_id"]
    at = utc_now()
    question = Message(new_id(), first.id, MessageRole.USER, "Asked in Mira", at, at, leaf)
    answer = Message(new_id(), first.id, MessageRole.ASSISTANT, "Answered in Mira", at, at)
    await services.store.add_message(question)
    await services.store.add_message(replace(answer, parent_id=question.id))

    report = await import_json(services, tmp_path, went_on())
    assert [t.new_messages for t in report.updated] == [2]
    doc = await export_doc(services, first.id)
    found = parents(doc)
    assert found["Asked in Mira"] == found["And a bigger one?"]  # two versions side by side
    assert found["Answered in Mira"] == "Asked in Mira"
    assert found["Here is a bigger one."] == "And a bigger one?"
    assert active_texts(doc)[-2:] == ["Asked in Mira", "Answered in Mira"]  # still theirs
    assert len(doc["messages"]) == 15


async def _marked(services: Services) -> list[str]:
    """Texts of the messages marked as the one the import made current."""
    found = await sql(
        services,
        "SELECT text FROM messages WHERE json_extract(data_json, '$.source_current') ORDER BY seq",
    )
    return [row[0] for row in found]


async def test_the_current_message_is_marked_once(services: Services, tmp_path: Path) -> None:
    """The mark that tells "the user left the leaf where the import put it"
    moves with the leaf, and stays put when the user chose another branch."""
    (first,) = (await import_json(services, tmp_path, branching())).imported
    picture = "Here is a picture:\n\n[Image not imported: file-service://file-XYZ, 1024×768]"
    assert await _marked(services) == [picture]
    await import_json(services, tmp_path, went_on())
    assert await _marked(services) == ["Here is a bigger one."]
    doc = await export_doc(services, first.id)
    await services.store.switch_branch(first.id, _id(doc, "The sum is 10. ✅"))
    c = went_on()
    c.say("u5", "a5", "user", "Thanks", at=42)
    await import_json(services, tmp_path, c.current("u5"))
    assert await _marked(services) == ["Here is a bigger one."]
    doc = await export_doc(services, first.id)
    assert active_texts(doc)[-1] == "The sum is 10. ✅"


async def test_a_thread_imported_before_node_ids_were_kept(
    services: Services, tmp_path: Path
) -> None:
    """Threads imported before the node ids were kept are matched by parent,
    role, time and text (or, the text changed, by parent, role and time when
    only one message has them)."""
    (first,) = (await import_json(services, tmp_path, branching())).imported

    def as_before(db: Any) -> None:  # what an import wrote then: no data
        db.conn.execute("UPDATE messages SET data_json = NULL")
        # the picture was found in the ZIP then: its placeholder left the text
        db.conn.execute(
            "UPDATE messages SET text = 'Here is a picture:' WHERE text LIKE 'Here is a%'"
        )

    await services.store.worker.run(as_before)
    report = await import_json(services, tmp_path, went_on())
    assert [(t.id, t.new_messages) for t in report.updated] == [(first.id, 2)]
    doc = await export_doc(services, first.id)
    found = parents(doc)
    assert found["And a bigger one?"] == "Here is a picture:"
    assert len(doc["messages"]) == 13
    # no mark: the leaf moves because the user's leaf was on the way to ChatGPT's
    assert active_texts(doc)[-3:] == [
        "Here is a picture:",
        "And a bigger one?",
        "Here is a bigger one.",
    ]
    again = await import_json(services, tmp_path, went_on())
    assert [s.reason for s in again.skipped] == [NOTHING_NEW] and again.updated == []
    assert await message_count(services) == 13


async def test_an_older_and_a_newer_copy_in_one_file(services: Services, tmp_path: Path) -> None:
    report = await import_json(services, tmp_path, branching(), went_on())
    (thread,) = report.imported
    assert [(t.id, t.new_messages) for t in report.updated] == [(thread.id, 2)]
    assert await thread_count(services) == 1 and await message_count(services) == 13


async def test_a_failure_after_a_merge_rolls_the_merge_back(
    services: Services, tmp_path: Path
) -> None:
    (first,) = (await import_json(services, tmp_path, branching())).imported
    before = await export_doc(services, first.id)
    other = Conversation("conv-other", "Other")
    other.say("u", "root", "user", "hi", at=1)
    threads, _ = chatgpt.parse_conversations([went_on().data, other.current("u").data])
    broken = replace(threads[1].messages[-1], status="bogus")  # the database refuses it
    threads[1] = replace(threads[1], messages=(broken,))
    with pytest.raises(StorageError, match="CHECK constraint"):
        await services.store.worker.run(insert_imports, threads, merge_known=True)
    assert await message_count(services) == 11 and await thread_count(services) == 1
    after = await export_doc(services, first.id)
    assert {**after, "exported_at": None} == {**before, "exported_at": None}


async def test_new_messages_of_a_chatgpt_zip_bring_their_pictures(
    services: Services, tmp_path: Path
) -> None:
    """The first import had no pictures (a bare conversations.json); the ZIP
    of the newer export has them: old messages are not added again although
    their text lost its placeholders now, and a new one comes with its
    picture. An answer's second picture (a message of its own) is known too."""
    c = Conversation("conv-pics", "Cat pictures")
    c.say(
        "u1",
        "root",
        "user",
        picture("file-service://file-Cat1"),
        "Breed?",
        at=1,
        content_type="multimodal_text",
    )
    c.say(
        "a1",
        "u1",
        "assistant",
        picture("file-service://file-Cat1"),
        picture("file-service://file-Cat2"),
        at=2,
        content_type="multimodal_text",
    )
    (first,) = (await import_json(services, tmp_path, c.current("a1"))).imported
    assert first.message_count == 3
    c.say(
        "u2",
        "a1",
        "user",
        picture("file-service://file-Cat2"),
        "And this one?",
        at=3,
        content_type="multimodal_text",
    )
    c.current("u2")
    target = tmp_path / "chatgpt-export.zip"
    cat = make_image(tmp_path / "cat.png", "PNG").read_bytes()
    photo = make_image(tmp_path / "photo.jpg", "JPEG").read_bytes()
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr("conversations.json", json.dumps([c.data]))
        archive.writestr("file-Cat1-a.png", cat)
        archive.writestr("file-Cat2-b.jpg", photo)

    report = await services.imports.import_file(target)
    assert [(t.id, t.new_messages) for t in report.updated] == [(first.id, 1)]
    assert await message_count(services) == 4
    branch = await services.conversation.active_branch(first.id)
    assert [m.text for m in branch] == [
        "[Image not imported: file-service://file-Cat1, 640×480]\n\nBreed?",
        "[Image not imported: file-service://file-Cat1, 640×480]",
        "[Image not imported: file-service://file-Cat2, 640×480]",
        "And this one?",
    ]
    [new] = (await services.media.attachments([branch[-1].id]))[branch[-1].id]
    assert services.media.path(new.sha256).read_bytes() == photo


async def test_what_went_on_after_an_undone_turn_goes_to_the_trash_with_it(
    services: Services, tmp_path: Path
) -> None:
    (first,) = (await import_json(services, tmp_path, branching())).imported
    trashed, leaf = await services.store.undo_turn(first.id)  # "Draw it" and its answer
    report = await import_json(services, tmp_path, went_on())
    assert [t.new_messages for t in report.updated] == [2]
    doc = await export_doc(services, first.id)
    assert doc["thread"]["active_leaf_id"] == leaf  # not moved into the trash
    stamps = await sql(
        services, "SELECT text, deleted_at FROM messages WHERE deleted_at IS NOT NULL"
    )
    assert len({stamp for _, stamp in stamps}) == 1  # one turn: restored together
    assert {text for text, _ in stamps} >= {"And a bigger one?", "Here is a bigger one."}
    await services.store.restore_turn(first.id, trashed[0])
    doc = await export_doc(services, first.id)
    assert not any(m["trashed"] for m in doc["messages"])
