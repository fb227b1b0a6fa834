"""The agent's ``update_progress`` tool (PRODUCT.md §11): the model keeps a
list of steps — pending, in progress, completed — that the window shows in
its progress panel (per branch: the last answer's list on the branch shown).
The loop runs it itself; it touches no file and asks no one."""

from __future__ import annotations

from typing import Any

from ...core.agent import ProgressStep, StepStatus, ToolRefused
from ...core.models import ToolSpec

NAME = "update_progress"
#: steps kept (a longer list is refused: it is a plan of work, not a log)
MAX_STEPS = 30

SPEC = ToolSpec(
    NAME,
    "Show the user your plan of work as a list of steps and where each stands. Call it when"
    " you start a task of several steps, and again whenever a step starts or is completed;"
    " send the whole list each time.",
    {
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "description": "Every step, in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "description": "What the step does."},
                        "status": {
                            "type": "string",
                            "enum": [s.value for s in StepStatus],
                        },
                    },
                    "required": ["title", "status"],
                },
            }
        },
        "required": ["steps"],
    },
)


def parse_steps(arguments: dict[str, Any]) -> tuple[ProgressStep, ...]:
    """The steps of a call; ToolRefused (told to the model) when malformed."""
    steps = arguments.get("steps")
    if not isinstance(steps, list) or not steps:
        raise ToolRefused("update_progress needs 'steps': a list of {title, status}.")
    if len(steps) > MAX_STEPS:
        raise ToolRefused(f"At most {MAX_STEPS} steps; group the smaller ones.")
    out = []
    for number, step in enumerate(steps, 1):
        title = step.get("title") if isinstance(step, dict) else None
        status = step.get("status") if isinstance(step, dict) else None
        if not isinstance(title, str) or not title.strip():
            raise ToolRefused(f"Step {number} has no title.")
        if status not in {s.value for s in StepStatus}:
            raise ToolRefused(
                f"Step {number} has the status {status!r}; use pending, in_progress or completed."
            )
        out.append(ProgressStep(" ".join(title.split())[:200], StepStatus(status)))
    return tuple(out)


def progress_result(steps: tuple[ProgressStep, ...]) -> str:
    done = sum(s.status is StepStatus.COMPLETED for s in steps)
    return f"Progress shown to the user: {done} of {len(steps)} steps completed."
