"""JSON export and Mira import (PRODUCT.md §9): the document matches its
published JSON Schema, holds the whole tree (branches, trashed messages
flagged), round-trips through import, keeps ids when free and remaps them
consistently when taken, and a bad file imports nothing."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.errors import InvalidImportError
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole
from mira_desktop.paths import resource_path
from mira_desktop.services.export.schema_check import Validator, load_schema

from ..seed import sql
from .sample import SECRET_VALUES, build_sample

SCHEMA = resource_path("export", "mira-thread.schema.json")


@pytest.fixture
def validator() -> Validator:
    return Validator(load_schema(SCHEMA))


async def export_doc(services: Services, thread_id: str) -> dict[str, Any]:
    return json.loads(await services.exports.thread_json(thread_id))


async def thread_count(services: Services) -> int:
    return (await sql(services, "SELECT COUNT(*) FROM threads"))[0][0]


async def import_doc(services: Services, doc: Any, tmp_path: Path, name: str = "t.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    return await services.imports.import_file(path)


def normalised(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with ids renamed by position, export time and the thread's
    origin (``source``/``source_ref``, which an import sets by contract) removed."""
    doc = copy.deepcopy(doc)
    names = {m["id"]: f"m{i}" for i, m in enumerate(doc["messages"])}
    names[doc["thread"]["id"]] = "thread"
    text = json.dumps(doc)
    for old, new in names.items():
        text = text.replace(old, new)
    doc = json.loads(text)
    del doc["exported_at"]
    for key in ("source", "source_ref"):
        del doc["thread"][key]
    return doc


def test_the_schema_is_2020_12_and_fully_understood(validator: Validator) -> None:
    schema = load_schema(SCHEMA)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["format"] == {"const": "mira.thread"}
    assert validator.errors({}) == [
        f"$: missing required key {k!r}"
        for k in ("format", "version", "exported_at", "app", "thread", "messages")
    ]


async def test_export_matches_the_schema_and_holds_the_whole_tree(
    services: Services, validator: Validator
) -> None:
    sample = await build_sample(services)
    doc = await export_doc(services, sample.thread_id)
    assert validator.errors(doc) == []
    assert doc["format"] == "mira.thread" and doc["version"] == 1
    assert doc["app"] == {"name": "Mira Desktop", "version": "0.1.0"}
    by_id = {m["id"]: m for m in doc["messages"]}
    assert list(by_id) == [
        sample.u1,
        sample.a1,
        sample.a1b,
        sample.u1b,
        sample.a3,
        sample.u2,
        sample.a2,
    ]
    assert by_id[sample.u2]["trashed"] and by_id[sample.a2]["trashed"]
    assert by_id[sample.u2]["deleted_at"] is not None
    assert not by_id[sample.a1]["trashed"] and by_id[sample.a1]["on_active_branch"]
    assert not by_id[sample.a3]["on_active_branch"]
    assert (
        by_id[sample.a1b]["status"] == "failed"
        and by_id[sample.a1b]["error"]["code"] == "authentication"
    )
    assert by_id[sample.a1]["usage"] == {
        "prompt_tokens": 120,
        "completion_tokens": 80,
        "reasoning_tokens": 30,
        "counts_estimated": False,
        "reasoning_estimated": True,
        "estimated": True,
    }
    assert by_id[sample.a1]["thinking_ms"] == 12300
    assert [c["name"] for c in by_id[sample.a1]["tool_calls"]] == ["web_fetch", "bash"]
    assert by_id[sample.u1]["attachments"] == [
        {
            "name": "notes.txt",
            "mime": "text/plain",
            "sha256": sample.attachment_sha,
            "size": 18,
            "kind": "file",
            "available": True,
        }
    ]
    thread = doc["thread"]
    assert thread["active_leaf_id"] == sample.a1 and thread["workspace"] == {"name": "Mira BASE"}
    assert thread["title"] == "列表推导式 & <tables>" and thread["source"] == "desktop"
    assert doc["diagnostics"] == {"message_count": 7, "trashed_count": 2, "branch_count": 3}
    text = json.dumps(doc)
    for value in SECRET_VALUES:
        assert value not in text


async def test_round_trip_in_the_same_library(
    services: Services, tmp_path: Path, validator: Validator
) -> None:
    sample = await build_sample(services)
    first = await export_doc(services, sample.thread_id)
    report = await import_doc(services, first, tmp_path)
    assert report.format == "mira" and report.skipped == []
    (imported,) = report.imported
    assert imported.id != sample.thread_id  # taken here: a new id
    assert imported.original_id == sample.thread_id and imported.message_count == 7
    second = await export_doc(services, imported.id)
    assert validator.errors(second) == []
    assert second["thread"]["source"] == "import:mira"
    assert second["thread"]["source_ref"] == sample.thread_id
    new_ids = [m["id"] for m in second["messages"]]
    assert not set(new_ids) & {m["id"] for m in first["messages"]}  # remapped consistently
    a1b = second["messages"][2]
    assert a1b["data"]["regenerated_from"] == new_ids[1]  # references follow the remap
    assert normalised(second) == normalised(first)
    # and the tree services see the same shape
    branch = await services.threads.get_active_messages(imported.id)
    assert [m.text[:8] for m in branch] == [m["text"][:8] for m in first["messages"][:2]]


async def test_round_trip_into_another_library_keeps_ids(
    services: Services, tmp_path: Path
) -> None:
    sample = await build_sample(services)
    first = await export_doc(services, sample.thread_id)
    other = build_services(tmp_path / "other-library")
    try:
        report = await import_doc(other, first, tmp_path)
        (imported,) = report.imported
        assert imported.id == sample.thread_id  # free there: kept
        second = await export_doc(other, imported.id)
        assert [m["id"] for m in second["messages"]] == [m["id"] for m in first["messages"]]
        attachment = second["messages"][0]["attachments"][0]
        assert attachment["available"] is False  # the bytes stayed behind
        attachment["available"] = True
        assert normalised(second) == normalised(first)
        # export → import → export from there → import back home equals too
        third = await import_doc(services, second, tmp_path, "again.json")
        home = await export_doc(services, third.imported[0].id)
        assert home["messages"][0]["attachments"][0]["available"] is True  # known here
        assert normalised(home) == normalised(first)
    finally:
        await other.aclose()


async def test_workspace_by_name_is_found_or_created(services: Services, tmp_path: Path) -> None:
    sample = await build_sample(services)
    doc = await export_doc(services, sample.thread_id)
    doc["thread"]["workspace"]["name"] = "Research 研究"
    doc["thread"]["pinned"] = True
    report = await import_doc(services, doc, tmp_path)
    again = await import_doc(services, doc, tmp_path)
    names = await sql(
        services,
        "SELECT w.name, t.pinned, t.source FROM threads t JOIN workspaces w ON w.id = t.workspace_id"
        " WHERE t.id IN (?, ?)",
        report.imported[0].id,
        again.imported[0].id,
    )
    assert names == [("Research 研究", 1, "import:mira")] * 2
    assert len(await services.workspaces.list_workspaces()) == 2


def _bad_docs(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any] | Any, str]]:
    def change(fn: Any) -> dict[str, Any]:
        bad = copy.deepcopy(doc)
        fn(bad)
        return bad

    m = doc["messages"]
    return [
        ("no messages", change(lambda d: d.pop("messages")), "missing required key 'messages'"),
        (
            "bad role",
            change(lambda d: d["messages"][1].update(role="wizard")),
            "$.messages[1].role",
        ),
        ("bad version type", change(lambda d: d.update(version="1")), "$.version"),
        ("newer version", change(lambda d: d.update(version=2)), "newer Mira"),
        ("bad time", change(lambda d: d["messages"][0].update(created_at=5)), "created_at"),
        (
            "bad usage",
            change(lambda d: d["messages"][1].update(usage={"prompt_tokens": -1})),
            "usage",
        ),
        (
            "unknown parent",
            change(lambda d: d["messages"][1].update(parent_id="nope")),
            "not in the file",
        ),
        (
            "cycle",
            change(lambda d: d["messages"][0].update(parent_id=m[1]["id"])),
            "cycle",
        ),
        (
            "duplicate id",
            change(lambda d: d["messages"][2].update(id=m[1]["id"])),
            "appears twice",
        ),
        (
            "missing active leaf",
            change(lambda d: d["thread"].update(active_leaf_id="gone")),
            "active message gone",
        ),
        ("not a thread", {"format": "other.thing"}, "Unknown export format"),
        ("neither", {"hello": "world"}, "neither a Mira export nor a ChatGPT export"),
    ]


async def test_a_bad_document_imports_nothing(services: Services, tmp_path: Path) -> None:
    sample = await build_sample(services)
    good = await export_doc(services, sample.thread_id)
    before = await thread_count(services)
    for case, doc, message in _bad_docs(good):
        with pytest.raises(InvalidImportError) as caught:
            await import_doc(services, doc, tmp_path)
        assert message in str(caught.value), case
        assert caught.value.hint, case
    # one bad thread in a list of two: the good one is not imported either
    bad = _bad_docs(good)[6][1]
    with pytest.raises(InvalidImportError, match="Thread 2 of the file"):
        await import_doc(services, [good, bad], tmp_path)
    assert await thread_count(services) == before


async def test_unreadable_files_are_clear_errors(services: Services, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "mira.thread",\n "version": 1,,}')
    with pytest.raises(InvalidImportError, match=r"not valid JSON \(line 2, column 15"):
        await services.imports.import_file(broken)
    with pytest.raises(InvalidImportError, match="Cannot read"):
        await services.imports.import_file(tmp_path / "missing.json")
    binary = tmp_path / "x.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InvalidImportError, match="not UTF-8"):
        await services.imports.import_file(binary)
    sample = await build_sample(services)
    doc = tmp_path / "doc.json"
    doc.write_text(await services.exports.thread_json(sample.thread_id))
    with pytest.raises(InvalidImportError, match="is a mira export, not a chatgpt export"):
        await services.imports.import_file(doc, format="chatgpt")


async def test_a_zip_of_json_exports_imports_every_thread(
    services: Services, tmp_path: Path
) -> None:
    one = await build_sample(services, "one")
    two = await build_sample(services, "two")
    target = tmp_path / "batch.zip"
    result = await services.exports.export_zip([one.thread_id, two.thread_id], target, inner="json")
    assert result.path == target
    report = await services.imports.import_file(target)
    assert report.format == "mira" and sorted(t.title for t in report.imported) == ["one", "two"]


async def test_an_answer_exported_while_streaming_comes_back_stopped(
    services: Services, tmp_path: Path
) -> None:
    """Nobody writes it any more after an import: it is shown as stopped
    (not "still being written"), and can be branched like one."""
    sample = await build_sample(services)
    doc = await export_doc(services, sample.thread_id)
    answer = next(m for m in doc["messages"] if m["id"] == sample.a1)
    answer["status"] = "streaming"
    report = await import_doc(services, doc, tmp_path)
    (imported,) = report.imported
    again = await export_doc(services, imported.id)
    statuses = {m["text"][:12]: m["status"] for m in again["messages"]}
    assert statuses[answer["text"][:12]] == "stopped"
    assert list(statuses.values()).count("stopped") == 1  # the others as they were
    leaf = again["thread"]["active_leaf_id"]
    copy = await services.conversation.branch_into_new_thread(imported.id, leaf)
    assert [m.status for m in await services.conversation.active_branch(copy.id)] == [
        "complete",
        "stopped",
    ]


async def test_data_that_only_looks_secret_survives_export_and_import(
    services: Services, tmp_path: Path
) -> None:
    """The JSON export redacts a message's data: what it masks is gone after
    an import, so only secrets may be masked, never counts or words."""
    sample = await build_sample(services)
    kept = {
        "keyword": "python",
        "keys": ["a", "b"],
        "monkey": "see",
        "usage_detail": {"reasoning_tokens": 12, "max_tokens": "512", "tokens": 3},
        "token_count": 40,
    }
    secret = {"session_id": "s-1", "headers": [["X-Api-Key", "abc"]], "passphrase": "x"}
    answer = Message(
        new_id(),
        sample.thread_id,
        MessageRole.ASSISTANT,
        "Done.",
        "2026-11-30T07:13:00.000Z",
        parent_id=sample.u1,
        data={**kept, **secret},
    )
    await services.store.add_message(answer, make_active=True)
    doc = await export_doc(services, sample.thread_id)
    report = await import_doc(services, doc, tmp_path)
    again = await export_doc(services, report.imported[0].id)
    (data,) = [m["data"] for m in again["messages"] if m["text"] == "Done."]
    assert data == {
        **kept,
        "session_id": "***",
        "headers": [["X-Api-Key", "***"]],
        "passphrase": "***",
    }


async def thread_kb(services: Services, thread_id: str) -> str | None:
    return (await sql(services, "SELECT kb_id FROM threads WHERE id = ?", thread_id))[0][0]


async def test_the_knowledge_base_link_round_trips(
    services: Services, tmp_path: Path, validator: Validator
) -> None:
    sample = await build_sample(services)
    kb = await services.knowledge.create("Docs 文档")
    await services.knowledge.bind(sample.thread_id, kb.id)
    doc = await export_doc(services, sample.thread_id)
    assert doc["thread"]["knowledge_base"] == {"id": kb.id, "name": "Docs 文档"}
    assert validator.errors(doc) == []

    # here: the same base, by its id (also after a rename)
    await services.knowledge.rename(kb.id, "Renamed")
    home = await import_doc(services, doc, tmp_path)
    assert await thread_kb(services, home.imported[0].id) == kb.id

    other = build_services(tmp_path / "other-library")
    try:
        # no such base there: imported unbound
        unbound = await import_doc(other, doc, tmp_path)
        assert await thread_kb(other, unbound.imported[0].id) is None
        # a base of that name there: bound to it
        theirs = await other.knowledge.create("Docs 文档")
        bound = await import_doc(other, doc, tmp_path)
        assert await thread_kb(other, bound.imported[0].id) == theirs.id
        again = await export_doc(other, bound.imported[0].id)
        assert again["thread"]["knowledge_base"] == {"id": theirs.id, "name": "Docs 文档"}
    finally:
        await other.aclose()


async def test_a_document_without_a_knowledge_base_imports_unbound(
    services: Services, tmp_path: Path, validator: Validator
) -> None:
    sample = await build_sample(services)
    doc = await export_doc(services, sample.thread_id)
    assert doc["thread"]["knowledge_base"] is None
    del doc["thread"]["knowledge_base"]  # a file from before the field
    assert validator.errors(doc) == []
    report = await import_doc(services, doc, tmp_path)
    assert await thread_kb(services, report.imported[0].id) is None
