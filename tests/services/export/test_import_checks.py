"""Import files that are odd but not malformed JSON (PRODUCT.md §9): times the
app cannot read, or written with an offset; text with a lone surrogate;
numbers too large to store; encrypted ZIPs; nesting too deep to handle.
Each either imports cleanly (normalised) or is refused with a clear
message, never a traceback, and a refused file imports nothing. Real
libraries in temp folders, real files the tests write."""

from __future__ import annotations

import copy
import json
import struct
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import InvalidImportError
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, Thread
from mira_desktop.services.importers import chatgpt
from mira_desktop.services.importers.chatgpt_content import images_of

from ..seed import sql
from .chatgpt_fixture import Conversation, branching
from .test_json_export import export_doc, import_doc, thread_count


async def small_doc(services: Services, title: str = "small") -> dict[str, Any]:
    """The Mira export of a question and its answer."""
    workspace = await services.store.default_workspace()
    at = "2026-01-01T00:00:00.000Z"
    thread = await services.store.create_thread(
        Thread(id=new_id(), title=title, workspace_id=workspace.id, created_at=at, updated_at=at)
    )
    question = Message(new_id(), thread.id, MessageRole.USER, "question", at)
    await services.store.add_message(question, make_active=True)
    answer = Message(
        new_id(), thread.id, MessageRole.ASSISTANT, "answer", at, parent_id=question.id
    )
    await services.store.add_message(answer, make_active=True)
    return await export_doc(services, thread.id)


def timed(doc: dict[str, Any], thread_id: str, at: str) -> dict[str, Any]:
    """``doc`` as another thread (new ids), every time of it ``at``."""
    doc = copy.deepcopy(doc)
    ids = {m["id"]: f"{thread_id}-{i}" for i, m in enumerate(doc["messages"])}
    for message in doc["messages"]:
        message["id"] = ids[message["id"]]
        message["parent_id"] = ids.get(message["parent_id"])
        message["created_at"] = message["updated_at"] = at
    info = doc["thread"]
    info["id"], info["title"] = thread_id, thread_id
    info["created_at"] = info["updated_at"] = at
    info["active_leaf_id"] = ids[info["active_leaf_id"]]
    return doc


async def test_times_with_an_offset_are_stored_as_utc_and_sort_by_the_real_time(
    services: Services, tmp_path: Path
) -> None:
    base = await small_doc(services)
    # 09:00 at +08:00 is 01:00 UTC: newer than 00:30 UTC, though its text sorts lower
    east = timed(base, "east", "2026-06-01T09:00:00+08:00")
    west = timed(base, "west", "2026-06-01T00:30:00Z")
    report = await import_doc(services, [west, east], tmp_path)
    assert [t.id for t in report.imported] == ["west", "east"]

    stored = await sql(services, "SELECT created_at, updated_at FROM threads WHERE id = 'east'")
    assert stored == [("2026-06-01T01:00:00.000Z", "2026-06-01T01:00:00.000Z")]
    times = await sql(
        services, "SELECT DISTINCT created_at, updated_at FROM messages WHERE thread_id = 'east'"
    )
    assert times == [("2026-06-01T01:00:00.000Z", "2026-06-01T01:00:00.000Z")]
    listed = await services.history.list_threads()
    assert [t.id for t in listed][:2] == ["east", "west"]
    assert all(services.history.group_of(t) for t in listed)  # the sidebar's groups


@pytest.mark.parametrize(
    ("where", "field"),
    [("thread", "$.thread.created_at"), ("message", "$.messages[1].created_at")],
)
async def test_a_time_the_app_cannot_read_refuses_the_file_naming_it(
    services: Services, tmp_path: Path, where: str, field: str
) -> None:
    good = timed(await small_doc(services), "good", "2026-06-01T00:30:00Z")
    bad = timed(good, "bad", "2026-06-01T00:30:00Z")
    if where == "thread":
        bad["thread"]["created_at"] = "yesterday!!"
    else:
        bad["messages"][1]["created_at"] = "not a time at all"
    before = await thread_count(services)
    with pytest.raises(InvalidImportError) as caught:
        await import_doc(services, [good, bad], tmp_path)
    assert caught.value.message.startswith("Thread 2 of the file does not match")
    assert f"{field}: " in caught.value.message
    assert "is not a date and time" in caught.value.message
    assert await thread_count(services) == before
    assert all(services.history.group_of(t) for t in await services.history.list_threads())


def escaped(tmp_path: Path, data: Any, name: str) -> Path:
    """``data`` written as JSON with every non-ASCII character escaped (a lone
    surrogate as ``\\udXXX``, as ``json.dumps`` writes it)."""
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=True), "ascii")
    return path


async def test_a_lone_surrogate_in_a_chatgpt_export_becomes_a_replacement_character(
    services: Services, tmp_path: Path
) -> None:
    conversation = Conversation("conv-cut", "cut emoji \ud83d")
    conversation.say("u1", "root", "user", "truncated emoji \ud83d here", at=1)
    conversation.say("a1", "u1", "assistant", "fine 😀 and \ude00 alone", at=2, model="gpt-4o")
    conversation.current("a1")
    report = await services.imports.import_file(
        escaped(tmp_path, [conversation.data], "conversations.json")
    )
    (thread,) = report.imported
    assert thread.title == "cut emoji \ufffd"
    doc = await export_doc(services, thread.id)
    assert [m["text"] for m in doc["messages"]] == [
        "truncated emoji \ufffd here",
        "fine 😀 and \ufffd alone",
    ]


async def test_a_lone_surrogate_in_a_mira_file_becomes_a_replacement_character(
    services: Services, tmp_path: Path
) -> None:
    doc = timed(await small_doc(services), "cut", "2026-06-01T00:30:00Z")
    doc["thread"]["title"] = "half \udc00"
    doc["messages"][1]["text"] = "bad \ud83d"
    doc["messages"][1]["data"] = {"note \ud83d": ["deep \ud83d", {"x": "\udfff"}]}
    report = await services.imports.import_file(escaped(tmp_path, doc, "cut.json"))
    (thread,) = report.imported
    again = await export_doc(services, thread.id)
    assert again["thread"]["title"] == "half \ufffd"
    assert again["messages"][1]["text"] == "bad \ufffd"
    assert again["messages"][1]["data"] == {"note \ufffd": ["deep \ufffd", {"x": "\ufffd"}]}


@pytest.mark.parametrize(
    ("field", "value"),
    [("prompt_tokens", 10**20), ("thinking_ms", 2**63)],
)
async def test_a_number_too_large_to_store_refuses_the_file_naming_it(
    services: Services, tmp_path: Path, field: str, value: int
) -> None:
    doc = timed(await small_doc(services), "huge", "2026-06-01T00:30:00Z")
    answer = doc["messages"][1]
    if field == "thinking_ms":
        answer["thinking_ms"] = value
        where = "$.messages[1].thinking_ms"
    else:
        answer["usage"] = {"prompt_tokens": value, "completion_tokens": 1, "reasoning_tokens": 0}
        where = "$.messages[1].usage.prompt_tokens"
    before = await thread_count(services)
    with pytest.raises(InvalidImportError) as caught:
        await import_doc(services, doc, tmp_path)
    assert f"{where}: {value} is more than 9223372036854775807" in caught.value.message
    assert await thread_count(services) == before
    answer.pop("thinking_ms", None)
    answer["usage"] = {"prompt_tokens": 2**63 - 1, "completion_tokens": 1, "reasoning_tokens": 0}
    (thread,) = (await import_doc(services, doc, tmp_path)).imported  # the largest stored
    stored = await export_doc(services, thread.id)
    assert stored["messages"][1]["usage"]["prompt_tokens"] == 2**63 - 1


def test_a_chatgpt_pictures_size_too_large_to_hold_counts_as_unknown() -> None:
    part = {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-A"}
    content = {
        "content_type": "multimodal_text",
        "parts": [
            {**part, "width": 10**20, "height": 768},
            {**part, "width": 1024, "height": 768},
        ],
    }
    assert [(ref.width, ref.height) for ref in images_of(content)] == [(0, 768), (1024, 768)]


def patched_zip(tmp_path: Path, data: Any, *, flag: int = 0, method: int | None = None) -> Path:
    """A ZIP of ``conversations.json`` whose entry is marked as an encrypted
    one is (``flag``: general-purpose bits added; ``method``: the
    compression method, 99 for WinZip AES), in its local and central headers."""
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("conversations.json", json.dumps(data))
    raw = bytearray(path.read_bytes())
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = raw.index(signature)
        old = struct.unpack_from("<H", raw, start + flags_at)[0]
        struct.pack_into("<H", raw, start + flags_at, old | flag)
        if method is not None:
            struct.pack_into("<H", raw, start + flags_at + 2, method)
    path.write_bytes(bytes(raw))
    return path


@pytest.mark.parametrize(("flag", "method"), [(0x1, None), (0, 99)], ids=["zipcrypto", "aes"])
async def test_an_encrypted_zip_is_refused_saying_so(
    services: Services, tmp_path: Path, flag: int, method: int | None
) -> None:
    path = patched_zip(tmp_path, [branching().data], flag=flag, method=method)
    before = await thread_count(services)
    with pytest.raises(InvalidImportError) as caught:
        await services.imports.import_file(path)
    assert caught.value.message == "export.zip is encrypted; unzip it first."
    assert await thread_count(services) == before


async def test_a_zip_packed_with_a_method_python_lacks_is_refused_saying_so(
    services: Services, tmp_path: Path
) -> None:
    path = patched_zip(tmp_path, [branching().data], method=97)  # WavPack
    with pytest.raises(InvalidImportError) as caught:
        await services.imports.import_file(path)
    assert caught.value.message.startswith("export.zip is packed in a way Mira cannot unpack (")
    assert caught.value.message.endswith("); unzip it first.")


async def test_json_nested_deeper_than_the_parser_goes_is_refused_saying_so(
    services: Services, tmp_path: Path
) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(InvalidImportError) as caught:
        await services.imports.import_file(path)
    assert caught.value.message == (
        "deep.json is nested too deeply (more than 64 levels of objects and lists)."
    )


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"end": True}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


async def test_message_data_nested_too_deep_to_export_is_refused(
    services: Services, tmp_path: Path
) -> None:
    doc = timed(await small_doc(services), "deep", "2026-06-01T00:30:00Z")
    doc["messages"][1]["data"] = nested(400)  # the exports' redaction recursed on it
    before = await thread_count(services)
    with pytest.raises(InvalidImportError) as caught:
        await import_doc(services, doc, tmp_path, "deep.json")
    assert "deep.json is nested too deeply" in caught.value.message
    assert await thread_count(services) == before

    doc["messages"][1]["data"] = nested(61)  # the file: 64 levels deep, the most taken
    (thread,) = (await import_doc(services, doc, tmp_path, "deep.json")).imported
    for fmt in ("json", "md", "html"):
        assert await services.exports.render(thread.id, fmt)


APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02\x00\x00\x00\x09\xff\xfe"


async def test_a_zip_made_by_macos_finder_imports_without_its_metadata_files(
    services: Services, tmp_path: Path
) -> None:
    """Finder's "Compress" adds ``__MACOSX/…/._name`` (AppleDouble, not
    JSON) beside each file, and ``._name`` beside it on some volumes."""
    doc = timed(await small_doc(services), "from-a-mac", "2026-06-01T00:30:00Z")
    mira_zip = tmp_path / "backup.zip"
    with zipfile.ZipFile(mira_zip, "w") as archive:
        archive.writestr("backup/thread.json", json.dumps(doc))
        archive.writestr("__MACOSX/backup/._thread.json", APPLE_DOUBLE)
        archive.writestr("backup/._thread.json", APPLE_DOUBLE)
    report = await services.imports.import_file(mira_zip)
    assert [t.id for t in report.imported] == ["from-a-mac"]

    chatgpt_zip = tmp_path / "chatgpt.zip"
    with zipfile.ZipFile(chatgpt_zip, "w") as archive:
        archive.writestr("__MACOSX/export/._conversations.json", APPLE_DOUBLE)
        archive.writestr("export/conversations.json", json.dumps([branching().data]))
        archive.writestr("__MACOSX/export/._chat.html", APPLE_DOUBLE)
    report = await services.imports.import_file(chatgpt_zip)
    assert [t.source_ref for t in report.imported] == ["conv-branching"]


def test_a_node_with_tens_of_thousands_of_children_is_read_in_linear_time() -> None:
    """Children are sorted by their place in the parent's ``children`` list
    (then by time); looking each place up in that list made 30 000 children
    take about ten seconds."""
    conversation = Conversation("conv-wide", "wide")
    for index in range(30_000):
        conversation.add(f"c{index}", "root", None)
    conversation.say("late", "root", "user", "listed first, written later", at=50)
    conversation.say("early", "root", "user", "listed second, written earlier", at=10)
    started = time.perf_counter()
    (thread,), skipped = chatgpt.parse_conversations([conversation.data])
    assert time.perf_counter() - started < 3.0
    assert skipped == []
    assert [m.text for m in thread.messages] == [
        "listed first, written later",
        "listed second, written earlier",
    ]
