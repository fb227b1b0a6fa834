"""``ChatService``: sending a message and streaming the answer (the normal-chat
path of PRODUCT.md §3), with one run per thread.

``send()`` yields chat events (see ``core/events.py``) and always ends with one
terminal event (``Completed``, ``Stopped`` or ``Failed``); expected problems —
an unknown provider, a dead server, a wrong key — arrive as ``Failed`` with the
error, never as an exception. ``stop(thread_id)`` cancels that thread's run and
no other; the run persists what it has as ``stopped``. Several threads can
stream at once. The run itself lives in its own task, so a Stop works whatever
the consumer is doing, and a consumer that goes away stops its run."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
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

    async def send(self, request: SendRequest) -> AsyncIterator[ChatEvent]:
        try:
            plan = await self._plan(request)
        except MiraError as exc:
            yield Failed(None, None, "", "", Usage(), exc.to_dict())
            return
        if self.is_running(plan.thread.id):
            err = ConfigError("This thread is still answering.", hint="Stop it first, then send.")
            yield Failed(None, None, "", "", Usage(), err.to_dict())
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
            history = await self._store.active_branch(thread.id)
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
        )

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


async def _wait(run: ChatRun) -> None:
    if run.task is None:
        return
    try:
        await run.task
    except BaseException:
        log.debug("run ended with an error after its consumer left", exc_info=True)
