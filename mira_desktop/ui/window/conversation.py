"""``ConversationPresenter``: what the centre of the window shows and how the
composer behaves. It owns "the current conversation" — a welcome draft (a key
that is not in the database yet) or a thread — routes the chat controller's
events for that conversation to the timeline, and keeps the composer, header and
sidebar in step. Runs of other threads keep going in the background; their
events only update the sidebar until the user comes back.

Persistence is the service's job (PRODUCT.md §2); this class only mirrors it:
a draft that fails or is stopped before any answer content gives the text back
to the composer with the error, and nothing appears in the sidebar."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ...core.events import Failed, RunStarted, Stopped
from ...core.ids import new_id
from ...core.models import Message, ModelInfo, Thread
from ...services.chat import SendRequest
from ..composer.composer_widget import standard_reason

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.chat_controller import ChatController
    from ..controllers.tasks import TaskRunner
    from .main_window import MainWindow

log = logging.getLogger(__name__)


class ConversationPresenter(QObject):
    view_changed = Signal(str)  # "welcome" | "empty" | "thread"
    notice = Signal(str)  # a short message for the banner ("" hides it)
    current_changed = Signal(str)  # the key of the conversation now shown

    def __init__(
        self, window: MainWindow, services: Services, chat: ChatController, tasks: TaskRunner
    ) -> None:
        super().__init__(window)
        self._w = window
        self._services = services
        self._chat = chat
        self._tasks = tasks
        self.key: str = new_id()
        self.is_draft = True
        self.thread: Thread | None = None
        self.models: list[ModelInfo] = []
        self.choice: tuple[str, str] | None = None
        self._stashed_draft = ""
        self._has_providers = True
        self._connect()

    def _connect(self) -> None:
        c = self._chat
        c.run_started.connect(self._on_run_started)
        c.thread_created.connect(self._on_thread_created)
        c.assistant_started.connect(self._on_assistant_started)
        c.text_delta.connect(self._on_text)
        c.thinking_delta.connect(self._on_thinking)
        c.run_finished.connect(self._on_finished)
        c.running_changed.connect(self._on_running_changed)

    # ---- opening conversations ------------------------------------------------
    def new_chat(self) -> None:
        """Show a fresh welcome draft; nothing is written until an answer arrives."""
        if not self.is_draft or self._chat.is_running(self.key) or self._w.timeline.message_count():
            self.key = new_id()
        self.is_draft = True
        self.thread = None
        self._w.timeline.clear()
        self._w.header.set_title(None)
        self._w.sidebar.select_thread(None)
        if self._stashed_draft:
            self._w.composer.set_text(self._stashed_draft)
            self._stashed_draft = ""
        self._apply_choice(self._last_choice())
        self._refresh_composer()
        self.view_changed.emit("welcome" if self._has_providers else "empty")
        self.current_changed.emit(self.key)
        self._w.composer.focus_input()

    def open_thread(self, thread_id: str) -> None:
        if thread_id == self.key and not self.is_draft:
            return
        self.key = thread_id
        self.is_draft = False
        self.notice.emit("")
        self._refresh_composer()
        self.current_changed.emit(thread_id)
        self._tasks.start(self._load_thread(thread_id), key="load-thread")

    async def _load_thread(self, thread_id: str) -> None:
        thread = await self._services.threads.get_thread(thread_id)
        messages = await self._services.threads.get_active_messages(thread_id)
        choice = await self._thread_choice(thread)
        if self.key != thread_id:
            return  # the user moved on while this loaded
        self.thread = thread
        self._w.header.set_title(thread.title)
        self._w.timeline.set_messages(self._with_live_state(thread_id, messages))
        if choice is not None:
            self._apply_choice(choice)
        self.view_changed.emit("thread")
        self._refresh_composer()

    def _with_live_state(self, key: str, messages: list[Message]) -> list[Message]:
        """Replace a streaming answer's stored text with what has arrived so far."""
        live = self._chat.live(key)
        if live is None or live.assistant is None:
            return messages
        current = live.assistant_now()
        assert current is not None
        ids = [m.id for m in messages]
        if current.id in ids:
            return [current if m.id == current.id else m for m in messages]
        extra = [m for m in (live.user_message, current) if m is not None and m.id not in ids]
        return [*messages, *extra]

    async def _thread_choice(self, thread: Thread) -> tuple[str, str] | None:
        if not thread.provider_id or not thread.model:
            return None
        provider = await self._services.store.get_provider_by_id(thread.provider_id)
        return (provider.name, thread.model) if provider else None

    # ---- models ----------------------------------------------------------------
    async def reload_models(self) -> None:
        providers = await self._services.providers.list_providers()
        self._has_providers = bool(providers)
        self.models = await self._services.providers.list_models()
        self._w.header.set_models(self.models)
        if self.choice is None:
            self._apply_choice(await self._services.settings.get("chat.last_model"))
        elif self.choice:
            self._w.header.set_current_model(*self.choice)
        self._refresh_composer()
        if self.is_draft:
            self.view_changed.emit("welcome" if self._has_providers else "empty")

    def _last_choice(self) -> tuple[str, str] | None:
        return self.choice

    def _apply_choice(self, choice: object) -> None:
        if isinstance(choice, dict):
            choice = (choice.get("provider"), choice.get("model"))
        if isinstance(choice, tuple | list) and len(choice) == 2 and all(choice):
            self.choice = (str(choice[0]), str(choice[1]))
            self._w.header.set_current_model(*self.choice)

    def choose_model(self, provider: str, model: str) -> None:
        self.choice = (provider, model)
        self._tasks.start(
            self._services.settings.set("chat.last_model", {"provider": provider, "model": model})
        )
        if self.thread is not None and not self.is_draft:
            info = next((m for m in self.models if (m.provider_name, m.name) == self.choice), None)
            if info is not None and info.provider_id:
                self._tasks.start(
                    self._services.threads.set_model(self.thread.id, info.provider_id, model)
                )
        self._refresh_composer()

    # ---- sending and stopping ------------------------------------------------------
    def send(self, text: str) -> None:
        if not text.strip() or self._chat.is_running(self.key):
            return
        provider, model = self.choice or (None, None)
        if self.is_draft:
            request = SendRequest(text=text, provider=provider, model=model, new_thread_id=self.key)
        else:
            request = SendRequest(text=text, provider=provider, model=model, thread_id=self.key)
        self.notice.emit("")
        self._w.composer.clear()
        self._chat.send(self.key, request)
        self.view_changed.emit("thread")

    def stop(self) -> None:
        self._chat.stop(self.key)

    def stop_thinking(self, _message_id: str = "") -> None:
        self._chat.stop_thinking(self.key)

    def retry(self, message_id: str) -> None:
        """Retry a stopped or failed answer: ask again with the same question."""
        if self._chat.is_running(self.key) or self.is_draft:
            return
        self._tasks.start(self._retry(message_id))

    async def _retry(self, message_id: str) -> None:
        message = await self._services.store.get_message(message_id)
        if message.parent_id is None:
            return
        question = await self._services.store.get_message(message.parent_id)
        provider, model = self.choice or (None, None)
        request = SendRequest(
            text=question.text, provider=provider, model=model, thread_id=self.key
        )
        self._chat.send(self.key, request)

    # ---- chat events -------------------------------------------------------------
    def _on_run_started(self, key: str, event: RunStarted) -> None:
        if key != self.key:
            return
        live = self._chat.live(key)
        self._w.timeline.upsert_message(event.user_message)
        if live is not None and live.assistant is not None:
            self._w.timeline.upsert_message(live.assistant)
        if self.is_draft:
            self._w.header.set_title(_title_preview(event.user_message.text))

    def _on_thread_created(self, key: str, thread: Thread) -> None:
        self._w.sidebar.model().upsert_thread(thread)
        if key == self.key:
            self.is_draft = False
            self.thread = thread
            self._w.header.set_title(thread.title)
            self._w.sidebar.select_thread(thread.id)

    def _on_assistant_started(self, key: str, message: Message) -> None:
        if key == self.key and message.text == "" and message.status != "streaming":
            self._w.timeline.upsert_message(message)

    def _on_text(self, key: str, message_id: str, text: str) -> None:
        if key == self.key:
            self._w.timeline.append_text(message_id, text)

    def _on_thinking(self, key: str, message_id: str, text: str) -> None:
        if key == self.key:
            self._w.timeline.append_thinking(message_id, text)

    def _on_finished(self, key: str, event: object) -> None:
        live = self._chat.live(key)
        if isinstance(event, Failed | Stopped) and getattr(event, "thread_id", None) is None:
            self._restore_draft(key, live.draft_text if live else "", event)
            return
        message = getattr(event, "message", None)
        if key == self.key and message is not None:
            self._w.timeline.upsert_message(message)
        self._tasks.start(self._refresh_sidebar_row(key))

    def _restore_draft(self, key: str, text: str, event: Failed | Stopped) -> None:
        """Nothing was written: give the text back, with the reason."""
        reason = self._describe(event)
        if key == self.key:
            self._w.timeline.clear()
            self._w.composer.set_text(text)
            self._w.header.set_title(None)
            self.view_changed.emit("welcome")
        else:
            self._stashed_draft = text
            reason = self.tr(
                "A new chat could not start: {reason} Your text is waiting in New chat."
            ).format(reason=reason)
        self.notice.emit(reason)

    def _describe(self, event: Failed | Stopped) -> str:
        if isinstance(event, Stopped):
            return self.tr("Stopped before the answer began; nothing was saved.")
        error = event.error or {}
        message = str(error.get("message", ""))
        hint = str(error.get("hint", "") or "")
        return f"{message} {hint}".strip()

    async def _refresh_sidebar_row(self, thread_id: str) -> None:
        thread = await self._services.threads.find_thread(thread_id)
        if thread is not None:
            self._w.sidebar.model().upsert_thread(thread)
            if thread_id == self.key:
                self.thread = thread

    def _on_running_changed(self, key: str, running: bool) -> None:
        self._w.sidebar.model().set_running(key, running)
        if key == self.key:
            self._refresh_composer()

    def _refresh_composer(self) -> None:
        composer = self._w.composer
        composer.set_running(self._chat.is_running(self.key))
        if not self._has_providers:
            composer.set_enabled_reason(standard_reason("no_provider"))
        elif self.choice is None:
            composer.set_enabled_reason(standard_reason("no_model"))
        else:
            composer.set_enabled_reason(None)


def _title_preview(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= 60 else words[:59] + "…"
