"""Markdown export (PRODUCT.md §9): a whole thread (also the clipboard's text),
one message as .md, and saving a message into the workspace's root folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError, NotFoundError
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, MessageStatus
from mira_desktop.services.export.files import (
    attachment_entry,
    local_stamp,
    slug,
    thread_filename,
)
from mira_desktop.services.export.markdown import close_fences, fence

from .sample import ANSWER, QUESTION, SECRET_VALUES, THINKING, build_sample


async def test_thread_markdown_content(services: Services) -> None:
    sample = await build_sample(services)
    md = await services.exports.thread_markdown(sample.thread_id)
    assert md.startswith("# 列表推导式 & <tables>\n")
    assert "| Exported | 20" in md and "by Mira Desktop 0.1.0 |" in md
    assert f"| Thread | `{sample.thread_id}` |" in md
    assert "| Messages | 5 shown (2 other branch(es), 2 in the trash) |" in md
    # the active branch, in order, then the other versions
    conversation, others = md.split("## Other versions")
    assert conversation.index(QUESTION) < conversation.index("## 列表推导式")
    assert ANSWER.strip() in conversation  # the answer as written (it is Markdown)
    assert "### You · version 1/2" in conversation
    assert "### Assistant · qwen3:8b · version 1/2" in conversation
    assert "> **Thinking** (12.3 s)\n>\n> " + THINKING in conversation
    assert "### Branch 1 — after “" + QUESTION + "”" in others
    assert "#### Assistant · gpt-4o · version 2/2 [failed]" in others
    assert "**Error (authentication):** Incorrect API key provided: ***" in others
    assert "### Branch 2 — from the start" in others and "#### You · version 2/2" in others
    assert "And dicts?" not in md  # trashed
    assert "- file: notes.txt (text/plain, 18 bytes, sha256 " in md


async def test_markdown_diagnostics_and_redaction(services: Services) -> None:
    sample = await build_sample(services)
    md = await services.exports.clipboard_text(sample.thread_id)
    for value in SECRET_VALUES:
        assert value not in md
    assert "**Tool call:** `web_fetch`\n\n```json\n" in md
    assert '"Authorization": "***"' in md and '"api_key": "***"' in md
    assert "**Tool call:** `bash` (executed)" in md
    assert (
        "<sub>model: qwen3:8b · provider: local · status: complete · created: "
        "2026-11-30T07:12:31.000Z · updated: 2026-11-30T07:12:32.000Z · thinking: 12.3 s · "
        "tokens: prompt 120, completion 80, reasoning ≈30 (estimated)</sub>"
    ) in md


def test_fences_outgrow_backticks_inside() -> None:
    assert fence("a") == "```\na\n```"
    assert fence("x ```` y", "json") == "`````json\nx ```` y\n`````"


async def test_one_message_as_markdown(services: Services) -> None:
    sample = await build_sample(services)
    md = await services.exports.message_markdown(sample.a1)
    assert md.startswith("# 列表推导式 & <tables>\n\n## Assistant · qwen3:8b\n")
    assert THINKING in md and ANSWER.strip() in md and "sk-live" not in md
    assert "Exported " in md and "Mira Desktop 0.1.0" in md
    name = await services.exports.message_filename(sample.a1)
    assert name == f"chat-message-assistant-{local_stamp('2026-11-30T07:12:31.000Z')}.md"
    assert re.fullmatch(r"chat-message-assistant-\d{8}-\d{6}\.md", name)


def test_local_stamp_uses_the_given_zone() -> None:
    from datetime import UTC, timedelta, timezone

    assert local_stamp("2026-11-30T07:12:30.000Z", tz=UTC) == "20261130-071230"
    assert local_stamp("2026-11-30T23:12:30Z", tz=timezone(timedelta(hours=8))) == "20261201-071230"


async def test_save_to_workspace_never_overwrites(services: Services, tmp_path: Path) -> None:
    sample = await build_sample(services)
    base = await services.store.default_workspace()
    root = tmp_path / "project"
    root.mkdir()
    await services.workspaces.set_root_dir(base.id, str(root))
    first = await services.exports.save_message_to_workspace(sample.a1)
    second = await services.exports.save_message_to_workspace(sample.a1)
    third = await services.exports.save_message_to_workspace(sample.a1)
    stem = f"chat-message-assistant-{local_stamp('2026-11-30T07:12:31.000Z')}"
    assert [p.name for p in (first, second, third)] == [
        f"{stem}.md",
        f"{stem}-2.md",
        f"{stem}-3.md",
    ]
    assert all(p.parent == root for p in (first, second, third))
    assert ANSWER.strip() in first.read_text("utf-8")
    first.write_text("my notes")  # the user's edits survive another save
    await services.exports.save_message_to_workspace(sample.a1)
    assert first.read_text() == "my notes" and (root / f"{stem}-4.md").is_file()


async def test_save_to_workspace_refuses_without_a_root(services: Services, tmp_path: Path) -> None:
    sample = await build_sample(services)
    with pytest.raises(ConfigError, match="no root folder") as caught:
        await services.exports.save_message_to_workspace(sample.a1)
    assert "download" in caught.value.hint
    base = await services.store.default_workspace()
    gone = tmp_path / "gone"
    gone.mkdir()
    await services.workspaces.set_root_dir(base.id, str(gone))
    gone.rmdir()
    with pytest.raises(ConfigError, match="does not exist"):
        await services.exports.save_message_to_workspace(sample.a1)
    with pytest.raises(NotFoundError):
        await services.exports.save_message_to_workspace("no-such-message")


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Hello world", "Hello world"),
        ('a/b\\c:d*e?f"g<h>i|j', "a-b-c-d-e-f-g-h-i-j"),
        ("列表推导式", "列表推导式"),
        ("   ", "thread"),
        ("CON", "thread-CON"),
        ("Nul.txt", "thread-Nul.txt"),
        ("con.md", "thread-con.md"),
        ("aux .tar.gz", "thread-aux .tar.gz"),
        ("console.log", "console.log"),
        ("..hidden..", "hidden"),
        ("x" * 100, "x" * 60),
    ],
)
def test_file_names_are_portable(title: str, expected: str) -> None:
    assert slug(title) == expected
    assert thread_filename(title, "0190-aaaa-bbbb-cccc-1234abcd", "md") == f"{expected}-1234abcd.md"


FENCES: list[tuple[str, str, str]] = [
    ("backticks", "```python\nprint(1", "```python\nprint(1\n```"),
    ("tildes, closer too short", "~~~~\nx\n~~~", "~~~~\nx\n~~~\n~~~~"),
    ("longer backticks", "````md\n```\ninner", "````md\n```\ninner\n````"),
    ("other character", "~~~\n```\n", "~~~\n```\n~~~"),
    ("closer with words is no closer", "```\nx\n``` y", "```\nx\n``` y\n```"),
    ("indented opener", "  ```\nx", "  ```\nx\n  ```"),
    ("in a paragraph", "Code:\n```sh\nls -", "Code:\n```sh\nls -\n```"),
    ("closed", "```\nok\n```  ", "```\nok\n```  "),
    ("closed by a longer run", "```\nok\n`````", "```\nok\n`````"),
    ("two blocks, closed", "```\na\n```\n\n~~~\nb\n~~~", "```\na\n```\n\n~~~\nb\n~~~"),
    ("inline code, not a fence", "```a`b\nx", "```a`b\nx"),
    ("indented code, not a fence", "    ```\nx", "    ```\nx"),
    ("in a quote: ends with it", "> ```\n> x", "> ```\n> x"),
    ("in a list item: ends with it", "1. a\n   ```sh\n   pip", "1. a\n   ```sh\n   pip"),
    ("in an HTML block, not a fence", "<div>\n```\n</div>", "<div>\n```\n</div>"),
]


@pytest.mark.parametrize(("case", "text", "expected"), FENCES, ids=[c[0] for c in FENCES])
def test_a_fence_left_open_is_closed(case: str, text: str, expected: str) -> None:
    from markdown_it import MarkdownIt

    assert close_fences(text) == expected
    tokens = MarkdownIt("commonmark").parse(close_fences(text) + "\n\n## After")
    assert [t.content for t in tokens if t.type == "inline"][-1] == "After"  # a heading again


async def test_an_answer_stopped_inside_a_code_block_keeps_the_rest_of_the_export(
    services: Services,
) -> None:
    from markdown_it import MarkdownIt

    sample = await build_sample(services)
    stopped = Message(
        new_id(),
        sample.thread_id,
        MessageRole.ASSISTANT,
        "Here:\n\n````python\nprint('``` not the end')\nfor x in",
        "2026-11-30T07:13:00.000Z",
        parent_id=sample.u1,
        status=MessageStatus.STOPPED,
    )
    await services.store.add_message(stopped, make_active=True)
    md = await services.exports.thread_markdown(sample.thread_id)
    tokens = MarkdownIt("commonmark").parse(md)
    code = [t.content for t in tokens if t.type == "fence"]
    assert code[0] == "print('``` not the end')\nfor x in\n"
    headings = [t.content for i, t in enumerate(tokens) if tokens[i - 1].type == "heading_open"]
    assert "Assistant · version 3/3 [stopped]" in headings
    assert "Other versions" in headings and "列表推导式" in headings
    footers = [t.content for t in tokens if t.content.startswith("<sub>status: stopped")]
    assert len(footers) == 1


@pytest.mark.parametrize(
    "name", ["文" * 100 + ".txt", "😀" * 100 + ".markdown", "é" * 300, "x" * 300 + ".json"]
)
def test_names_fit_a_file_system_in_bytes(name: str) -> None:
    """255 bytes of UTF-8 is the limit of a file's name (ext4, APFS): 80
    Chinese characters and the entry's hash prefix went past it."""
    sha = "0123456789ab" + "c" * 52
    entry = attachment_entry(sha, name)
    assert entry.startswith("attachments/0123456789ab-")
    assert len(entry.removeprefix("attachments/").encode("utf-8")) <= 255 - 6  # room for "-2"…
    assert len(thread_filename(name, "0190-aaaa-1234abcd", "html").encode("utf-8")) <= 255 - 6
    assert attachment_entry(sha, "notes.txt") == "attachments/0123456789ab-notes.txt"
