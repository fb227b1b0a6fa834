"""Summarising a conversation with a model: the shared engine of the context
summary (``summary.py``) and of compaction (``compaction.py``).

Both prompts tell the model to keep identifiers exactly — URLs, DOIs, PMIDs,
file paths, numbers — because a summary that rounds a number or shortens a
link silently corrupts every later answer (PRODUCT.md §4).

These are internal calls: the thread's role prompt and its sampling parameters
are *not* applied (a role's ``max_tokens`` of 200 would cut a summary short, and
a persona would colour it). A conversation longer than half the model's context
window is summarised in chunks, each folding into the summary so far; a chunk
the server still refuses as too long is halved (a few times) and retried."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.errors import ContextOverflowError, MiraError
from ..core.events import CUT_AT_LENGTH, StreamDone, TextDelta
from ..core.models import ChatMessage, ChatRequest, Message, Reasoning
from ..core.ports import ChatProvider, TokenCounter
from .context import Attachments, history_entries

log = logging.getLogger(__name__)

IDENTIFIER_RULE = (
    "Keep every identifier exactly as written: URLs, DOIs, PMIDs, file paths, file, function"
    " and variable names, commands, numbers, dates, amounts and units. Never shorten, round,"
    " translate or paraphrase them."
)
COMPACTION_PROMPT = (
    "You compress a conversation into a checkpoint that replaces it: the assistant will"
    " continue from your text alone. Write a dense, faithful summary: the user's goals and"
    " preferences, decisions and their reasons, facts and results established, work done,"
    " steps in order, open questions and next steps. "
    + IDENTIFIER_RULE
    + " Use the language of the conversation. Reply with the summary only."
)
SUMMARY_PROMPT = (
    "You write the context summary of a conversation: a brief the assistant is given at"
    " every turn so it keeps the essentials in mind. Cover the user's goals and preferences,"
    " key facts, decisions and open questions, concisely. "
    + IDENTIFIER_RULE
    + " Use the language of the conversation. Reply with the summary only."
)
#: Share of the context window one summarising request may fill.
BUDGET_SHARE = 0.5
MAX_SPLITS = 3
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_WORDS = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True, slots=True)
class SummaryJob:
    """One summarising call: the prompt, the summary so far (an earlier
    checkpoint) and the user's extra instructions (``/compact …``)."""

    model: str
    system: str
    previous: str = ""
    instructions: str = ""
    #: the request's reasoning level (``least_reasoning`` of the model's)
    reasoning: Reasoning | None = None


def transcript_lines(
    messages: Sequence[Message], attachments: Attachments | None = None
) -> list[str]:
    """``User: …`` / ``Assistant: …`` lines of the messages a request would replay."""
    who = {"user": "User", "assistant": "Assistant"}
    return [f"{who[m.role]}: {m.content}" for _, m in history_entries(messages, attachments)]


def summary_request(job: SummaryJob, previous: str, lines: Sequence[str]) -> ChatRequest:
    parts = []
    if previous.strip():
        parts.append(f"[Summary of the conversation before this part]\n{previous.strip()}")
    parts.append("[Conversation]\n" + "\n\n".join(lines))
    if job.instructions.strip():
        parts.append(f"[Instructions from the user for this summary]\n{job.instructions.strip()}")
    return ChatRequest(
        model=job.model,
        messages=(ChatMessage("system", job.system), ChatMessage("user", "\n\n".join(parts))),
        reasoning=job.reasoning,
    )


async def complete_text(provider: ChatProvider, request: ChatRequest) -> str:
    """The whole text answer of one streamed request (reasoning left out).
    An answer the server cut at its length limit raises: a summary missing
    its end would stand in for the conversation as if it were whole."""
    parts: list[str] = []
    ended: str | None = None
    async for event in provider.stream_chat(request):
        if isinstance(event, TextDelta):
            parts.append(event.text)
        elif isinstance(event, StreamDone):
            ended = event.finish_reason
    if ended in CUT_AT_LENGTH:
        raise MiraError(
            "The summary was cut off at the model's answer length limit; nothing was changed.",
            hint="Try again with shorter instructions, or use a model that writes longer answers.",
        )
    return _THINK.sub("", "".join(parts)).strip()


async def summarise(
    provider: ChatProvider,
    job: SummaryJob,
    lines: Sequence[str],
    *,
    tokens: TokenCounter,
    window: int | None,
) -> str:
    """The summary of ``lines`` (folded into ``job.previous``); raises the
    provider's error, or ``MiraError`` for an empty answer."""
    budget = int(window * BUDGET_SHARE) if window else None
    summary = job.previous
    for chunk in _chunks(lines, budget, tokens):
        summary = await _fold(provider, job, summary, chunk, 0)
    return summary


async def _fold(
    provider: ChatProvider, job: SummaryJob, previous: str, chunk: list[str], depth: int
) -> str:
    try:
        text = await complete_text(provider, summary_request(job, previous, chunk))
    except ContextOverflowError:
        if len(chunk) < 2 or depth >= MAX_SPLITS:
            raise
        log.info("summary chunk of %d lines too long; halving it", len(chunk))
        half = len(chunk) // 2
        previous = await _fold(provider, job, previous, chunk[:half], depth + 1)
        return await _fold(provider, job, previous, chunk[half:], depth + 1)
    if not text:
        raise MiraError("The model returned an empty summary.", hint="Retry, or try another model.")
    return text


def _chunks(lines: Sequence[str], budget: int | None, tokens: TokenCounter) -> list[list[str]]:
    """Consecutive lines grouped under ``budget`` tokens (a longer line is cut)."""
    if budget is None:
        return [list(lines)]
    chunks: list[list[str]] = [[]]
    used = 0
    for line in lines:
        for piece in _pieces(line, budget, tokens):
            size = tokens.count(piece)
            if chunks[-1] and used + size > budget:
                chunks.append([])
                used = 0
            chunks[-1].append(piece)
            used += size
    return [c for c in chunks if c]


def _pieces(line: str, budget: int, tokens: TokenCounter) -> list[str]:
    """A line cut under ``budget`` tokens at spaces, so a URL or a path stays
    whole (only a single word longer than the budget is cut inside)."""
    if tokens.count(line) <= budget:
        return [line]
    pieces: list[str] = [""]
    used = 0
    for word in _WORDS.findall(line):
        size = tokens.count(word)
        if size > budget:
            step = math.ceil(len(word) / math.ceil(size / budget))
            pieces += [word[i : i + step] for i in range(0, len(word), step)]
            pieces.append("")
            used = 0
            continue
        if pieces[-1] and used + size > budget:
            pieces.append("")
            used = 0
        pieces[-1] += word
        used += size
    return [p for p in pieces if p]
