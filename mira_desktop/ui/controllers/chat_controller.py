"""``ChatController``: runs ``ChatService.send`` (and the tree's other ways to
start a run: ``edit``, ``regenerate``, ``redirect``) for the window and re-emits
their events as Qt signals, keyed by the thread (or draft) id.

A redirect (busy input) starts a new run for a key whose old run is still
winding down: each run keeps its own :class:`LiveRun`, so the old run's last
events still arrive (its answer ends ``stopped``) while ``live(key)`` and
``is_running(key)`` already follow the new one.

It also keeps each run's live state (the answer and thinking so far, and when
each began), so a window that switches away from a streaming thread and back
shows the text that arrived meanwhile, not only what the coalesced database
writes hold, and a Thinking card that keeps counting from when it started."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ...core.models import Message, MessageRole, MessageStatus
from ...services.pacing import LoopPacer

if TYPE_CHECKING:  # services.chat imports the whole chat stack (~50 ms)
    # the event types (15 frozen dataclasses) load with the first run: _handle
    from ...core.agent import ProgressChanged, ToolCardChanged
    from ...core.events import ChatEvent, RunStarted
    from ...services.chat import ChatService, SendRequest
    from ...services.regenerate import RegenerateRequest
    from .tasks import TaskRunner

log = logging.getLogger(__name__)


@dataclass
class LiveRun:
    """What the window needs to redraw a run it comes back to."""

    key: str
    user_message: Message | None = None
    assistant: Message | None = None
    text: str = ""
    thinking: str = ""
    persisted: bool = False
    finished: bool = False
    draft_text: str = ""
    #: "send", "edit", "regenerate" or "redirect" (what the window asked for)
    kind: str = "send"
    #: a welcome draft: nothing is in the database until the answer begins
    draft: bool = False
    #: the user message is in the database (its attachments belong to it now)
    user_saved: bool = False
    #: when reasoning began and when the answer's words began after it (the
    #: controller's clock: the timeline's, ``time.monotonic``)
    thinking_started: float | None = None
    answer_started: float | None = None

    def assistant_now(self) -> Message | None:
        if self.assistant is None:
            return None
        return replace(self.assistant, text=self.text, thinking=self.thinking)


class ChatController(QObject):
    run_started = Signal(str, object)  # key, RunStarted
    thread_created = Signal(str, object)  # key, Thread
    assistant_started = Signal(str, object)  # key, Message
    text_delta = Signal(str, str, str)  # key, message id, text
    thinking_delta = Signal(str, str, str)  # key, message id, text
    run_finished = Signal(str, object)  # key, Completed | Stopped | Failed
    running_changed = Signal(str, bool)  # key, running
    user_saved = Signal(str, object)  # key, Message (the user message is written)
    compacting = Signal(str, object)  # key, Compacting (automatic compaction began)
    compacted = Signal(str, object)  # key, Compacted (its card was written)
    #: the agent's tool cards or progress changed: key, answer id, its new data
    agent_changed = Signal(str, str, object)

    def __init__(
        self,
        chat: ChatService,
        tasks: TaskRunner,
        parent: QObject | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self._chat = chat
        self._tasks = tasks
        self._clock = clock  # the timeline's: the run's times are shown by it
        self._live: dict[str, LiveRun] = {}
        # answers whose outcome could not be written (a full disk), by id: as
        # shown (failed, saying why) and as they should be saved
        self._unsaved: dict[str, tuple[Message, Message]] = {}

    def is_running(self, key: str | None) -> bool:
        return bool(key) and key in self._live

    def running_keys(self) -> frozenset[str]:
        return frozenset(self._live)

    def live(self, key: str) -> LiveRun | None:
        return self._live.get(key)

    def unsaved(self, message_id: str) -> Message | None:
        """The answer as shown when its outcome could not be written."""
        kept = self._unsaved.get(message_id)
        return kept[0] if kept is not None else None

    def has_unsaved(self, thread_id: str) -> bool:
        """True when an answer of ``thread_id`` (on any branch) waits to be saved."""
        return any(answer.thread_id == thread_id for _, answer in self._unsaved.values())

    def unsaved_count(self) -> int:
        """Answers kept on screen that are not in the database yet."""
        return len(self._unsaved)

    def unsaved_threads(self) -> set[str]:
        """The threads that have kept answers."""
        return {answer.thread_id for _, answer in self._unsaved.values()}

    def forget_unsaved(self, thread_ids: Iterable[str]) -> int:
        """Drop the kept answers of threads deleted for good (nothing left to
        save them into); how many were dropped."""
        gone = set(thread_ids)
        dropped = [m for m, (_, answer) in self._unsaved.items() if answer.thread_id in gone]
        for message_id in dropped:
            del self._unsaved[message_id]
        return len(dropped)

    async def save_unsaved(self, thread_id: str) -> list[Message]:
        """Try again to write the kept answers of a thread; those written are
        returned (and no longer kept). A disk still full keeps them quietly."""
        from ...core.errors import MiraError

        saved: list[Message] = []
        for message_id, (_, answer) in list(self._unsaved.items()):
            if answer.thread_id != thread_id:
                continue
            try:
                await self._chat.save_answer(answer)
            except MiraError as exc:
                log.info("the kept answer %s is still not saved: %s", message_id, exc)
                continue
            self._unsaved.pop(message_id, None)
            saved.append(answer)
        return saved

    def send(self, key: str, request: SendRequest) -> None:
        """Start a run for ``key`` (the thread id, or the draft id for a new chat)."""
        live = LiveRun(key=key, draft_text=request.text, draft=request.thread_id is None)
        self._start(live, self._chat.send(request))

    def edit(
        self,
        key: str,
        thread_id: str,
        message_id: str,
        text: str,
        provider: str | None = None,
        model: str | None = None,
    ) -> None:
        """Edit → branch: ``text`` becomes a new version of user message ``message_id``."""
        events = self._chat.edit(thread_id, message_id, text, provider=provider, model=model)
        self._start(LiveRun(key=key, draft_text=text, kind="edit"), events)

    def regenerate(self, key: str, request: RegenerateRequest) -> None:
        """A new version of an answer (the presets of ``services/regenerate.py``)."""
        self._start(LiveRun(key=key, kind="regenerate"), self._chat.regenerate(request))

    def redirect(self, key: str, request: SendRequest) -> None:
        """Busy input: stop the run of ``key`` (its answer is kept, stopped) and
        send ``request.text`` after it."""
        live = LiveRun(
            key=key, draft_text=request.text, kind="redirect", draft=request.thread_id is None
        )
        self._start(live, self._chat.redirect(request))

    def _start(self, live: LiveRun, events: AsyncGenerator[ChatEvent, None]) -> None:
        self._live[live.key] = live
        self._tasks.start(self._consume(live, events), key=f"run:{live.key}")
        self.running_changed.emit(live.key, True)

    def stop(self, key: str) -> bool:
        """Stop the run of ``key`` (the presenter's key: always an id). True when one ran."""
        return self._chat.stop(key)

    def stop_thinking(self, key: str) -> bool:
        return self._chat.stop_thinking(key)

    async def _consume(self, live: LiveRun, events: AsyncGenerator[ChatEvent, None]) -> None:
        """Handle the run's events; Qt paints between bursts of a fast stream
        (the pacer). The end is paced too: the finished answer is painted
        before "done" (``running_changed``) is handled. Handling both in one
        turn answered 5-8 ms sooner but made that turn the worst gap of a
        streaming run (13-17 ms against a 16 ms target on a slow hour)."""
        try:
            pacer = LoopPacer()
            async with aclosing(events) as stream:
                async for event in stream:
                    self._handle(live, event)
                    await pacer.tick()
        finally:
            if self._live.get(live.key) is live:  # not superseded by a redirect
                del self._live[live.key]
                self.running_changed.emit(live.key, False)

    def _handle(self, live: LiveRun, event: ChatEvent) -> None:
        from ...core.agent import ProgressChanged, ToolCardChanged
        from ...core.events import (
            AssistantMessageStarted,
            Compacted,
            Compacting,
            Completed,
            Failed,
            RunStarted,
            Stopped,
            TextDelta,
            ThinkingDelta,
            ThreadCreated,
            UserMessageSaved,
        )

        key = live.key
        if isinstance(event, RunStarted):
            live.user_message = event.user_message
            live.assistant = _placeholder(event)
            self.run_started.emit(key, event)
        elif isinstance(event, ThreadCreated):
            live.persisted = True
            self.thread_created.emit(key, event.thread)
        elif isinstance(event, AssistantMessageStarted):
            self.assistant_started.emit(key, event.message)
        elif isinstance(event, UserMessageSaved):
            live.user_saved = True
            self.user_saved.emit(key, event.message)
        elif isinstance(event, Compacting):
            self.compacting.emit(key, event)
        elif isinstance(event, Compacted):
            self.compacted.emit(key, event)
        elif isinstance(event, TextDelta):
            if event.text and live.thinking and not live.text and live.answer_started is None:
                live.answer_started = self._clock()
            live.text += event.text
            self.text_delta.emit(key, _assistant_id(live), event.text)
        elif isinstance(event, ThinkingDelta):
            if event.text and live.thinking_started is None:
                live.thinking_started = self._clock()
            live.thinking += event.text
            self.thinking_delta.emit(key, _assistant_id(live), event.text)
        elif isinstance(event, ToolCardChanged | ProgressChanged):
            self._agent_event(live, event)
        elif isinstance(event, Completed | Stopped | Failed):
            live.finished = True
            if event.message is not None:
                live.assistant = event.message
                if event.unsaved is not None:
                    self._unsaved[event.message.id] = (event.message, event.unsaved)
            self.run_finished.emit(key, event)

    def _agent_event(self, live: LiveRun, event: ToolCardChanged | ProgressChanged) -> None:
        """Keep a card or the progress on the live answer (a window coming
        back shows them)."""
        from ...core.agent import ToolCardChanged

        if live.assistant is None:
            return
        data = dict(live.assistant.data or {})
        agent = dict(data.get("agent") or {})
        if isinstance(event, ToolCardChanged):
            cards = list(agent.get("tools") or ())
            card = event.card.to_dict()
            for index, kept in enumerate(cards):
                if kept.get("call_id") == event.card.call_id:  # in place: the order stays
                    cards[index] = card
                    break
            else:
                cards.append(card)
            agent["tools"] = cards
        else:
            agent["progress"] = [step.to_dict() for step in event.steps]
        data["agent"] = agent
        live.assistant = replace(live.assistant, data=data)
        self.agent_changed.emit(live.key, live.assistant.id, data)


def _assistant_id(live: LiveRun) -> str:
    return live.assistant.id if live.assistant is not None else ""


def _placeholder(event: RunStarted) -> Message:
    user = event.user_message
    return Message(
        id=event.assistant_message_id,
        thread_id=event.thread_id,
        role=MessageRole.ASSISTANT,
        text="",
        created_at=user.created_at,
        updated_at=user.created_at,
        parent_id=user.id,
        status=MessageStatus.STREAMING,
        model=event.model,
        provider=event.provider,
        data=_run_data(event),
    )


def _run_data(event: RunStarted) -> dict[str, object] | None:
    """What the answer's ``data`` will say about the run (the note of an
    escalated Retry), for the placeholder shown while it streams."""
    if not event.note:
        return None
    data: dict[str, object] = {"note": event.note}
    if event.escalated_from:
        data["escalated_from"] = event.escalated_from
        data["escalated_to"] = {"provider": event.provider, "model": event.model}
    return data
