"""Sub-agents (PRODUCT.md §11): the agent may hand a self-contained task —
find where something is done, read up on a library, compare two files — to a
sub-agent with the same model, its own conversation and the read-only tools
(it changes no file and asks no one). The sub-agent's report comes back as
the call's result; its card lists what it looked at. One level deep."""

from __future__ import annotations

from typing import Any

from ...core.agent import ToolPreview, ToolRefused
from ...core.models import ToolSpec

NAME = "subagent"
#: rounds of tool calls a sub-agent may take
MAX_ROUNDS = 15
#: summaries of the sub-agent's calls listed on its card
LISTED_CALLS = 12

SPEC = ToolSpec(
    NAME,
    "Hand a self-contained task to a sub-agent: it works with the read-only tools in its own"
    " conversation (it cannot change files or ask the user) and returns a report. Use it for"
    " research that would otherwise fill this conversation with tool output. Say everything"
    " it needs to know in the task.",
    {
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "A few words naming the task."},
            "task": {"type": "string", "description": "The task, complete and self-contained."},
        },
        "required": ["description", "task"],
    },
)

INSTRUCTIONS = (
    "You are a sub-agent of Mira's agent. Do the task you are given with the read-only"
    " tools, then answer with a concise report of what you found: paths, line numbers,"
    " facts, and what you could not find. You cannot change files or ask the user."
)


def parse_task(arguments: dict[str, Any]) -> tuple[str, str]:
    """``(description, task)`` of a call; ToolRefused when missing."""
    description, task = arguments.get("description"), arguments.get("task")
    if not isinstance(task, str) or not task.strip():
        raise ToolRefused("subagent needs the argument task: what the sub-agent should do.")
    if not isinstance(description, str) or not description.strip():
        description = task
    words = " ".join(description.split())
    return (words if len(words) <= 80 else words[:79] + "…"), task.strip()


def preview(arguments: dict[str, Any]) -> ToolPreview:
    description, _ = parse_task(arguments)
    return ToolPreview.worded("Sub-agent: {description}", description=description)


def report(text: str, looked_at: list[str]) -> str:
    """The call's result: the sub-agent's report and what it looked at."""
    body = text.strip() or "(The sub-agent gave no report.)"
    if not looked_at:
        return body
    listed = looked_at[:LISTED_CALLS]
    more = len(looked_at) - len(listed)
    tail = f"; and {more} more" if more > 0 else ""
    return f"{body}\n\n(The sub-agent used: {'; '.join(listed)}{tail}.)"
