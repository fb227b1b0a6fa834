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

Deltas are merged per event-loop turn before they are queued (``DeltaCoalescer``):
a fast stream costs the consumer one event per turn, not one per token.

Writes that must not be lost to a Stop are shielded: a cancellation arriving
during one lets it finish, then takes effect.

The user message is written together with its attachment parts (the composer's
pending references become the message's in the same transaction). A draft that
fails or stops before content writes nothing, so its pending references stay
with the composer, which gets the chips back and discards them when the user
removes them (``AttachmentService.discard``; the CLI discards at exit, and
``AttachmentService.collect`` clears what a crash left after a day).

Automatic compaction (``turn_context.py``): before streaming, a request above
the model's threshold is compacted first; a ``ContextOverflowError`` before any
content compacts and retries once. Both emit :class:`Compacting`; the card is
written after the answer and announced with :class:`Compacted`, before the
terminal event."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.agent import (
    ProgressChanged,
    SourcesFound,
    ToolCard,
    ToolCardChanged,
    ToolStatus,
    expired,
)
from ..core.errors import ContextOverflowError, MalformedStreamError, MiraError
from ..core.events import (
    CUT_OFF_KEY,
    AssistantMessageStarted,
    ChatEvent,
    Compacted,
    Compacting,
    Completed,
    DeltaCoalescer,
    Failed,
    RunStarted,
    Stopped,
    TextDelta,
    ThinkingDelta,
    ThinkingSigned,
    ThreadCreated,
    ToolCallDelta,
    UserMessageSaved,
)
from ..core.ids import utc_now
from ..core.models import ChatRequest, Message, MessageStatus, Reasoning, Usage
from ..core.ports import TokenCounter
from .context import stop_thinking_messages
from .pacing import LoopPacer
from .run_state import RunState
from .run_support import (
    EMPTY_ANSWER,
    EMPTY_ANSWER_HINT,
    ONLY_THOUGHT,
    ONLY_THOUGHT_HINT,
    EmptyAnswer,
    RunPlan,
    final_usage,
    finished_answer,
    new_assistant,
    shielded,
    terminal_event,
    unsaved_error,
)

if TYPE_CHECKING:
    from ..storage.context_store import ContextStore
    from ..storage.store import Store

log = logging.getLogger(__name__)

__all__ = ["ChatRun", "RunPlan", "new_assistant"]


class ChatRun:
    def __init__(
        self,
        plan: RunPlan,
        store: Store,
        tokens: TokenCounter,
        *,
        writer: ContextStore,
        flush_interval: float = 0.5,
    ) -> None:
        self.plan = plan
        self.thread_id = plan.thread.id
        self.queue: asyncio.Queue[ChatEvent] = asyncio.Queue()
        self._store = store
        self._writer = writer
        self._tokens = tokens
        self._request = plan.request
        self._flush_interval = flush_interval
        self._state = RunState()
        self._last_flush = 0.0
        self._flush_task: asyncio.Task[None] | None = None
        self._stop_thinking = False
        self._user_saved = False
        self._stream_task: asyncio.Task[None] | None = None
        self._deltas = DeltaCoalescer()
        self._deltas_due = False
        #: the agent's tool cards (PRODUCT.md §11), by call id, in call order
        self._cards: dict[str, ToolCard] = {}
        self._progress: list[dict[str, Any]] | None = None  # its last update_progress
        self._sources: dict[str, Any] = {}  # the knowledge base the agent searched
        self._ending = False  # the outcome is being written: no more flushes
        self._began = False  # ``_main`` has taken its first step
        self._stopping = False  # a Stop was asked (the run ends ``stopped``)
        self._terminal_sent = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(
            self._main(), name=f"chat:{self.thread_id}"
        )
        self.task.add_done_callback(self._task_done)

    def stop(self) -> None:
        """Stop the run; its answer ends ``stopped``. Only the first Stop
        counts: one asked again while the run winds down (a double click,
        Ctrl+C twice, Stop then Enter) would only cut the writing of its
        outcome short. A Stop before the run's first step (or before
        ``start``) takes effect when it begins: an existing thread's
        question is still written, then nothing is asked."""
        if self._stopping or (self.task is not None and self.task.done()):
            return
        self._stopping = True
        if self._began and self.task is not None:
            self.task.cancel()

    def stop_thinking(self) -> bool:
        """End the reasoning phase; the run then asks for an answer from it."""
        self._flush_deltas()
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
        if self._deltas:
            self._flush_deltas()
        self.queue.put_nowait(event)

    def _add_delta(self, event: TextDelta | ThinkingDelta) -> None:
        """Hold a delta until the loop turn ends (or another event goes out)."""
        self._deltas.add(event)
        if not self._deltas_due:
            self._deltas_due = True
            asyncio.get_running_loop().call_soon(self._flush_deltas)

    def _flush_deltas(self) -> None:
        """Apply and queue the held deltas, merged."""
        self._deltas_due = False
        if not self._deltas:
            return
        for event in self._deltas.take():
            self._state.apply(event)
            self.queue.put_nowait(event)
        self._maybe_flush()

    async def _main(self) -> None:
        self._began = True
        plan = self.plan
        # The event goes out with the next loop turn, after this task has set
        # off the user message's write or the request: the window builds the
        # question's row while the server starts answering, not before.
        asyncio.get_running_loop().call_soon(
            self._emit,
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
            ),
        )
        try:
            if not plan.is_draft and plan.write_user:
                write = self._writer.add_user_message(plan.user_message, plan.parts)
                await shielded(write, self._user_written)
            elif not plan.is_draft:
                self._user_saved = True  # answering an existing message again
            if self._stopping:  # stopped before it began: as a Stop before any content
                raise asyncio.CancelledError
            await self._answer()
            if not self._state.done:
                raise MalformedStreamError("The stream ended before the answer was complete.")
            self._flush_deltas()
            self._state.sort_unopened_think()
            if not self._state.text and not self._cards and self._progress is None:
                # nothing to read, even if it reasoned
                raise EmptyAnswer(thought=bool(self._state.thinking))
        except asyncio.CancelledError:
            await self._finish(MessageStatus.STOPPED, None)
        except EmptyAnswer as empty:
            if empty.thought:  # its reasoning is kept with the failed answer
                err = MiraError(ONLY_THOUGHT, hint=ONLY_THOUGHT_HINT)
            else:
                err = MiraError(EMPTY_ANSWER, hint=EMPTY_ANSWER_HINT)
            await self._finish(MessageStatus.FAILED, {**err.to_dict(), "code": "empty_answer"})
        except MiraError as exc:
            await self._finish(MessageStatus.FAILED, exc.to_dict())
        except Exception as exc:  # a bug: keep the user's text and say so
            log.exception("chat run failed unexpectedly")
            err = MiraError(f"Unexpected error: {exc}", hint="See the log file in the data folder.")
            await self._finish(MessageStatus.FAILED, {**err.to_dict(), "code": "internal"})
        else:
            await self._finish(MessageStatus.COMPLETE, None)

    async def _answer(self) -> None:
        """Stream the answer, compacting first when the request is over the
        model's threshold, and once more (with one retry) on an overflow."""
        context = self.plan.context
        if context is not None and context.threshold_tokens() is not None:
            if await asyncio.to_thread(context.over_threshold, self._request):
                self._request = await self._auto_compact("pre_turn") or self._request
        try:
            await self._stream(self._request)
        except ContextOverflowError:
            self._flush_deltas()
            s = self._state
            if s.persisted or s.text or s.thinking:
                raise
            retry = await self._auto_compact("overflow")
            if retry is None:
                raise
            self._request = retry
            await self._stream(retry)

    async def _auto_compact(self, trigger: str) -> ChatRequest | None:
        """The request rebuilt after an automatic compaction, or None when
        there is nothing to compact or the summary could not be made."""
        context = self.plan.context
        if context is None or not context.compactable():
            return None
        self._emit(Compacting(self.thread_id, trigger))
        try:
            return await context.compact(trigger)
        except MiraError as exc:
            log.warning("automatic compaction (%s) failed: %s", trigger, exc)
            return None

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
                self._flush_deltas()
                self._state.end_thinking()
                request = replace(  # an answer from what it has, with the least reasoning
                    request,  # (no level asked for: none now either, no field it never had)
                    messages=stop_thinking_messages(request.messages, self._state.thinking),
                    reasoning=Reasoning.OFF if request.reasoning is not None else None,
                )
                self._request = request

    def _current_task_cancelling(self) -> bool:
        task = asyncio.current_task()
        return bool(task and task.cancelling())

    async def _consume(self, request: ChatRequest) -> None:
        pacer = LoopPacer()
        state = self._state
        stream = self.plan.provider.stream_chat(request)
        try:
            async for event in stream:
                await pacer.tick()
                if isinstance(event, TextDelta | ThinkingDelta):
                    if not event.text:
                        continue
                    if not state.persisted:
                        await self._persist_start(event)
                        continue
                    self._add_delta(event)
                    continue
                if isinstance(event, ToolCardChanged | ProgressChanged):
                    if not state.persisted:
                        await self._persist_start()
                    live = False  # a running command's output: written with the text
                    if isinstance(event, ToolCardChanged):
                        card = event.card
                        live = card.status is ToolStatus.RUNNING and bool(card.output)
                        self._cards[card.call_id] = card
                    else:
                        self._progress = [step.to_dict() for step in event.steps]
                    self._emit(event)
                    self._maybe_flush(force=not live)
                    continue
                if isinstance(event, SourcesFound):
                    self._sources = event.data  # written with the next flush
                    continue
                if isinstance(event, ThinkingSigned):
                    continue  # the agent's, for its next round; the text came as deltas
                if isinstance(event, ToolCallDelta) and not state.persisted:
                    await self._persist_start()
                self._state.apply(event)
                self._emit(event)
                self._maybe_flush()
        finally:  # closed now, not when collected: a stopped agent stops its tool
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()

    async def _persist_start(self, first: TextDelta | ThinkingDelta | None = None) -> None:
        """Write the answer's row (and a draft's thread and question) before
        its first text goes out; that text (``first``) goes out right after
        the row's event, in the same loop turn, so the window shows the row
        and its first words in one frame."""
        plan = self.plan

        def written() -> None:
            self._state.persisted = True
            self._last_flush = time.monotonic()
            if plan.is_draft:
                self._emit(ThreadCreated(plan.thread))
                self._emit(UserMessageSaved(plan.user_message))
            self._emit(AssistantMessageStarted(plan.assistant))
            if first is not None:
                self._state.apply(first)
                self.queue.put_nowait(first)

        if plan.is_draft:
            write = self._writer.commit_draft(
                plan.thread, plan.user_message, plan.assistant, plan.owner, plan.parts
            )
        else:
            write = self._store.add_message(plan.assistant, owner=plan.owner)
        await shielded(write, written)

    def _maybe_flush(self, *, force: bool = False) -> None:
        """Write the streaming answer's state in the background, at most every
        ``flush_interval`` — or now (``force``: a tool card changed), unless a
        write is already on its way."""
        now = time.monotonic()
        if self._ending or (not force and now - self._last_flush < self._flush_interval):
            return
        if self._flush_task is not None and not self._flush_task.done():
            if force:  # the card's state goes out right after the write on its way
                self._flush_task.add_done_callback(lambda _: self._maybe_flush(force=True))
            return
        self._last_flush = now
        s = self._state
        self._flush_task = asyncio.ensure_future(
            self._store.update_stream(
                self.plan.assistant.id,
                text=s.text,
                thinking=s.thinking,
                thinking_ms=s.thinking_ms,
                data=self._data(),
            )
        )

    def _data(self, *, ended: bool = False) -> dict[str, Any] | None:
        """The answer's data with its tool cards and progress (None without
        either); ``ended``: a card still waiting or running expired with the run."""
        agent_loop = self.plan.agent
        planning = agent_loop is not None and agent_loop.planning
        if ended and agent_loop is not None:  # calls stopped after changing files
            self._cards.update(agent_loop.stopped_cards)
        cut = {CUT_OFF_KEY: self._state.cut_off} if ended and self._state.cut_off else {}
        if not self._cards and self._progress is None and not planning:
            return {**(self.plan.assistant.data or {}), **self._sources, **cut} if cut else None
        cards = [expired(c) if ended else c for c in self._cards.values()]
        agent: dict[str, Any] = {"tools": [c.to_dict() for c in cards]}
        if self._progress is not None:
            agent["progress"] = self._progress
        if planning:  # a proposed plan (PRODUCT.md §11)
            agent["plan"] = True
        largest = self._state.reported.largest_prompt_tokens
        if largest is not None:  # the context its largest round sent (the ring's peak)
            agent["context_tokens"] = largest
        return {**(self.plan.assistant.data or {}), **self._sources, "agent": agent, **cut}

    async def _finish(self, status: MessageStatus, error: dict[str, Any] | None) -> None:
        """Write the outcome and emit the terminal event — always exactly one,
        even when the write itself fails (the error then says so). The work
        runs to its end whatever cancellations arrive meanwhile (they are
        re-raised after it): a half-written outcome would leave the answer
        ``streaming`` and its consumer waiting for an end that never comes."""
        self._flush_deltas()
        self._ending = True
        self._state.end_thinking()
        await shielded(self._conclude(status, error))

    async def _conclude(self, status: MessageStatus, error: dict[str, Any] | None) -> None:
        usage = Usage()
        try:
            s = self._state
            usage = await final_usage(
                s.reported,
                tokens=self._tokens,
                request=self._request,
                text=s.text,
                thinking=s.thinking,
            )
            await self._write_outcome(status, error, usage)
            await self._write_card()
        except Exception as exc:
            log.exception("could not save the outcome of a chat run")
            s = self._state
            kept = bool(s.text or s.thinking)
            unsaved = self._ended(status, error, usage) if kept and s.persisted else None
            status = MessageStatus.FAILED
            error = unsaved_error(exc, kept)
            self._emit_terminal(self._terminal(status, error, usage, unsaved=unsaved))
            return
        self._emit_terminal(self._terminal(status, error, usage))

    def _emit_terminal(self, event: Completed | Stopped | Failed) -> None:
        self._terminal_sent = True
        self._emit(event)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        """The last guard of "exactly one terminal event": a run task that
        ended without one (cancelled before its first step by the loop's
        shut-down, or a bug) still ends its consumer's wait, as stopped."""
        if self._terminal_sent:
            return
        log.error("chat run of %s ended without its outcome", self.thread_id)
        self._flush_deltas()
        self._emit_terminal(self._terminal(MessageStatus.STOPPED, None, Usage()))

    async def _write_outcome(
        self, status: MessageStatus, error: dict[str, Any] | None, usage: Usage
    ) -> None:
        s, plan = self._state, self.plan
        if s.persisted:
            if self._flush_task is not None:
                await asyncio.gather(self._flush_task, return_exceptions=True)
            await shielded(
                self._store.update_stream(
                    plan.assistant.id,
                    text=s.text,
                    thinking=s.thinking,
                    thinking_ms=s.thinking_ms,
                    status=str(status),
                    usage=usage,
                    error=error,
                    data=self._data(ended=True),
                )
            )
        elif not plan.is_draft and self._user_saved:
            # Existing thread, nothing streamed: keep the outcome visible (stopped
            # or failed with its error) so a reload shows what happened.
            empty = replace(plan.assistant, status=status, error=error, usage=usage)

            def written() -> None:
                s.persisted = True
                self._emit(AssistantMessageStarted(empty))

            await shielded(self._store.add_message(empty), written)

    async def _write_card(self) -> None:
        """The card of an automatic compaction, after the turn's answer."""
        context = self.plan.context
        if context is None or context.card is None or not self._state.persisted:
            return
        now = utc_now()
        card = replace(
            context.card, parent_id=self.plan.assistant.id, created_at=now, updated_at=now
        )
        try:
            await shielded(self._store.add_message(card))
        except MiraError:
            log.warning("could not save the compaction card of %s", self.thread_id, exc_info=True)
            return
        self._emit(Compacted(self.thread_id, card, context.trigger or "auto"))

    def _ended(self, status: MessageStatus, error: dict[str, Any] | None, usage: Usage) -> Message:
        s = self._state
        answer = finished_answer(
            self.plan.assistant, s.text, s.thinking, s.thinking_ms, status, usage, error
        )
        data = self._data(ended=True)
        return answer if data is None else replace(answer, data=data)

    def _terminal(
        self,
        status: MessageStatus,
        error: dict[str, Any] | None,
        usage: Usage,
        *,
        unsaved: Message | None = None,
    ) -> Completed | Stopped | Failed:
        return terminal_event(
            self._ended(status, error, usage), written=self._state.persisted, unsaved=unsaved
        )
