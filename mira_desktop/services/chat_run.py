"""One answer being produced: ``ChatRun`` streams from the provider, persists by the
rules of PRODUCT.md §2 and pushes chat events into a queue for the consumer.

Persistence, in order:
* existing thread: the user message is written before the provider is called;
* new draft: nothing is written until the first active content (text, thinking
  or a tool call); then thread + user message + streaming answer are written in
  one transaction;
* while streaming, the answer row is updated at most every ``flush_interval``
  seconds, in the background (a write never holds up the stream);
* at the end the row gets its final status (complete / stopped / failed), the
  text and thinking so far, usage (reported or estimated) and the error.

Writes that must not be lost to a Stop are shielded: a cancellation arriving
during one lets it finish, then takes effect."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.errors import MalformedStreamError, MiraError
from ..core.events import (
    ACTIVE_CONTENT,
    AssistantMessageStarted,
    ChatEvent,
    Completed,
    Failed,
    RunStarted,
    Stopped,
    StreamDone,
    TextDelta,
    ThinkingDelta,
    ThreadCreated,
    ToolCallDelta,
    UsageReported,
    UserMessageSaved,
)
from ..core.ids import utc_now
from ..core.models import ChatRequest, Message, MessageRole, MessageStatus, Thread, Usage
from ..core.ports import ChatProvider, TokenCounter
from .context import stop_thinking_messages

if TYPE_CHECKING:
    from ..storage.store import Store

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


@dataclass
class _State:
    text: str = ""
    thinking: str = ""
    thinking_started: float | None = None
    thinking_ms: int | None = None
    reported: UsageReported = field(default_factory=UsageReported)
    persisted: bool = False
    done: bool = False


class ChatRun:
    def __init__(
        self,
        plan: RunPlan,
        store: Store,
        tokens: TokenCounter,
        *,
        flush_interval: float = 0.5,
    ) -> None:
        self.plan = plan
        self.thread_id = plan.thread.id
        self.queue: asyncio.Queue[ChatEvent] = asyncio.Queue()
        self._store = store
        self._tokens = tokens
        self._flush_interval = flush_interval
        self._state = _State()
        self._last_flush = 0.0
        self._flush_task: asyncio.Task[None] | None = None
        self._stop_thinking = False
        self._user_saved = False
        self._stream_task: asyncio.Task[None] | None = None
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(
            self._main(), name=f"chat:{self.thread_id}"
        )

    def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def stop_thinking(self) -> bool:
        """End the reasoning phase; the run then asks for an answer from it."""
        s = self._state
        if s.text or not s.thinking or self._stream_task is None or self._stream_task.done():
            return False
        self._stop_thinking = True
        self._stream_task.cancel()
        return True

    def _user_written(self) -> None:
        self._user_saved = True
        self._emit(UserMessageSaved(self.plan.user_message))

    def _emit(self, event: ChatEvent) -> None:
        self.queue.put_nowait(event)

    async def _main(self) -> None:
        plan = self.plan
        self._emit(
            RunStarted(
                thread_id=self.thread_id,
                user_message=plan.user_message,
                assistant_message_id=plan.assistant.id,
                provider=plan.provider_name,
                model=plan.request.model,
                persisted=not plan.is_draft,
                kind=plan.kind,
                note=(plan.assistant.data or {}).get("note"),
                escalated_from=(plan.assistant.data or {}).get("escalated_from"),
            )
        )
        try:
            if not plan.is_draft and plan.write_user:
                await _shielded(self._store.add_message(plan.user_message), self._user_written)
            elif not plan.is_draft:
                self._user_saved = True  # answering an existing message again
            await self._stream(plan.request)
            if not self._state.done:
                raise MalformedStreamError("The stream ended before the answer was complete.")
            if not self._state.text and not self._state.thinking:
                raise _EmptyAnswer()
        except asyncio.CancelledError:
            await self._finish(MessageStatus.STOPPED, None)
        except _EmptyAnswer:
            err = MiraError(
                "The model returned an empty answer.", hint="Retry, or try another model."
            )
            await self._finish(MessageStatus.FAILED, {**err.to_dict(), "code": "empty_answer"})
        except MiraError as exc:
            await self._finish(MessageStatus.FAILED, exc.to_dict())
        except Exception as exc:  # a bug: keep the user's text and say so
            log.exception("chat run failed unexpectedly")
            err = MiraError(f"Unexpected error: {exc}", hint="See the log file in the data folder.")
            await self._finish(MessageStatus.FAILED, {**err.to_dict(), "code": "internal"})
        else:
            await self._finish(MessageStatus.COMPLETE, None)

    async def _stream(self, request: ChatRequest) -> None:
        while True:
            self._stream_task = asyncio.ensure_future(self._consume(request))
            try:
                await self._stream_task
                return
            except asyncio.CancelledError:
                if not self._stop_thinking or self._current_task_cancelling():
                    self._stream_task.cancel()
                    raise
                self._stop_thinking = False
                self._end_thinking()
                request = replace(
                    request, messages=stop_thinking_messages(request.messages, self._state.thinking)
                )

    def _current_task_cancelling(self) -> bool:
        task = asyncio.current_task()
        return bool(task and task.cancelling())

    async def _consume(self, request: ChatRequest) -> None:
        async for event in self.plan.provider.stream_chat(request):
            if isinstance(event, ACTIVE_CONTENT) and not self._state.persisted:
                if isinstance(event, ToolCallDelta) or event.text:
                    await self._persist_start()
            self._apply(event)
            self._emit(event)
            self._maybe_flush()

    def _apply(self, event: ChatEvent) -> None:
        s = self._state
        if isinstance(event, ThinkingDelta):
            if s.thinking_started is None:
                s.thinking_started = time.monotonic()
            s.thinking += event.text
        elif isinstance(event, TextDelta):
            if event.text:
                self._end_thinking()
            s.text += event.text
        elif isinstance(event, UsageReported):
            s.reported = event
        elif isinstance(event, StreamDone):
            s.done = True

    def _end_thinking(self) -> None:
        s = self._state
        if s.thinking_started is not None and s.thinking_ms is None:
            s.thinking_ms = int((time.monotonic() - s.thinking_started) * 1000)

    async def _persist_start(self) -> None:
        plan = self.plan

        def written() -> None:
            self._state.persisted = True
            self._last_flush = time.monotonic()
            if plan.is_draft:
                self._emit(ThreadCreated(plan.thread))
                self._emit(UserMessageSaved(plan.user_message))
            self._emit(AssistantMessageStarted(plan.assistant))

        if plan.is_draft:
            write = self._store.commit_draft(
                plan.thread, plan.user_message, plan.assistant, plan.owner
            )
        else:
            write = self._store.add_message(plan.assistant, owner=plan.owner)
        await _shielded(write, written)

    def _maybe_flush(self) -> None:
        now = time.monotonic()
        if now - self._last_flush < self._flush_interval:
            return
        if self._flush_task is not None and not self._flush_task.done():
            return
        self._last_flush = now
        s = self._state
        self._flush_task = asyncio.ensure_future(
            self._store.update_stream(
                self.plan.assistant.id, text=s.text, thinking=s.thinking, thinking_ms=s.thinking_ms
            )
        )

    async def _finish(self, status: MessageStatus, error: dict[str, Any] | None) -> None:
        """Write the outcome and emit the terminal event — always exactly one,
        even when the write itself fails (the error then says so)."""
        self._end_thinking()
        usage = Usage()
        try:
            usage = await self._usage()
            await self._write_outcome(status, error, usage)
        except Exception as exc:
            log.exception("could not save the outcome of a chat run")
            status = MessageStatus.FAILED
            error = (
                exc.to_dict()
                if isinstance(exc, MiraError)
                else {"code": "internal", "message": f"Could not save the answer: {exc}"}
            )
        self._emit(self._terminal(status, error, usage))

    async def _write_outcome(
        self, status: MessageStatus, error: dict[str, Any] | None, usage: Usage
    ) -> None:
        s, plan = self._state, self.plan
        if s.persisted:
            if self._flush_task is not None:
                await asyncio.gather(self._flush_task, return_exceptions=True)
            await _shielded(
                self._store.update_stream(
                    plan.assistant.id,
                    text=s.text,
                    thinking=s.thinking,
                    thinking_ms=s.thinking_ms,
                    status=str(status),
                    usage=usage,
                    error=error,
                )
            )
        elif not plan.is_draft and self._user_saved:
            # Existing thread, nothing streamed: keep the outcome visible (stopped
            # or failed with its error) so a reload shows what happened.
            empty = replace(plan.assistant, status=status, error=error, usage=usage)

            def written() -> None:
                s.persisted = True
                self._emit(AssistantMessageStarted(empty))

            await _shielded(self._store.add_message(empty), written)

    def _terminal(
        self, status: MessageStatus, error: dict[str, Any] | None, usage: Usage
    ) -> Completed | Stopped | Failed:
        s, plan = self._state, self.plan
        written = s.persisted
        message = replace(
            plan.assistant,
            text=s.text,
            thinking=s.thinking,
            thinking_ms=s.thinking_ms,
            status=status,
            usage=usage,
            error=error,
            updated_at=utc_now(),
        )
        cls: type[Completed | Stopped | Failed] = Failed
        if status is MessageStatus.COMPLETE:
            cls = Completed
        elif status is MessageStatus.STOPPED:
            cls = Stopped
        return cls(
            thread_id=plan.thread.id if written else None,
            message_id=plan.assistant.id if written else None,
            text=s.text,
            thinking=s.thinking,
            usage=usage,
            error=error,
            message=message if written else None,
        )

    async def _usage(self) -> Usage:
        s, reported = self._state, self._state.reported
        prompt = reported.prompt_tokens
        completion = reported.completion_tokens
        reasoning = reported.reasoning_tokens
        est_prompt = prompt is None
        est_completion = completion is None
        est_reasoning = reasoning is None and bool(s.thinking)
        if est_prompt or est_completion or est_reasoning:
            counted = await asyncio.to_thread(self._estimate)
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

    def _estimate(self) -> tuple[int, int, int]:
        s = self._state
        prompt = sum(4 + self._tokens.count(m.content) for m in self.plan.request.messages) + 3
        thinking = self._tokens.count(s.thinking)
        return prompt, self._tokens.count(s.text) + thinking, thinking


class _EmptyAnswer(Exception):
    pass


async def _shielded(awaitable: Awaitable[T], after: Callable[[], None] | None = None) -> T:
    """Await a write to completion even if the run is cancelled meanwhile; the
    cancellation is re-raised once the write is done. ``after`` runs when the
    write succeeded, cancelled or not (so the run knows what is on disk)."""
    task = asyncio.ensure_future(awaitable)
    try:
        result = await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.gather(task, return_exceptions=True)
        if after is not None and not task.cancelled() and task.exception() is None:
            after()
        raise
    if after is not None:
        after()
    return result


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
