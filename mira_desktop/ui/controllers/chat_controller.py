"""``ChatController``: runs ``ChatService.send`` for the window and re-emits its
events as Qt signals, keyed by the thread (or draft) id.

It also keeps each run's live state (the answer and thinking so far), so a
window that switches away from a streaming thread and back shows the text that
arrived meanwhile, not only what the coalesced database writes hold."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal

from ...core.events import (
    AssistantMessageStarted,
    ChatEvent,
    Completed,
    Failed,
    RunStarted,
    Stopped,
    TextDelta,
    ThinkingDelta,
    ThreadCreated,
)
from ...core.models import Message, MessageRole, MessageStatus
from ...services.chat import ChatService, SendRequest
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

    def __init__(self, chat: ChatService, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._chat = chat
        self._tasks = tasks
        self._live: dict[str, LiveRun] = {}

    def is_running(self, key: str | None) -> bool:
        return bool(key) and key in self._live

    def running_keys(self) -> frozenset[str]:
        return frozenset(self._live)

    def live(self, key: str) -> LiveRun | None:
        return self._live.get(key)

    def send(self, key: str, request: SendRequest) -> None:
        """Start a run for ``key`` (the thread id, or the draft id for a new chat)."""
        self._live[key] = LiveRun(key=key, draft_text=request.text)
        self._tasks.start(self._consume(key, request), key=f"run:{key}")
        self.running_changed.emit(key, True)

    def stop(self, key: str | None) -> bool:
        return bool(key) and self._chat.stop(key)

    def stop_thinking(self, key: str | None) -> bool:
        return bool(key) and self._chat.stop_thinking(key)

    async def _consume(self, key: str, request: SendRequest) -> None:
        try:
            async for event in self._chat.send(request):
                self._handle(key, event)
        finally:
            self._live.pop(key, None)
            self.running_changed.emit(key, False)

    def _handle(self, key: str, event: ChatEvent) -> None:
        live = self._live[key]
        if isinstance(event, RunStarted):
            live.user_message = event.user_message
            live.assistant = _placeholder(event)
            self.run_started.emit(key, event)
        elif isinstance(event, ThreadCreated):
            live.persisted = True
            self.thread_created.emit(key, event.thread)
        elif isinstance(event, AssistantMessageStarted):
            self.assistant_started.emit(key, event.message)
        elif isinstance(event, TextDelta):
            live.text += event.text
            self.text_delta.emit(key, _assistant_id(live), event.text)
        elif isinstance(event, ThinkingDelta):
            live.thinking += event.text
            self.thinking_delta.emit(key, _assistant_id(live), event.text)
        elif isinstance(event, Completed | Stopped | Failed):
            live.finished = True
            if event.message is not None:
                live.assistant = event.message
            self.run_finished.emit(key, event)


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
    )
