"""``ChatService``: sending a message and streaming the answer (the normal-chat
path of PRODUCT.md §3), with one run per thread.

``send()`` yields chat events (see ``core/events.py``) and always ends with one
terminal event (``Completed``, ``Stopped`` or ``Failed``); expected problems —
an unknown provider, a dead server, a wrong key — arrive as ``Failed`` with the
error, never as an exception. ``stop(thread_id)`` cancels that thread's run and
no other; the run persists what it has as ``stopped``. Several threads can
stream at once. The run itself lives in its own task, so a Stop works whatever
the consumer is doing, and a consumer that goes away stops its run.

The conversation tree (PRODUCT.md §5) adds three ways to start a run, all with
the same events and persistence: ``edit()`` (a new version of a user message,
``SendRequest.edit_of``), ``regenerate()`` (a new version of an answer; see
``regenerate.py``) and ``redirect()`` (busy input: stop, keep the partial
answer, send the new text after it). ``send()`` itself still refuses a thread
that is answering."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.errors import ConfigError, MiraError
from ..core.events import ChatEvent, Completed, Failed, Stopped
from ..core.ids import new_id, utc_now
from ..core.models import ChatRequest, Message, MessageRole, MessageStatus, Thread, Usage
from ..core.ports import TokenCounter
from .chat_run import ChatRun, RunPlan, new_assistant
from .context import build_messages, title_from_text
from .process_owner import current_owner, owner_alive
from .providers import ProviderService
from .regenerate import RegenerateRequest, plan_regeneration

if TYPE_CHECKING:
    from ..storage.store import Store

log = logging.getLogger(__name__)

LAST_MODEL_KEY = "chat.last_model"


@dataclass(frozen=True)
class SendRequest:
    """One send. ``thread_id`` None means a new draft; ``new_thread_id`` lets the
    caller choose the draft's id in advance (the window keys its view by it).
    ``provider``/``model`` default to the thread's, then the last chosen."""

    text: str
    provider: str | None = None
    model: str | None = None
    thread_id: str | None = None
    new_thread_id: str | None = None
    workspace_id: str | None = None
    #: Edit → branch (PRODUCT.md §5): ``text`` becomes a new version of this user
    #: message of ``thread_id`` (a sibling); the old branch is kept.
    edit_of: str | None = None


class ChatService:
    def __init__(
        self,
        store: Store,
        providers: ProviderService,
        tokens: TokenCounter,
        *,
        owner: str | None = None,
        flush_interval: float = 0.5,
    ) -> None:
        self._store = store
        self._providers = providers
        self._tokens = tokens
        self._owner = owner or current_owner()
        self._flush_interval = flush_interval
        self._runs: dict[str, ChatRun] = {}

    async def recover(self) -> int:
        """Start-up: answers left ``streaming`` by a dead process become ``stopped``."""
        count = await self._store.recover_streaming(owner_alive)
        if count:
            log.info("marked %d interrupted answer(s) as stopped", count)
        return count

    def is_running(self, thread_id: str) -> bool:
        run = self._runs.get(thread_id)
        return run is not None and run.task is not None and not run.task.done()

    def running_thread_ids(self) -> frozenset[str]:
        return frozenset(t for t in self._runs if self.is_running(t))

    def stop(self, thread_id: str) -> bool:
        """Stop the run of one thread (or draft id). True when one was running."""
        run = self._runs.get(thread_id)
        if run is None or run.task is None or run.task.done():
            return False
        run.stop()
        return True

    def stop_thinking(self, thread_id: str) -> bool:
        run = self._runs.get(thread_id)
        return run is not None and run.stop_thinking()

    async def stop_all(self) -> None:
        runs = list(self._runs.values())
        for run in runs:
            run.stop()
        for run in runs:
            if run.task is not None:
                try:
                    await run.task
                except BaseException:
                    log.debug("run ended with an error while stopping", exc_info=True)

    async def send(self, request: SendRequest) -> AsyncGenerator[ChatEvent, None]:
        try:
            plan = await self._plan(request)
        except MiraError as exc:
            yield Failed(None, None, "", "", Usage(), exc.to_dict())
            return
        async with aclosing(self._drive(plan)) as events:
            async for event in events:
                yield event

    def edit(
        self,
        thread_id: str,
        message_id: str,
        text: str,
        *,
        provider: str | None = None,
        model: str | None = None,
    ) -> AsyncGenerator[ChatEvent, None]:
        """Edit → branch: ``text`` becomes a new version of the user message
        ``message_id`` and is answered; the old version and its answers stay."""
        request = SendRequest(
            text, provider=provider, model=model, thread_id=thread_id, edit_of=message_id
        )
        return self.send(request)

    async def regenerate(self, request: RegenerateRequest) -> AsyncGenerator[ChatEvent, None]:
        """A new version of an answer (Retry, presets, custom guidance; a plain
        Retry may escalate the model tier — see ``services/regenerate.py``)."""
        if self.is_running(request.thread_id):
            yield _busy_failure()
            return
        try:
            plan = await plan_regeneration(request, self._store, self._providers, self._owner)
        except MiraError as exc:
            yield Failed(None, None, "", "", Usage(), exc.to_dict())
            return
        async with aclosing(self._drive(plan)) as events:
            async for event in events:
                yield event

    async def redirect(self, request: SendRequest) -> AsyncGenerator[ChatEvent, None]:
        """Busy input (PRODUCT.md §5): stop the answer streaming in the thread,
        wait until it is saved as ``stopped``, then send ``request.text`` as the
        next turn — its parent is the stopped answer, whose partial text stays in
        the context. With nothing running this is a plain ``send``. A draft that
        was stopped before anything was written is sent again as a new draft."""
        key = request.thread_id or request.new_thread_id
        run = self._runs.get(key) if key else None
        if run is not None:
            run.stop()
            await _wait(run)
        if request.thread_id is None and key and await self._store.find_thread(key):
            request = replace(request, thread_id=key, new_thread_id=None)
        async with aclosing(self.send(request)) as events:
            async for event in events:
                yield event

    async def _drive(self, plan: RunPlan) -> AsyncGenerator[ChatEvent, None]:
        """Run a plan in its own task and relay its events until the terminal one."""
        if self.is_running(plan.thread.id):
            yield _busy_failure()
            return
        run = ChatRun(plan, self._store, self._tokens, flush_interval=self._flush_interval)
        self._runs[plan.thread.id] = run
        run.start()
        try:
            while True:
                event = await run.queue.get()
                yield event
                if isinstance(event, Completed | Stopped | Failed):
                    return
        finally:
            if run.task is not None and not run.task.done():
                run.stop()  # the consumer went away: stop and persist as stopped
                await _wait(run)
            if self._runs.get(plan.thread.id) is run:
                del self._runs[plan.thread.id]

    async def _plan(self, request: SendRequest) -> RunPlan:
        text = request.text.strip()
        if not text:
            raise ConfigError("Type a message first.")
        thread = await self._store.find_thread(request.thread_id) if request.thread_id else None
        if request.thread_id and thread is None:
            raise ConfigError(f"No thread with id {request.thread_id}.")
        if request.edit_of and thread is None:
            raise ConfigError("Editing a message needs its thread.", hint="Pass --thread ID.")
        provider_name, model = await self._choose_model(request, thread)
        config, provider = await self._providers.chat_provider(provider_name)
        now = utc_now()
        if thread is None:
            thread = await self._draft_thread(request, text, config.id, model, now)
            history: list[Message] = []
        else:
            if (thread.provider_id, thread.model) != (config.id, model):
                thread = await self._store.update_thread(
                    thread.id, provider_id=config.id, model=model, updated_at=thread.updated_at
                )
            history = await self._history(thread.id, request)
        await self._store.set_setting(LAST_MODEL_KEY, {"provider": provider_name, "model": model})
        user = Message(
            id=new_id(),
            thread_id=thread.id,
            role=MessageRole.USER,
            text=text,
            created_at=now,
            updated_at=now,
            parent_id=history[-1].id if history else None,
            status=MessageStatus.COMPLETE,
            data={"edited_from": request.edit_of} if request.edit_of else None,
        )
        assistant = new_assistant(thread.id, user.id, new_id(), model, provider_name)
        chat_request = ChatRequest(model=model, messages=build_messages(history, text))
        return RunPlan(
            thread=thread,
            is_draft=request.thread_id is None,
            user_message=user,
            assistant=assistant,
            request=chat_request,
            provider_name=provider_name,
            provider=provider,
            owner=self._owner,
            kind="edit" if request.edit_of else "send",
        )

    async def _history(self, thread_id: str, request: SendRequest) -> list[Message]:
        """What the new user message follows: the active branch, or for an edit
        the branch down to the edited message's parent (its sibling's history)."""
        if request.edit_of is None:
            return await self._store.active_branch(thread_id)
        path = await self._store.live_path(thread_id, request.edit_of)
        if path[-1].role is not MessageRole.USER:
            raise ConfigError(
                "Only your own messages can be edited.",
                hint="To get another answer, regenerate it instead.",
            )
        return path[:-1]

    async def _choose_model(self, request: SendRequest, thread: Thread | None) -> tuple[str, str]:
        provider_name, model = request.provider, request.model
        if thread is not None and (provider_name is None or model is None):
            if thread.provider_id and thread.model:
                config = await self._store.get_provider_by_id(thread.provider_id)
                if config is not None:
                    provider_name = provider_name or config.name
                    model = model or thread.model
        if provider_name is None or model is None:
            last = await self._store.get_setting(LAST_MODEL_KEY) or {}
            provider_name = provider_name or last.get("provider")
            model = model or last.get("model")
        if not provider_name or not model:
            raise ConfigError(
                "Choose a provider and a model first.",
                hint="Add one with `mira-desktop provider add`, or in Settings → Providers.",
            )
        return provider_name, model

    async def _draft_thread(
        self, request: SendRequest, text: str, provider_id: str, model: str, now: str
    ) -> Thread:
        workspace_id = request.workspace_id or (await self._store.default_workspace()).id
        return Thread(
            id=request.new_thread_id or new_id(),
            title=title_from_text(text),
            workspace_id=workspace_id,
            created_at=now,
            updated_at=now,
            provider_id=provider_id,
            model=model,
        )


def _busy_failure() -> Failed:
    err = ConfigError("This thread is still answering.", hint="Stop it first, then send.")
    return Failed(None, None, "", "", Usage(), err.to_dict())


async def _wait(run: ChatRun) -> None:
    if run.task is None:
        return
    try:
        await run.task
    except BaseException:
        log.debug("run ended with an error after its consumer left", exc_info=True)
