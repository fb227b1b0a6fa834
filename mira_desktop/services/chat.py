"""``ChatService``: sending a message and streaming the answer (the normal-chat
path of PRODUCT.md §3), with one run per thread.

``send()`` yields chat events (see ``core/events.py``) and always ends with one
terminal event (``Completed``, ``Stopped`` or ``Failed``); expected problems —
an unknown provider, a dead server, a wrong key — arrive as ``Failed`` with the
error, never as an exception. ``stop(thread_id)`` cancels that thread's run and
no other; the run persists what it has as ``stopped``. Several threads can
stream at once. The run itself lives in its own task, so a Stop works whatever
the consumer is doing, and a consumer that goes away stops its run. A Stop
while the send is still being prepared (planned, its knowledge retrieved, its
agent equipped: ``preparation.py``) works too: the run then starts stopped.

The conversation tree (PRODUCT.md §5) adds three ways to start a run, all with
the same events and persistence: ``edit()`` (a new version of a user message,
``SendRequest.edit_of``), ``regenerate()`` (a new version of an answer; see
``regenerate.py``) and ``redirect()`` (busy input: stop, keep the partial
answer, send the new text after it). ``send()`` itself still refuses a thread
that is answering.

Issue 7 adds the model context: attachments (``SendRequest.attachments``,
checked before sending with :meth:`ChatService.preflight`), the thread's role
(``SendRequest.role_id`` binds one), the context summary, ``compact()`` and
automatic compaction (``turn_context.py``), and a background refresh of the
summary after a completed answer (``summary.py``). Planning lives in
``chat_plan.py`` (send, edit) and ``regenerate.py``; both build requests with
``request_context.ContextBuilder``.

Issue 8 adds the knowledge-base path (PRODUCT.md §3 path 2): a planned run of
a thread with a knowledge base bound and the agent off goes through
``chat_knowledge.KnowledgeRoute`` (given ``rag``) — sources with the question,
the empty base's refusal without a model call, or the no-question fallback
note.

Media after an answer (PRODUCT.md §10): a completed answer of a thread with
its TTS switch on is read aloud in the background (``speech.py``); one of a
thread with its image switch on, a role and no knowledge base is illustrated
(``illustration.py``)."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.agent import PLAN_MODE
from ..core.context import CompactionResult, SendWarning
from ..core.errors import ConfigError, MiraError
from ..core.events import ChatEvent, Completed, Failed, Stopped
from ..core.models import Message, Usage
from ..core.ports import TokenCounter
from .attachment_context import image_warning
from .chat_knowledge import KnowledgeRoute
from .chat_plan import LAST_MODEL_KEY, ChatPath, SendPlanner, SendRequest, choose_path
from .chat_run import ChatRun, RunPlan
from .compaction import CompactionService
from .illustration import wants_images
from .preparation import Preparation
from .process_owner import current_owner, owner_alive
from .providers import ProviderService
from .regenerate import RegenerateRequest, plan_regeneration
from .request_context import ContextBuilder

if TYPE_CHECKING:
    from ..core.agent import AgentMode
    from ..storage.context_store import ContextStore
    from ..storage.store import Store
    from .agent.service import AgentService
    from .attachments import AttachmentService, PreparedAttachment
    from .illustration import ImageService
    from .kb import RagService
    from .speech import SpeechService
    from .summary import SummaryService

log = logging.getLogger(__name__)

__all__ = [
    "LAST_MODEL_KEY",
    "ChatPath",
    "ChatService",
    "SendRequest",
    "choose_path",
]


class ChatService:
    def __init__(
        self,
        store: Store,
        providers: ProviderService,
        tokens: TokenCounter,
        *,
        context_store: ContextStore | None = None,
        attachments: AttachmentService | None = None,
        compaction: CompactionService | None = None,
        summaries: SummaryService | None = None,
        rag: RagService | None = None,
        speech: SpeechService | None = None,
        images: ImageService | None = None,
        agent: AgentService | None = None,
        owner: str | None = None,
        flush_interval: float = 0.5,
    ) -> None:
        """``context_store`` defaults to the store's (``Store.context``);
        without ``attachments`` a send with files is refused; without
        ``compaction`` nothing is compacted automatically; without
        ``summaries`` no summary is refreshed after an answer; without ``rag``
        every thread takes the normal path (knowledge bases ignored); without
        ``speech`` no answer is read aloud (threads' TTS switches ignored);
        without ``images`` none is illustrated; without ``agent`` a thread's
        agent switch is refused with a message."""
        context_store = context_store or store.context
        self._store = store
        self._providers = providers
        self._tokens = tokens
        self._writer = context_store
        self._attachments = attachments
        self._compaction = compaction
        self._summaries = summaries
        self._speech = speech
        self._images = images
        self._agent = agent
        self._owner = owner or current_owner()
        self._flush_interval = flush_interval
        self._runs: dict[str, ChatRun] = {}
        self._preparing: dict[str, Preparation] = {}  # sends not yet running, by key
        self._builder = ContextBuilder(
            store, context_store, tokens, attachments=attachments, compaction=compaction
        )
        self._planner = SendPlanner(store, providers, self._builder, self._owner)
        self._knowledge = KnowledgeRoute(rag)

    @property
    def context_builder(self) -> ContextBuilder:
        """Request assembly shared by every path (the knowledge-base path too)."""
        return self._builder

    async def recover(self) -> int:
        """Start-up: answers left ``streaming`` by a dead process become ``stopped``."""
        count = await self._store.recover_streaming(owner_alive)
        if count:
            log.info("marked %d interrupted answer(s) as stopped", count)
        return count

    async def save_answer(self, answer: Message) -> None:
        """Write an answer's outcome that a run could not (``Failed.unsaved``:
        the disk was full); raises ``StorageError`` while it still cannot."""
        await self._store.update_stream(
            answer.id,
            text=answer.text,
            thinking=answer.thinking,
            thinking_ms=answer.thinking_ms,
            status=str(answer.status),
            usage=answer.usage,
            error=answer.error,
        )

    def is_running(self, thread_id: str) -> bool:
        """True while a send of the thread (or draft id) is being prepared or answered."""
        return thread_id in self._preparing or self._answering(thread_id)

    def _answering(self, thread_id: str) -> bool:
        run = self._runs.get(thread_id)
        return run is not None and run.task is not None and not run.task.done()

    def running_thread_ids(self) -> frozenset[str]:
        return frozenset(t for t in (*self._runs, *self._preparing) if self.is_running(t))

    def stop(self, thread_id: str) -> bool:
        """Stop the run of one thread (or draft id), or its send still being
        prepared. True when one was running."""
        preparing = self._preparing.get(thread_id)
        if preparing is not None:
            preparing.stop()
            return True
        run = self._runs.get(thread_id)
        if run is None or run.task is None or run.task.done():
            return False
        run.stop()
        return True

    def stop_thinking(self, thread_id: str) -> bool:
        run = self._runs.get(thread_id)
        return run is not None and run.stop_thinking()

    async def stop_all(self) -> None:
        for preparing in self._preparing.values():
            preparing.stop()
        runs = list(self._runs.values())
        for run in runs:
            run.stop()
        for run in runs:
            if run.task is not None:
                try:
                    await run.task
                except BaseException:
                    log.debug("run ended with an error while stopping", exc_info=True)
        if self._summaries is not None:
            await self._summaries.aclose()

    async def preflight(self, request: SendRequest) -> list[SendWarning]:
        """What the user should know before this send goes out: images for a
        model not marked vision-capable (the send then leaves them out, with a
        note on the message). Never raises: problems of the send itself are
        reported by ``send``."""
        images = [p.name for p in request.attachments if p.is_image]
        try:
            images = await self._planner.carried_images(request) + images
            if not images:
                return []
            thread = await self._planner.find_thread(request)
            provider_name, model = await self._planner.choose_model(request, thread)
            info = await self._store.get_model(provider_name, model)
        except MiraError as exc:
            log.debug("preflight skipped: %s", exc)
            return []
        if info is not None and info.vision:
            return []
        return [image_warning(model, images)]

    async def send(self, request: SendRequest) -> AsyncGenerator[ChatEvent, None]:
        async def prepare(preparing: Preparation) -> RunPlan:
            if request.attachments and self._attachments is None:
                raise ConfigError("Attachments are not available here.")
            plan = await self._planner.plan(request)
            return await preparing.unless_stopped(
                plan, lambda planned: self._route(planned, request.agent_mode)
            )

        key = request.thread_id or request.new_thread_id
        async with aclosing(self._prepared(key, prepare)) as events:
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
        attachments: tuple[PreparedAttachment, ...] = (),
        keep_attachments: bool = True,
    ) -> AsyncGenerator[ChatEvent, None]:
        """Edit → branch: ``text`` becomes a new version of the user message
        ``message_id`` and is answered; the old version and its answers stay.
        The new version keeps the old one's attachments (``keep_attachments``)
        and adds ``attachments``."""
        request = SendRequest(
            text,
            provider=provider,
            model=model,
            thread_id=thread_id,
            edit_of=message_id,
            attachments=attachments,
            keep_attachments=keep_attachments,
        )
        return self.send(request)

    async def regenerate(self, request: RegenerateRequest) -> AsyncGenerator[ChatEvent, None]:
        """A new version of an answer (Retry, presets, custom guidance; a plain
        Retry may escalate the model tier — see ``services/regenerate.py``)."""

        async def prepare(preparing: Preparation) -> RunPlan:
            plan = await plan_regeneration(
                request, self._store, self._providers, self._owner, self._builder
            )
            return await preparing.unless_stopped(plan, self._route)

        async with aclosing(self._prepared(request.thread_id, prepare)) as events:
            async for event in events:
                yield event

    async def redirect(self, request: SendRequest) -> AsyncGenerator[ChatEvent, None]:
        """Busy input (PRODUCT.md §5): stop the answer streaming in the thread,
        wait until it is saved as ``stopped``, then send ``request.text`` as the
        next turn — its parent is the stopped answer, whose partial text stays in
        the context. With nothing running this is a plain ``send``. A draft that
        was stopped before anything was written is sent again as a new draft,
        its first question and the new words together (nothing typed is lost;
        its files go back to the composer)."""
        key = request.thread_id or request.new_thread_id
        preparing = self._preparing.get(key) if key else None
        if preparing is not None:  # its run starts stopped, or it fails
            preparing.stop()
            await preparing.settled.wait()
        run = self._runs.get(key) if key else None
        if run is not None:
            run.stop()
            await _wait(run)
        if request.thread_id is None and key and await self._store.find_thread(key):
            request = replace(request, thread_id=key, new_thread_id=None)
        elif request.thread_id is None and run is not None and run.plan.is_draft:
            first = run.plan.user_message.text  # never written: sent with the new words
            request = replace(request, text=_joined(first, request.text))
        async with aclosing(self.send(request)) as events:
            async for event in events:
                yield event

    async def compact(self, thread_id: str, instructions: str | None = None) -> CompactionResult:
        """``/compact [instructions]``: a "Context compressed" card at the end of
        the active branch, or "Nothing to compact yet." (see ``compaction.py``)."""
        if self.is_running(thread_id):
            raise ConfigError("This thread is still answering.", hint="Stop it first, then retry.")
        if self._compaction is None:
            raise ConfigError("Compaction is not available here.")
        return await self._compaction.compact(thread_id, instructions)

    def decide(self, thread_id: str, call_id: str, approved: bool) -> bool:
        """Approve or deny a call the agent of ``thread_id`` waits on
        (PRODUCT.md §11); False when it waits on no such call."""
        run = self._runs.get(thread_id)
        if run is None or run.plan.agent is None:
            return False
        return run.plan.agent.decide(call_id, approved)

    def answer(self, thread_id: str, call_id: str, answers: list[str] | None) -> bool:
        """Answer the questions the agent of ``thread_id`` asked (``None``
        dismisses them); False when it waits on no such call."""
        run = self._runs.get(thread_id)
        if run is None or run.plan.agent is None:
            return False
        return run.plan.agent.answer(call_id, answers)

    def waiting_calls(self, thread_id: str) -> list[str]:
        """The calls the agent of ``thread_id`` waits on, oldest first."""
        run = self._runs.get(thread_id)
        if run is None or run.plan.agent is None:
            return []
        return run.plan.agent.approvals.waiting()

    async def _route(self, plan: RunPlan, mode: AgentMode | None = None) -> RunPlan:
        """The planned run on its path: the knowledge base's, the agent's."""
        return await self._equip(await self._knowledge.apply(plan), mode)

    async def _prepared(
        self, key: str | None, prepare: Callable[[Preparation], Awaitable[RunPlan]]
    ) -> AsyncGenerator[ChatEvent, None]:
        """Prepare a run under ``key`` (the thread or draft id; a Stop finds
        it from now on), then drive it — or report why it cannot start."""
        if key is not None and self.is_running(key):
            yield _busy_failure()
            return
        preparing = Preparation()
        if key is not None:
            self._preparing[key] = preparing
        try:
            plan: RunPlan | MiraError = await prepare(preparing)
        except MiraError as exc:
            plan = exc
        finally:
            # no await from here until _drive has registered the run: a Stop
            # finds either the preparation or the run, never neither
            if key is not None and self._preparing.get(key) is preparing:
                del self._preparing[key]
            preparing.settled.set()
        if isinstance(plan, MiraError):
            yield Failed(None, None, "", "", Usage(), plan.to_dict())
            return
        async with aclosing(self._drive(plan, stopped=preparing.stopped)) as events:
            async for event in events:
                yield event

    async def _equip(self, plan: RunPlan, mode: AgentMode | None = None) -> RunPlan:
        """The plan answered by the agent when the thread's switch is on."""
        if not plan.thread.agent_enabled and plan.thread.mode != PLAN_MODE:
            return plan
        if self._agent is None:
            raise ConfigError("The agent is not available here.")
        return await self._agent.equip(plan, mode)

    async def _drive(
        self, plan: RunPlan, *, stopped: bool = False
    ) -> AsyncGenerator[ChatEvent, None]:
        """Run a plan in its own task and relay its events until the terminal
        one; ``stopped``: a Stop came while it was prepared."""
        if self._answering(plan.thread.id):
            yield _busy_failure()
            return
        run = ChatRun(
            plan,
            self._store,
            self._tokens,
            writer=self._writer,
            flush_interval=self._flush_interval,
        )
        if stopped:
            run.stop()  # takes effect as the run begins
        self._runs[plan.thread.id] = run
        run.start()
        try:
            while True:
                event = await run.queue.get()
                if isinstance(event, Completed) and event.unsaved is None:
                    self._after_answer(plan, event)
                yield event
                if isinstance(event, Completed | Stopped | Failed):
                    return
        finally:
            if run.task is not None and not run.task.done():
                run.stop()  # the consumer went away: stop and persist as stopped
                await _wait(run)
            if self._runs.get(plan.thread.id) is run:
                del self._runs[plan.thread.id]

    def _after_answer(self, plan: RunPlan, event: Completed) -> None:
        """Background work a completed answer starts: the summary's refresh,
        reading it aloud and illustrating it when the thread asks (PRODUCT §10)."""
        if self._summaries is not None:
            self._summaries.schedule_refresh(plan.thread.id)
        if self._speech is not None and plan.thread.tts_enabled:
            self._speech.after_answer(plan.thread, event.message)
        if self._images is not None and wants_images(plan.thread):
            self._images.after_answer(plan.thread, event.message)


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


def _joined(first: str, then: str) -> str:
    if not first.strip():
        return then
    if not then.strip():
        return first
    return f"{first.rstrip()}\n\n{then.lstrip()}"
