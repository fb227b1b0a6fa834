"""What a chat run (``chat_run.py``) is given and the helpers that need none of
its state: the :class:`RunPlan`, shielded writes, the new answer row, the
terminal event of an answer, and the usage of a finished answer (reported by
the provider, else estimated with the shipped tiktoken encoding and flagged)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.errors import MiraError, StorageError, worded
from ..core.events import Completed, Failed, Stopped, UsageReported
from ..core.ids import utc_now
from ..core.models import ChatRequest, Message, MessageRole, MessageStatus, Thread, Usage
from ..core.ports import ChatProvider, TokenCounter
from .turn_context import TurnContext, estimate_tokens

if TYPE_CHECKING:
    from ..storage.context_store import PendingPart
    from .agent.runner import AgentLoop

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class RunPlan:
    """Everything a run needs, resolved by ``ChatService`` before it starts."""

    thread: Thread
    is_draft: bool
    user_message: Message
    assistant: Message
    request: ChatRequest
    provider_name: str
    provider: ChatProvider
    owner: str
    #: "send", "edit" or "regenerate" (shown in ``RunStarted``).
    kind: str = "send"
    #: False when ``user_message`` already exists (a regeneration answers it again).
    write_user: bool = True
    #: attachment parts written with the user message: (pending id or None, attachment)
    parts: tuple[PendingPart, ...] = ()
    #: the turn's context: rebuilds ``request`` after an automatic compaction
    context: TurnContext | None = None
    #: the agent answering (PRODUCT.md §11; it is also ``provider``), or None
    agent: AgentLoop | None = None


class EmptyAnswer(Exception):
    """The stream ended properly but carried no answer text; ``thought``: it
    carried reasoning (kept with the failed answer)."""

    def __init__(self, *, thought: bool = False) -> None:
        super().__init__()
        self.thought = thought


EMPTY_ANSWER = "The model returned an empty answer."
EMPTY_ANSWER_HINT = "Retry, or try another model."
ONLY_THOUGHT = (
    "The model only reasoned and gave no answer (it may have run out of tokens while thinking)."
)
ONLY_THOUGHT_HINT = "Retry, allow longer answers (the role's max tokens), or try another model."


async def shielded(awaitable: Awaitable[T], after: Callable[[], None] | None = None) -> T:
    """Await a write to completion even if the run is cancelled meanwhile, as
    many times as it is (a second Stop while the first is being saved); the
    cancellation is re-raised once the write is done. ``after`` runs when the
    write succeeded, cancelled or not (so the run knows what is on disk)."""
    task = asyncio.ensure_future(awaitable)
    cancelled: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.wait((task,))  # cancelling the wait leaves the write running
        except asyncio.CancelledError as exc:
            cancelled = exc
    if after is not None and not task.cancelled() and task.exception() is None:
        after()
    if cancelled is not None:
        raise cancelled
    return task.result()


def new_assistant(
    thread_id: str, parent_id: str, message_id: str, model: str, provider: str
) -> Message:
    now = utc_now()
    return Message(
        id=message_id,
        thread_id=thread_id,
        role=MessageRole.ASSISTANT,
        text="",
        created_at=now,
        updated_at=now,
        parent_id=parent_id,
        status=MessageStatus.STREAMING,
        model=model,
        provider=provider,
    )


def finished_answer(
    assistant: Message,
    text: str,
    thinking: str,
    thinking_ms: int | None,
    status: MessageStatus,
    usage: Usage,
    error: dict[str, Any] | None,
) -> Message:
    """The answer row as a run leaves it."""
    return replace(
        assistant,
        text=text,
        thinking=thinking,
        thinking_ms=thinking_ms,
        status=status,
        usage=usage,
        error=error,
        updated_at=utc_now(),
    )


def terminal_event(
    answer: Message, *, written: bool, unsaved: Message | None = None
) -> Completed | Stopped | Failed:
    """The one terminal event of a run whose answer ended as ``answer``; ids
    and the message only when it was written (a draft that never started);
    ``unsaved``: the outcome that could not be written."""
    cls: type[Completed | Stopped | Failed] = Failed
    if answer.status is MessageStatus.COMPLETE:
        cls = Completed
    elif answer.status is MessageStatus.STOPPED:
        cls = Stopped
    return cls(
        thread_id=answer.thread_id if written else None,
        message_id=answer.id if written else None,
        text=answer.text,
        thinking=answer.thinking,
        usage=answer.usage or Usage(),
        error=answer.error,
        message=answer if written else None,
        unsaved=unsaved,
    )


async def final_usage(
    reported: UsageReported,
    *,
    tokens: TokenCounter,
    request: ChatRequest,
    text: str,
    thinking: str,
) -> Usage:
    """The counts the provider reported, the missing ones estimated (flagged)."""
    prompt = reported.prompt_tokens
    completion = reported.completion_tokens
    reasoning = reported.reasoning_tokens
    est_prompt = prompt is None
    est_completion = completion is None
    est_reasoning = reasoning is None and bool(thinking)
    if est_prompt or est_completion or est_reasoning:
        counted = await asyncio.to_thread(_estimate, tokens, request, text, thinking)
        prompt = counted[0] if prompt is None else prompt
        completion = counted[1] if completion is None else completion
        reasoning = counted[2] if reasoning is None else reasoning
    return Usage(
        prompt_tokens=prompt or 0,
        completion_tokens=completion or 0,
        reasoning_tokens=reasoning or 0,
        counts_estimated=est_prompt or est_completion,
        reasoning_estimated=est_reasoning,
    )


def _estimate(
    tokens: TokenCounter, request: ChatRequest, text: str, thinking: str
) -> tuple[int, int, int]:
    prompt = estimate_tokens(tokens, request.messages)
    reasoning = tokens.count(thinking)
    return prompt, tokens.count(text) + reasoning, reasoning


def unsaved_error(exc: Exception, has_answer: bool) -> dict[str, Any]:
    """The error of a run whose outcome could not be written. With an answer
    on screen it says so — the database does not hold it; the window keeps it
    while it runs (``"unsaved": True``) — keeping the cause's code (a full
    disk stays "storage", whose hint says what to do)."""
    cause = exc if isinstance(exc, MiraError) else None
    if cause is None:
        cause = worded(MiraError, "Could not save the answer: {detail}", {"detail": exc})
    code = cause.code if isinstance(exc, MiraError) else "internal"
    if has_answer and isinstance(cause, StorageError) and cause.disk_full:
        cause = worded(MiraError, UNSAVED_DISK_FULL, {}, hint=cause.hint)
    elif has_answer:
        cause = worded(MiraError, UNSAVED, {"cause": cause.message}, hint=cause.hint)
    unsaved = {"unsaved": True} if has_answer else {}
    return {**cause.to_dict(), "code": code, **unsaved}


UNSAVED_DISK_FULL = (
    "This answer could not be saved: the disk is full. Free some space and open "
    "this chat again to save it; closing Mira before that loses it."
)
UNSAVED = (
    "This answer could not be saved ({cause}). Open this chat again to save it; "
    "closing Mira before that loses it."
)
