"""``ConversationPresenter``: what the centre of the window shows and how the
composer behaves. It owns "the current conversation" — a welcome draft (a key
that is not in the database yet) or a thread — routes the chat controller's
events for that conversation to the timeline, and keeps the composer, header and
sidebar in step. Runs of other threads keep going in the background; their
events only update the sidebar until the user comes back.

Persistence is the service's job (PRODUCT.md §2); this class only mirrors it:
a draft that fails or is stopped before any answer content gives the text back
to the composer with the error, and nothing appears in the sidebar. Enter while
the shown thread answers redirects (PRODUCT.md §5: the answer stops, is kept,
and the new text follows it). The conversation tree's actions (edit, versions,
regenerate, undo) live in ``tree_actions.py``; runs of those kinds are drawn
there too."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from ... import startup_gc
from ...core.agent_keys import PLAN_MODE
from ...core.errors import MiraError, error_from_dict
from ...core.ids import new_id
from ...core.media_keys import IMAGE_KEY, SPEECH_KEY
from ...core.models import Message, ModelInfo, ProviderConfig, Thread
from ..error_texts import error_line

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...core.events import Failed, RunStarted, Stopped
    from ...services.attachments import PreparedAttachment
    from ..controllers.chat_controller import ChatController
    from ..controllers.tasks import TaskRunner
    from .main_window import MainWindow

log = logging.getLogger(__name__)

#: runs that show a new version of a message (drawn by ``TreeActions``)
VERSION_KINDS = ("edit", "regenerate")
PLACEHOLDER_DELAY_MS = 10  # the answer's row, after the user's (another event-loop pass)


class ConversationPresenter(QObject):
    view_changed = Signal(str)  # "welcome" | "empty" | "thread"
    notice = Signal(str)  # a short message for the banner ("" hides it)
    current_changed = Signal(str)  # the key of the conversation now shown
    state_changed = Signal()  # running, draft or thread of the shown conversation changed

    def __init__(
        self, window: MainWindow, services: Services, chat: ChatController, tasks: TaskRunner
    ) -> None:
        super().__init__(window)
        self._w = window
        self._services = services
        self._chat = chat
        self._placeholder_key: str | None = None  # a run whose answer row is not shown yet
        self._tasks = tasks
        self.key: str = new_id()
        self.is_draft = True
        self.current_thread: Thread | None = None
        self.models: list[ModelInfo] = []
        self.choice: tuple[str, str] | None = None
        self._stashed_draft = ""
        self._has_providers = True
        #: the configured providers' names (None until the models are loaded)
        self._provider_names: set[str] | None = None
        self._provider_ids: dict[str, str] = {}  # name → id, as last loaded
        #: the knowledge base chosen for the welcome draft (``ui/kb/kb_actions.py``),
        #: bound to the thread by its first send (``SendRequest.kb_id``)
        self.draft_kb_id: str | None = None
        #: the welcome draft's TTS switch (``speech_actions.py``), set on the
        #: thread by its first send (``SendRequest.tts``)
        self.draft_tts = False
        #: the draft's image switch (``image_actions.py``): ``SendRequest.image``
        self.draft_image = False
        #: the draft's agent switch (``agent_actions.py``): ``SendRequest.agent``
        self.draft_agent = False
        #: the draft's plan mode (``agent_actions.py``): ``SendRequest.plan``
        self.draft_plan = False
        #: conversations whose agent waits for answers to its questions: their
        #: composer is locked until they are answered or dismissed (§11)
        self._questions_waiting: set[str] = set()
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
        self.current_thread = None
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

    def reload(self) -> None:
        """Show the saved thread again as the database has it (after a repair)."""
        if not self.is_draft and not self._chat.is_running(self.key):
            self._tasks.start(self._load_thread(self.key), key="load-thread")

    def open_thread_at(self, thread_id: str, message_id: str | None) -> None:
        """Open a thread on the branch that holds ``message_id`` (switching the
        active branch first when needed), scrolled to it and highlighted (search)."""
        self.key = thread_id
        self.is_draft = False
        self.notice.emit("")
        self._refresh_composer()
        self.current_changed.emit(thread_id)
        self._tasks.start(self._load_thread_at(thread_id, message_id), key="load-thread")

    async def _load_thread_at(self, thread_id: str, message_id: str | None) -> None:
        conversation = self._services.conversation
        found = True
        if message_id is not None and not self._chat.is_running(thread_id):
            branch = await conversation.active_branch(thread_id)
            if message_id not in {m.id for m in branch}:
                try:
                    await conversation.switch_branch(thread_id, message_id)
                except MiraError as exc:
                    # gone since it was found (undone, purged): the thread is
                    # still shown, on its own branch — never another's on screen
                    # while the composer sends to this one
                    found = False
                    if self.key == thread_id:
                        self.notice.emit(error_line(exc))
        await self._load_thread(thread_id)
        if found and message_id is not None and self.key == thread_id:
            self._w.timeline.scroll_to_message(message_id, highlight=True)

    async def _load_thread(self, thread_id: str) -> None:
        thread = await self._services.threads.get_thread(thread_id)
        messages = await self._services.threads.get_active_messages(thread_id)
        choice = await self._thread_choice(thread)
        if self.key != thread_id:
            return  # the user moved on while this loaded
        self.current_thread = thread
        self._w.header.set_title(thread.title)
        self._w.timeline.set_messages(self._with_live_state(thread_id, messages))
        live = self._chat.live(thread_id)
        if live is not None and live.assistant is not None:  # its Thinking card goes on
            timeline = self._w.timeline
            timeline.set_live_timing(live.assistant.id, live.thinking_started, live.answer_started)
        startup_gc.after_load(len(messages))  # a long thread: its objects frozen
        if choice is not None:
            self._apply_choice(choice)
        self.view_changed.emit("thread")
        self._refresh_composer()
        if self._chat.has_unsaved(thread_id):
            await self._save_kept_answers(thread_id)

    async def _save_kept_answers(self, thread_id: str) -> None:
        """Answers a full disk could not take, written now if there is room."""
        saved = await self._chat.save_unsaved(thread_id)
        if saved and self.key == thread_id:
            shown = set(self._w.timeline.message_ids())  # another branch's stays unshown
            for answer in saved:
                if answer.id in shown:
                    self._w.timeline.upsert_message(self.with_shown_versions(answer))
            self.notice.emit(self.tr("Saved the answer that did not fit on the disk before."))

    def _with_live_state(self, key: str, messages: list[Message]) -> list[Message]:
        """Replace a streaming answer's stored text with what has arrived so far;
        an answer not saved yet follows its question (a regeneration's question
        ends the branch shown while the new version streams). An answer whose
        outcome could not be written is shown as it ended."""
        unsaved = self._chat.unsaved
        messages = [
            _with_versions_of(m, kept) if (kept := unsaved(m.id)) is not None else m
            for m in messages
        ]
        live = self._chat.live(key)
        if live is None or live.assistant is None:
            return messages
        current = live.assistant_now()
        assert current is not None
        ids = [m.id for m in messages]
        if current.id in ids:
            return [_with_versions_of(m, current) if m.id == current.id else m for m in messages]
        user = live.user_message
        if user is not None and user.id in ids:
            return [*messages[: ids.index(user.id) + 1], current]
        return [*messages, *(m for m in (user, current) if m is not None)]

    def with_shown_versions(self, message: Message) -> Message:
        """``message`` with the version numbers the timeline shows for it (run
        events carry none)."""
        shown = self._w.timeline.message(message.id)
        return message if shown is None else _with_versions_of(shown, message)

    async def _thread_choice(self, thread: Thread) -> tuple[str, str] | None:
        if not thread.provider_id or not thread.model:
            return None
        provider = await self._services.store.get_provider_by_id(thread.provider_id)
        return (provider.name, thread.model) if provider else None

    # ---- models ----------------------------------------------------------------
    async def reload_models(self) -> None:
        providers = await self._services.providers.list_providers()
        self._has_providers = bool(providers)
        self._provider_names = {p.name for p in providers}
        self._follow_renames(providers)
        self.models = await self._services.providers.list_models()
        self._w.header.set_models(self.models, has_providers=self._has_providers)
        if self.choice is None:
            self._apply_choice(await self._services.settings.get("chat.last_model"))
        if self.is_draft and not self.choice_available():
            self._apply_choice(None)  # its provider was removed: start on a model that exists
        if self.choice is None and self.models:
            # Nothing chosen yet: start with the first model listed (002 §会话模型选择).
            first = self.models[0]
            self._apply_choice((first.provider_name, first.name))
        elif self.choice:
            self._w.header.set_current_model(*self.choice)
        self._refresh_composer()
        if self.is_draft:
            self.view_changed.emit("welcome" if self._has_providers else "empty")

    def _follow_renames(self, providers: list[ProviderConfig]) -> None:
        """The choice names its provider by name: a provider renamed since the
        last load (the same id, another name) keeps it, under the new name."""
        known, self._provider_ids = self._provider_ids, {p.name: p.id for p in providers}
        if self.choice is None or self.choice[0] in self._provider_ids:
            return
        was = known.get(self.choice[0])
        renamed = next((p.name for p in providers if was is not None and p.id == was), None)
        if renamed is not None:
            self.choice = (renamed, self.choice[1])

    def _last_choice(self) -> tuple[str, str] | None:
        """The model a new chat starts on: the last chosen, else (its provider
        removed) the first model listed."""
        if self.choice_available():
            return self.choice
        first = self.models[0] if self.models else None
        return (first.provider_name, first.name) if first else None

    def choice_available(self) -> bool:
        """Whether the chosen model's provider is still configured (a send to
        a removed one cannot work)."""
        names = self._provider_names
        return self.choice is None or names is None or self.choice[0] in names

    def _apply_choice(self, choice: object) -> None:
        if choice is None:
            self.choice = None
            self._w.header.set_current_model("", "")
            return
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
        if self.current_thread is not None and not self.is_draft:
            info = next((m for m in self.models if (m.provider_name, m.name) == self.choice), None)
            if info is not None and info.provider_id:
                self._tasks.start(
                    self._services.threads.set_model(
                        self.current_thread.id, info.provider_id, model
                    )
                )
        self._refresh_composer()

    # ---- sending and stopping ------------------------------------------------------
    def send(
        self,
        text: str,
        *,
        attachments: tuple[PreparedAttachment, ...] = (),
        role_id: str | None = None,
        plan: bool | None = None,
        agent: bool | None = None,
    ) -> None:
        """Send ``text`` (with the composer's prepared ``attachments``; a draft
        binds ``role_id``; ``plan`` and ``agent`` set a saved thread's plan mode
        and agent switch); while the shown thread answers, redirect: the answer
        stops and is kept, and ``text`` is the next turn (PRODUCT.md §5)."""
        if not text.strip() and not attachments:
            return
        from ...services.chat import SendRequest  # the chat stack loads on first send

        provider, model = self.choice or (None, None)
        if self.is_draft:  # a new chat belongs to the workspace the sidebar shows
            request = SendRequest(
                text=text,
                provider=provider,
                model=model,
                new_thread_id=self.key,
                workspace_id=self._w.sidebar.workspace_id(),
                attachments=attachments,
                role_id=role_id,
                kb_id=self.draft_kb_id,
                tts=self.draft_tts or None,
                image=self.draft_image or None,
                agent=self.draft_agent or None,
                plan=self.draft_plan or None,
            )
        else:
            request = SendRequest(
                text=text,
                provider=provider,
                model=model,
                thread_id=self.key,
                attachments=attachments,
                role_id=role_id,
                plan=plan,
                agent=agent,
            )
        self.notice.emit("")
        # the composer is not cleared here: ``text`` may not come from it
        # ("Implement plan"), and what came from it was taken out already
        if self._chat.is_running(self.key):
            self._chat.redirect(self.key, request)
        else:
            self._chat.send(self.key, request)
        self.view_changed.emit("thread")

    def agent_on(self) -> bool:
        """Whether a send now goes to the agent: its switch, or plan mode
        (which brings the agent), of the draft or the thread shown."""
        thread = self.current_thread
        if self.is_draft or thread is None or thread.id != self.key:
            return self.draft_agent or self.draft_plan
        return thread.agent_enabled or thread.mode == PLAN_MODE

    def stop(self) -> None:
        self._chat.stop(self.key)

    def stop_thinking(self, _message_id: str = "") -> None:
        self._chat.stop_thinking(self.key)

    # ---- chat events -------------------------------------------------------------
    def _on_run_started(self, key: str, event: RunStarted) -> None:
        if key != self.key or event.kind in VERSION_KINDS:
            return
        self._w.timeline.upsert_message(event.user_message)
        if self.is_draft:
            self._w.header.set_title(_title_preview(event.user_message.text))
        # The answer's row a frame later: building both widgets in one pass of
        # the event loop (a zero timer runs in the same pass) is a ~15 ms stall.
        # A delta arriving first shows it at once (see ``_on_text``).
        self._placeholder_key = key
        QTimer.singleShot(PLACEHOLDER_DELAY_MS, self, lambda: self._show_placeholder(key))

    def _show_placeholder(self, key: str) -> None:
        """The streaming answer's row, unless the run already ended or another
        conversation is shown (a later event then owns the row)."""
        if self._placeholder_key == key:
            self._placeholder_key = None
        live = self._chat.live(key)
        if key != self.key or live is None or live.assistant is None or live.finished:
            return
        if self._w.timeline.message(live.assistant.id) is None:
            self._w.timeline.upsert_message(live.assistant)

    def _on_thread_created(self, key: str, thread: Thread) -> None:
        self._w.sidebar.model().upsert_thread(thread)
        if key == self.key:
            self.is_draft = False
            self.current_thread = thread
            self._w.header.set_title(thread.title)
            self._w.sidebar.select_thread(thread.id)

    def _on_assistant_started(self, key: str, message: Message) -> None:
        if key == self.key and message.text == "" and message.status != "streaming":
            self._w.timeline.upsert_message(self.with_shown_versions(message))

    def _on_text(self, key: str, message_id: str, text: str) -> None:
        if key == self.key:
            if self._placeholder_key == key:
                self._show_placeholder(key)
            self._w.timeline.append_text(message_id, text)

    def _on_thinking(self, key: str, message_id: str, text: str) -> None:
        if key == self.key:
            if self._placeholder_key == key:
                self._show_placeholder(key)
            self._w.timeline.append_thinking(message_id, text)

    def _on_finished(self, key: str, event: object) -> None:
        from ...core.events import Failed, Stopped  # on first use: off the first frame

        live = self._chat.live(key)
        if isinstance(event, Failed | Stopped) and getattr(event, "thread_id", None) is None:
            if live is not None and not live.finished:
                self._drop_superseded_draft(key)  # a redirect took over the draft
            elif live is not None and not live.draft:
                self._report_unstarted(key, live.draft_text, live.kind, event)
            else:
                self._restore_draft(key, live.draft_text if live else "", event)
            return
        message = getattr(event, "message", None)
        if key == self.key and message is not None:
            self._w.timeline.upsert_message(self.with_shown_versions(message))
        self._tasks.start(self.refresh_sidebar_row(key))

    def _drop_superseded_draft(self, key: str) -> None:
        """Busy input in a draft stopped before anything was written: only the
        new run's messages stay on screen."""
        if key == self.key:
            self._w.timeline.set_messages(self._with_live_state(key, []))

    def _report_unstarted(self, key: str, text: str, kind: str, event: Failed | Stopped) -> None:
        """A run of a saved thread that could not start: say why; typed text
        comes back into the composer, before anything typed since."""
        if key != self.key:
            return
        if kind in ("send", "redirect"):
            self._w.composer.give_back(text)
        self.notice.emit(self._describe(event))

    def _restore_draft(self, key: str, text: str, event: Failed | Stopped) -> None:
        """Nothing was written: give the text back, with the reason."""
        reason = self._describe(event)
        if key == self.key:
            self._w.timeline.clear()
            self._w.composer.give_back(text)
            self._w.header.set_title(None)
            self.view_changed.emit("welcome")
        else:
            self._stashed_draft = text
            reason = self.tr(
                "A new chat could not start: {reason} Your text is waiting in New chat."
            ).format(reason=reason)
        self.notice.emit(reason)

    def _describe(self, event: Failed | Stopped) -> str:
        from ...core.events import Stopped

        if isinstance(event, Stopped):
            return self.tr("Stopped before the answer began; nothing was saved.")
        return error_line(error_from_dict(event.error or {}))

    async def refresh_sidebar_row(self, thread_id: str) -> None:
        thread = await self._services.threads.find_thread(thread_id)
        if thread is not None:
            self._w.sidebar.model().upsert_thread(thread)
            if thread_id == self.key:
                self.current_thread = thread
                self.state_changed.emit()  # its switches may have changed (plan mode)

    def set_question_waiting(self, key: str, waiting: bool) -> None:
        """Lock (or unlock) the composer of ``key`` for the agent's questions."""
        if waiting == (key in self._questions_waiting):
            return
        if waiting:
            self._questions_waiting.add(key)
        else:
            self._questions_waiting.discard(key)
        if key == self.key:
            self._refresh_composer()

    def _on_running_changed(self, key: str, running: bool) -> None:
        if not running:
            self._questions_waiting.discard(key)
        self._w.sidebar.model().set_running(key, running)
        if key == self.key:
            self._refresh_composer()

    def _refresh_composer(self) -> None:
        composer = self._w.composer
        composer.set_running(self._chat.is_running(self.key))
        if not self._has_providers:
            composer.set_enabled_reason("no_provider")
        elif self.choice is None:
            composer.set_enabled_reason("no_model" if self.models else "no_models")
        elif not self.choice_available():
            composer.set_enabled_reason(
                self.tr(
                    "“{provider} · {model}” is no longer available (its provider was removed)."
                    " Choose another model above."
                ).format(provider=self.choice[0], model=self.choice[1])
            )
        elif self.key in self._questions_waiting:
            composer.set_enabled_reason("question_pending")
        else:
            composer.set_enabled_reason(None)
        self.state_changed.emit()


def _with_versions_of(source: Message, message: Message) -> Message:
    """``message`` with what the timeline shows of it that run events do not
    carry: its version numbers, and the state of its audio and image (their
    makers may start before the run's end reaches the window)."""
    data = message.data
    for key in (SPEECH_KEY, IMAGE_KEY):
        made = (source.data or {}).get(key)
        if made is not None and key not in (data or {}):
            data = {**(data or {}), key: made}
    return replace(
        message, sibling_index=source.sibling_index, sibling_count=source.sibling_count, data=data
    )


def _title_preview(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= 60 else words[:59] + "…"
