"""The agent's ``ask_user_question`` tool (PRODUCT.md §11): up to three
questions, each with options and room for a free answer. The loop runs it
itself: the call's card waits (in any approval mode) until the user answers
or dismisses the questions; the window locks the composer meanwhile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.agent import QUESTIONS_TOOL, Question, ToolRefused
from ...core.models import ToolSpec

NAME = QUESTIONS_TOOL
MAX_QUESTIONS = 3
MAX_OPTIONS = 6
DISMISSED = (
    "The user dismissed the questions without answering. Go on with your best judgement,"
    " and say what you assumed."
)

SPEC = ToolSpec(
    NAME,
    "Ask the user up to 3 questions when you cannot go on without their choice; each may"
    " offer options, and the user may always answer in their own words. Wait for the"
    " answers; do not ask what you can find out yourself.",
    {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "maxItems": MAX_QUESTIONS,
                "items": {
                    "type": "object",
                    "properties": {
                        "question": {"type": "string"},
                        "options": {
                            "type": "array",
                            "items": {"type": "string"},
                            "maxItems": MAX_OPTIONS,
                        },
                    },
                    "required": ["question"],
                },
            }
        },
        "required": ["questions"],
    },
)


def parse_questions(arguments: dict[str, Any]) -> tuple[Question, ...]:
    """The questions of a call; ToolRefused (told to the model) when malformed."""
    items = arguments.get("questions")
    if not isinstance(items, list) or not items:
        raise ToolRefused("ask_user_question needs 'questions': a list of {question, options}.")
    if len(items) > MAX_QUESTIONS:
        raise ToolRefused(f"Ask at most {MAX_QUESTIONS} questions at a time.")
    out = []
    for number, item in enumerate(items, 1):
        text = item.get("question") if isinstance(item, dict) else None
        if not isinstance(text, str) or not text.strip():
            raise ToolRefused(f"Question {number} has no text.")
        options = item.get("options") or []
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise ToolRefused(f"The options of question {number} must be a list of strings.")
        kept = tuple(o.strip() for o in options if o.strip())
        if len(kept) > MAX_OPTIONS:
            raise ToolRefused(f"Offer at most {MAX_OPTIONS} options per question.")
        out.append(Question(text.strip(), kept))
    return tuple(out)


def answered(questions: Sequence[Question], answers: Sequence[str]) -> str:
    """The result the model gets: each question with its answer."""
    lines = ["The user answered:"]
    for number, (question, answer) in enumerate(zip(questions, answers, strict=False), 1):
        lines.append(f"{number}. {question.text}\n   → {answer.strip() or '(no answer)'}")
    return "\n".join(lines)
