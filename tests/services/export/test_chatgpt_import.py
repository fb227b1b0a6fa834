"""Importing ChatGPT's ``conversations.json`` (PRODUCT.md §9): branch trees
kept (skipped nodes re-parented), the active branch from ``current_node``,
odd content as readable placeholders, duplicates skipped on a second import (a newer export adds what is new:
``test_chatgpt_reimport.py``),
progress reported, and malformed files importing nothing."""

from __future__ import annotations

import json
import threading
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import InvalidImportError, StorageError
from mira_desktop.services.importers import ImportProgress, chatgpt
from mira_desktop.storage.import_repo import insert_imports

from ..seed import sql
from .chatgpt_fixture import Conversation, branching, odd, system_only
from .test_json_export import export_doc, thread_count


def write(tmp_path: Path, conversations: Any, name: str = "conversations.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(conversations, ensure_ascii=False), "utf-8")
    return path


def tree(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Messages by their first words, with parent text instead of ids."""
    by_id = {m["id"]: m for m in doc["messages"]}
    return {
        m["text"].split("\n")[0][:24]: {
            **m,
            "parent": by_id[m["parent_id"]]["text"].split("\n")[0][:24] if m["parent_id"] else None,
        }
        for m in doc["messages"]
    }


async def test_branches_skips_and_active_path(services: Services, tmp_path: Path) -> None:
    report = await services.imports.import_file(write(tmp_path, [branching().data]))
    assert report.format == "chatgpt" and report.skipped == []
    (thread,) = report.imported
    assert thread.title == "Branches 分支 🌳" and thread.source_ref == "conv-branching"
    doc = await export_doc(services, thread.id)
    nodes = tree(doc)
    parents = {text: node["parent"] for text, node in nodes.items()}
    assert parents == {
        "你好！Explain recursion.": None,  # system and hidden nodes skipped
        "Recursion is a function ": "你好！Explain recursion.",
        "Example?": "Recursion is a function ",
        "Factorial:": "Example?",
        "Second version: 递归。": "你好！Explain recursion.",
        "Draw it": "Second version: 递归。",
        "Here is a picture:": "Draw it",  # the thoughts node re-parented away
        "Explain recursion briefl": None,  # the edited question: a second root
        "```python": "Explain recursion briefl",  # Code Interpreter input, fenced
        "Output:": "```python",
        "The sum is 10. ✅": "Output:",
    }
    picture = nodes["Here is a picture:"]
    assert picture["text"] == (
        "Here is a picture:\n\n[Image not imported: file-service://file-XYZ, 1024×768]"
    )
    assert picture["thinking"] == "Plan\n\nThink about a tree picture."
    assert picture["on_active_branch"] and picture["model"] == "gpt-4o"
    active = [m["text"][:8] for m in doc["messages"] if m["on_active_branch"]]
    assert active == ["你好！Expla", "Second v", "Draw it", "Here is "]
    assert nodes["Second version: 递归。"]["model"] == "gpt-4o-mini"
    code = [m for m in doc["messages"] if m["text"].startswith("```python\nprint")]
    assert code[0]["role"] == "assistant"
    assert (
        nodes["Output:"]["role"] == "tool" and nodes["Output:"]["text"] == "Output:\n\n```\n10\n```"
    )
    assert nodes["你好！Explain recursion."]["created_at"] == "2024-11-30T07:00:10.000Z"
    meta = doc["thread"]
    assert meta["source"] == "import:chatgpt" and meta["source_ref"] == "conv-branching"
    assert meta["created_at"] == "2024-11-30T07:00:00.000Z"
    assert meta["updated_at"] == "2024-11-30T07:10:00.000Z" and meta["model"] == "gpt-4o"
    # versions in creation order: the original question first
    roots = [m["text"][:5] for m in doc["messages"] if m["parent_id"] is None]
    assert roots == ["你好！Ex", "Expla"]
    # the window sees the active branch
    branch = await services.threads.get_active_messages(thread.id)
    assert [m.text[:4] for m in branch] == ["你好！E", "Seco", "Draw", "Here"]


async def test_odd_content_becomes_placeholders(services: Services, tmp_path: Path) -> None:
    report = await services.imports.import_file(write(tmp_path, [odd().data]))
    (thread,) = report.imported
    assert thread.title == "Imported ChatGPT conversation" and thread.source_ref == "conv-odd"
    doc = await export_doc(services, thread.id)
    texts = [(m["role"], m["text"]) for m in doc["messages"]]
    assert texts == [
        ("user", "Hello\u200b world 🌍"),
        ("assistant", "Answer after odd nodes"),
        ("user", "spoken words\n\n[Audio not imported: sediment://audio1]"),
        ("assistant", "[sonic_webpage content not imported]"),
        ("tool", "> A quoted line\n\n— Source https://example.com"),
        ("assistant", "Final 最终"),
    ]
    parents = [m["parent_id"] for m in doc["messages"]]
    assert parents == [None] + [m["id"] for m in doc["messages"][:-1]]  # stayed connected
    assert doc["thread"]["active_leaf_id"] == doc["messages"][-1]["id"]  # no current_node
    assert doc["messages"][-1]["created_at"] == "2024-11-30T07:00:00.000Z"  # conversation's time


async def test_second_import_skips_duplicates(services: Services, tmp_path: Path) -> None:
    data = [branching().data, odd().data, system_only().data]
    first = await services.imports.import_file(write(tmp_path, data))
    assert len(first.imported) == 2
    assert [(s.title, s.reason) for s in first.skipped] == [
        ("Nothing to see", "no messages to import")
    ]
    again = await services.imports.import_file(write(tmp_path, data), format="chatgpt")
    assert again.imported == []
    assert [(s.source_ref, s.reason) for s in again.skipped] == [
        ("conv-empty", "no messages to import"),
        ("conv-branching", "already imported, nothing new"),
        ("conv-odd", "already imported, nothing new"),
    ]
    assert await thread_count(services) == 2
    twice = [branching().data, branching().data]
    twice[0]["id"] = twice[1]["id"] = "conv-new"
    inside = await services.imports.import_file(write(tmp_path, twice))
    assert len(inside.imported) == 1
    assert inside.skipped[0].reason == "already imported, nothing new"
    # a conversation without an id is recognised by a hash of its title and time
    c = Conversation(None, "No id")
    c.say("u", "root", "user", "hi")
    for _ in range(2):
        result = await services.imports.import_file(write(tmp_path, [c.data]))
    assert result.imported == [] and result.skipped[0].source_ref.startswith("sha1:")


async def test_progress_is_reported_on_the_loop_thread(services: Services, tmp_path: Path) -> None:
    conversations = []
    for n in range(30):
        c = Conversation(f"c{n}", f"Chat {n}")
        c.say("u", "root", "user", f"question {n}")
        c.say("a", "u", "assistant", f"answer {n}")
        conversations.append(c.current("a").data)
    events: list[ImportProgress] = []
    threads: set[int] = set()

    def seen(event: ImportProgress) -> None:
        events.append(event)
        threads.add(threading.get_ident())

    report = await services.imports.import_file(write(tmp_path, conversations), progress=seen)
    assert len(report.imported) == 30
    assert threads == {threading.get_ident()}
    checking = [(e.done, e.total) for e in events if e.stage == "checking"]
    writing = [(e.done, e.total) for e in events if e.stage == "writing"]
    assert checking == [(n, 30) for n in range(1, 31)] and writing == checking
    assert events.index(next(e for e in events if e.stage == "writing")) == 30


async def test_chatgpt_export_zip(services: Services, tmp_path: Path) -> None:
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("chat.html", "<html></html>")
        z.writestr("conversations.json", json.dumps([branching().data]))
    report = await services.imports.import_file(archive)
    assert report.format == "chatgpt" and len(report.imported) == 1


def _malformed() -> list[tuple[str, Any, str]]:
    good = branching().data
    node_not_object = branching().data
    node_not_object["mapping"]["u2"] = "oops"
    message_not_object = branching().data
    message_not_object["mapping"]["u2"]["message"] = ["oops"]
    return [
        ("top level", "just a string", "neither a Mira export nor a ChatGPT export"),
        ("number list", [good, 5], "Conversation 2 is not an object"),
        ("mapping list", [good, {"title": "Bad one", "mapping": []}], "Conversation 2 (“Bad one”)"),
        ("no mapping", [good, {"title": "x"}], "has no “mapping” object"),
        ("node", [good, node_not_object], "node u2 is not an object"),
        ("message", [good, message_not_object], "the message of node u2 is not an object"),
    ]


@pytest.mark.parametrize(
    ("case", "data", "message"), _malformed(), ids=[c[0] for c in _malformed()]
)
async def test_malformed_input_imports_nothing(
    services: Services, tmp_path: Path, case: str, data: Any, message: str
) -> None:
    with pytest.raises(InvalidImportError) as caught:
        await services.imports.import_file(write(tmp_path, data))
    assert message in str(caught.value)
    assert "nothing was imported" in caught.value.hint
    assert await thread_count(services) == 0
    assert (await sql(services, "SELECT COUNT(*) FROM messages"))[0][0] == 0


def _looping(title: str, loop: str) -> dict[str, Any]:
    """A question and its answer under a root whose parent is ``loop``."""
    c = Conversation(f"conv-{title}", title)
    c.say("u1", "root", "user", "Hi")
    c.say("a1", "u1", "assistant", "Hello")
    c.mapping["root"]["parent"] = loop
    return c.current("a1").data


async def test_a_conversation_whose_parents_loop_is_skipped_saying_so(
    services: Services, tmp_path: Path
) -> None:
    data = [_looping("self", "root"), branching().data, _looping("circle", "a1")]
    report = await services.imports.import_file(write(tmp_path, data))
    assert [t.title for t in report.imported] == ["Branches 分支 🌳"]
    assert [(s.title, s.reason) for s in report.skipped] == [
        ("self", "its messages' parents form a loop"),
        ("circle", "its messages' parents form a loop"),
    ]


async def test_a_failure_while_writing_rolls_everything_back(
    services: Services, tmp_path: Path
) -> None:
    """Storage writes the whole import in one transaction: a failure on the last
    thread leaves none of the earlier ones."""
    first, second = branching().data, branching().data
    second["id"] = "conv-second"
    threads, _ = chatgpt.parse_conversations([first, second])
    # sabotage: a status the database refuses (CHECK constraint) in the last thread
    broken = replace(threads[1].messages[-1], status="bogus")
    threads[1] = replace(threads[1], messages=(*threads[1].messages[:-1], broken))
    with pytest.raises(StorageError, match="CHECK constraint"):
        await services.store.worker.run(insert_imports, threads, merge_known=True)
    assert await thread_count(services) == 0
    assert (await sql(services, "SELECT COUNT(*) FROM messages"))[0][0] == 0
