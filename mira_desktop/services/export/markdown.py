"""Markdown export (PRODUCT.md §9): a whole thread (also what "Copy to
clipboard" copies) and one message ("Download as .md", "Save to workspace").

Layout: the title, a table of thread facts and export diagnostics, the active
branch, then "Other versions" with every other live branch. Each message has a
heading (who, version n/m), its thinking as a quote, its text as written (it
is Markdown already; a code fence it leaves open is closed), attachments, the error of a failed answer, tool calls
with redacted arguments, and a one-line diagnostics footer. Trashed messages
are counted, not shown (the JSON export has them)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from ...core.models import Message, MessageRole
from ...core.transfer import AttachmentRecord, ThreadSnapshot
from .diagnostics import (
    APP_NAME,
    ExportMeta,
    arguments_text,
    diagnostics_line,
    duration_text,
    redacted_error,
    tool_calls,
)
from .sources import answer_sources, source_snippet, source_title
from .tree import TreeLayout, layout

log = logging.getLogger(__name__)

_WHO = {
    MessageRole.USER: "You",
    MessageRole.ASSISTANT: "Assistant",
    MessageRole.TOOL: "Tool",
    MessageRole.SYSTEM_CARD: "Note",
}


def fence(text: str, lang: str = "") -> str:
    """A fenced code block that no backtick run inside ``text`` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


# CommonMark fences: up to three spaces, then three or more backticks (an
# info string without backticks) or tildes (any info string)
_OPENER = re.compile(r"^( {0,3})(`{3,}(?=[^`]*$)|~{3,})")
_CLOSER = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
_PROBE = "mira-export-probe-after-the-message"


def close_fences(text: str) -> str:
    """``text`` with the code fence it leaves open (an answer stopped in the
    middle of a code block) closed, so the rest of the export is not read as
    its code. The closing fence is the opener's character, as many, at the
    opener's indentation (which also closes one inside a list item)."""
    opener = _open_fence(text)
    if opener is None or not _swallows(text):
        return text
    indent, fence = opener
    return f"{text.rstrip()}\n{indent}{fence}"


def _open_fence(text: str) -> tuple[str, str] | None:
    """(indentation, fence) of the fence ``text`` leaves open, by the lines
    alone (a quick look: most texts have none)."""
    opener: tuple[str, str] | None = None
    for line in text.splitlines():
        if opener is None:
            if found := _OPENER.match(line):
                opener = (found[1], found[2])
        elif (found := _CLOSER.match(line)) and (
            found[1][0] == opener[1][0] and len(found[1]) >= len(opener[1])
        ):
            opener = None
    return opener


def _swallows(text: str) -> bool:
    """Whether a CommonMark reader reads what follows ``text`` as code (the
    lines alone can be wrong: a fence-like line inside an HTML block is not
    one)."""
    from markdown_it import MarkdownIt  # only for a text that looks unclosed

    tokens = MarkdownIt("commonmark").parse(f"{text}\n\n{_PROBE}")
    return any(t.type == "fence" and _PROBE in t.content for t in tokens)


def one_line(text: str) -> str:
    return " ".join(text.split())


def _cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")


def quote(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.splitlines())


def _heading(message: Message, level: int, versions: dict[str, tuple[int, int]]) -> str:
    who = _WHO.get(message.role, str(message.role))
    if message.role is MessageRole.ASSISTANT and message.model:
        who = f"{who} · {message.model}"
    index, count = versions.get(message.id, (1, 1))
    version = f" · version {index}/{count}" if count > 1 else ""
    status = "" if str(message.status) == "complete" else f" [{message.status}]"
    return f"{'#' * level} {who}{version}{status}"


def _attachments(records: Sequence[AttachmentRecord]) -> str:
    lines = []
    for record in records:
        missing = "" if record.available else ", not in this library"
        lines.append(
            f"- {record.kind}: {_cell(record.name)} ({record.mime}, {record.size} bytes,"
            f" sha256 {record.sha256[:12]}…{missing})"
        )
    return "**Attachments**\n\n" + "\n".join(lines)


def _error(message: Message) -> str:
    error = redacted_error(message.error)
    if not error:
        return ""
    code = f" ({error.get('code')})" if error.get("code") else ""
    text = f"**Error{code}:** {one_line(str(error.get('message', '')))}"
    if error.get("hint"):
        text += f"\n\n*What to do:* {one_line(str(error['hint']))}"
    return text


def _sources(message: Message) -> str:
    """The sources an answer from a knowledge base cites (its ``[n]``)."""
    found = answer_sources(message)
    if found is None:
        return ""
    lines = []
    for source in found.sources:
        snippet = source_snippet(source)
        said = f": {_cell(snippet)}" if snippet else ""
        lines.append(f"- \\[{source.number}\\] {_cell(source_title(source))}{said}")
    return f"**{found.heading}**\n\n" + "\n".join(lines)


def _tools(message: Message) -> list[str]:
    blocks = []
    for call in tool_calls(message.data):
        status = f" ({call['status']})" if call.get("status") else ""
        summary = f" — {one_line(call['summary'])}" if call.get("summary") else ""
        body = arguments_text(call["arguments"]) if call["arguments"] is not None else ""
        head = f"**Tool call:** `{call['name']}`{status}{summary}"
        blocks.append(f"{head}\n\n{fence(body, 'json')}")
    return blocks


def message_block(
    message: Message,
    *,
    level: int = 3,
    versions: dict[str, tuple[int, int]] | None = None,
    attachments: Sequence[AttachmentRecord] = (),
) -> str:
    """One message as Markdown (heading, thinking, text, extras, diagnostics)."""
    parts = [_heading(message, level, versions or {})]
    if message.thinking:
        took = duration_text(message.thinking_ms)
        label = f"**Thinking** ({took})" if took else "**Thinking**"
        parts.append(quote(f"{label}\n\n{message.thinking.strip()}"))
    parts.append(close_fences(message.text.strip()) or "*(no text)*")
    if attachments:
        parts.append(_attachments(attachments))
    if error := _error(message):
        parts.append(error)
    if listed := _sources(message):
        parts.append(listed)
    parts.extend(_tools(message))
    facts = " · ".join(f"{label}: {value}" for label, value in diagnostics_line(message))
    parts.append(f"<sub>{facts}</sub>" if facts else "")
    return "\n\n".join(p for p in parts if p)


def _summary(snapshot: ThreadSnapshot, meta: ExportMeta, tree: TreeLayout) -> str:
    thread = snapshot.thread
    model = " / ".join(x for x in (snapshot.provider_name, thread.model) if x)
    rows = [
        ("Exported", f"{meta.exported_at} by {APP_NAME} {meta.app_version}"),
        ("Thread", f"`{thread.id}`"),
        ("Created", thread.created_at),
        ("Updated", thread.updated_at),
        ("Workspace", snapshot.workspace_name),
        ("Model", model),
        ("Source", thread.source),
        (
            "Messages",
            f"{len(snapshot.messages) - len(tree.trashed_ids)} shown"
            f" ({len(tree.others)} other branch(es), {len(tree.trashed_ids)} in the trash)",
        ),
    ]
    table = "\n".join(f"| {label} | {_cell(value)} |" for label, value in rows if value)
    return f"| | |\n|---|---|\n{table}"


def thread_markdown(snapshot: ThreadSnapshot, meta: ExportMeta) -> str:
    tree = layout(snapshot)
    title = one_line(snapshot.thread.title) or "Untitled"
    out = [f"# {title}", _summary(snapshot, meta, tree), "## Conversation"]
    attachments = snapshot.attachments
    for message in tree.active:
        out.append(
            message_block(
                message, versions=tree.versions, attachments=attachments.get(message.id, ())
            )
        )
    if not tree.active:
        out.append("*(no messages on the active branch)*")
    if tree.others:
        out.append("## Other versions")
    for number, segment in enumerate(tree.others, start=1):
        after = (
            f"after “{one_line(segment.after.text)[:80]}”" if segment.after else "from the start"
        )
        out.append(f"### Branch {number} — {after}")
        out.extend(
            message_block(m, level=4, versions=tree.versions, attachments=attachments.get(m.id, ()))
            for m in segment.messages
        )
    return "\n\n".join(out) + "\n"


def message_markdown(
    message: Message,
    meta: ExportMeta,
    *,
    thread_title: str | None = None,
    attachments: Sequence[AttachmentRecord] = (),
) -> str:
    """One message on its own (``.md`` download / save to workspace)."""
    header = f"# {one_line(thread_title)}\n\n" if thread_title else ""
    note = f"<sub>Exported {meta.exported_at} by {APP_NAME} {meta.app_version}</sub>"
    body = message_block(message, level=2, attachments=attachments)
    return f"{header}{body}\n\n{note}\n"
