"""The agent in ``mira-desktop chat`` (PRODUCT.md §11).

``--agent`` / ``--no-agent`` set the thread's agent switch, ``--plan`` /
``--no-plan`` its plan mode (the answer is a proposed plan; nothing is
changed until it is left, e.g. ``--no-plan "Implement the plan."``); ``--agent-mode
manual|auto`` overrides the approval mode for this answer. In manual mode a
call that would change files waits for a decision, taken by ``--approve``:
``ask`` (the default) shows what the call will do — its diff for write and
edit — on stderr and reads ``y`` or ``n`` from stdin (anything else, or the
end of stdin, denies); ``yes`` approves every call, ``no`` denies every one.

The agent's questions (``ask_user_question``) are asked on stderr with ``ask``
and answered on stdin — an option's number or free words, an empty first
answer dismisses them; with ``yes`` / ``no`` they are dismissed.

Tool cards print as ``tool_card`` JSON lines with ``--json`` (each state of a
card: waiting, running, done…), and as one line each on stderr otherwise;
the agent's steps (its ``update_progress``) as ``progress`` lines, or
``[progress 2/5: …]``."""

from __future__ import annotations

import argparse
import asyncio
import sys

from ..bootstrap import Services
from ..core.agent import (
    QUESTIONS_TOOL,
    AgentMode,
    ProgressChanged,
    StepStatus,
    ToolCard,
    ToolCardChanged,
    ToolStatus,
    card_questions,
    is_plan,
)
from ..core.models import Message


def add_agent_options(chat: argparse.ArgumentParser) -> None:
    """--agent/--no-agent and --plan/--no-plan (the thread's switches), the
    approval mode of this answer and who decides."""
    for flag, on, off in (
        ("agent", "answer with the agent in the workspace's folder (from now on)", "agent off"),
        ("plan", "plan mode: the agent looks around and proposes a plan", "leave plan mode"),
    ):
        group = chat.add_mutually_exclusive_group()
        group.add_argument(f"--{flag}", dest=flag, action="store_true", default=None, help=on)
        group.add_argument(f"--no-{flag}", dest=flag, action="store_false", help=off)
    chat.add_argument(
        "--agent-mode",
        choices=[m.value for m in AgentMode],
        help="manual: ask before changes; auto: run every tool (default: the setting)",
    )
    chat.add_argument(
        "--approve",
        choices=["ask", "yes", "no"],
        default="ask",
        help="in manual mode, who decides on a change: ask on the terminal, or always yes/no",
    )


async def decide(services: Services, event: ToolCardChanged, approve: str) -> None:
    """Answer a card waiting for approval as ``--approve`` says."""
    card = event.card
    if card.status is not ToolStatus.WAITING:
        return
    if card.name == QUESTIONS_TOOL:
        answers = await asyncio.to_thread(_ask_questions, card) if approve == "ask" else None
        services.chat.answer(event.thread_id, card.call_id, answers)
        return
    if approve == "ask":
        approved = await asyncio.to_thread(_ask, card)
    else:
        approved = approve == "yes"
    services.chat.decide(event.thread_id, card.call_id, approved)


def _ask(card: ToolCard) -> bool:
    err = sys.stderr
    err.write(f"\nThe agent wants to {card.name}: {card.summary}\n")
    if card.diff:
        err.write(card.diff if card.diff.endswith("\n") else card.diff + "\n")
    if card.diff_cut:
        err.write(
            f"The change is longer than shown: {card.diff_cut:,} more lines were not kept, "
            "so not all of it can be seen before approving.\n"
        )
    err.write("Allow? [y/N] ")
    err.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in {"y", "yes"}


def _ask_questions(card: ToolCard) -> list[str] | None:
    """The agent's questions on stderr, the answers from stdin: an option's
    number picks it, other text is the answer; an empty first answer (or the
    end of stdin) dismisses them."""
    err = sys.stderr
    answers: list[str] = []
    for number, question in enumerate(card_questions(card), 1):
        err.write(f"\nThe agent asks ({number}): {question.text}\n")
        for index, option in enumerate(question.options, 1):
            err.write(f"  {index}) {option}\n")
        err.write(
            "Answer (a number or your words; empty to dismiss): " if number == 1 else "Answer: "
        )
        err.flush()
        line = sys.stdin.readline()
        text = line.strip()
        if number == 1 and not text:
            return None
        if text.isdigit() and 1 <= int(text) <= len(question.options):
            text = question.options[int(text) - 1]
        answers.append(text)
    return answers


def card_line(card: ToolCard) -> str | None:
    """The plain output's line for a card's state (None: nothing to say)."""
    if card.status is ToolStatus.RUNNING:
        return None
    label = {
        ToolStatus.WAITING: "waiting for your answer"
        if card.name == QUESTIONS_TOOL
        else "waiting for approval",
        ToolStatus.DONE: "done",
        ToolStatus.FAILED: "failed",
        ToolStatus.DENIED: "denied",
        ToolStatus.EXPIRED: "expired",
    }[card.status]
    line = f"[{card.name}: {card.summary} — {label}]"
    if card.status is ToolStatus.FAILED and card.output:
        line += f"\n  {card.output.splitlines()[0][:300]}"
    return line


def progress_line(event: ProgressChanged) -> str:
    """``[progress 2/5: the step in progress]`` for the plain output."""
    steps = event.steps
    done = sum(step.status is StepStatus.COMPLETED for step in steps)
    current = next((s.title for s in steps if s.status is StepStatus.IN_PROGRESS), None)
    return f"[progress {done}/{len(steps)}" + (f": {current}]" if current else "]")


def plan_note(message: Message | None) -> str | None:
    """What the plain output says after a proposed plan."""
    if message is None or not is_plan(message.data):
        return None
    return (
        "[A proposed plan; nothing was changed. To carry it out: mira-desktop chat"
        f' --thread {message.thread_id} --no-plan "Implement the plan."]'
    )


def agent_mode(args: argparse.Namespace) -> AgentMode | None:
    return AgentMode(args.agent_mode) if args.agent_mode else None
