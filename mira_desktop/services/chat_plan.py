"""Planning a send or an edit (PRODUCT.md §2–§5): what ``ChatService`` resolves
before a run starts — the thread (or a new draft), the model, the role bound
to the thread, the history the new user message follows, its attachments, and
the request (``request_context.ContextBuilder``).

:func:`choose_path` is the one place that picks the path of a send (PRODUCT.md
§3): normal chat, or the knowledge-base path when the thread has a knowledge
base bound (``SendRequest.kb_id`` binds one; a draft's on its commit) and the
agent is off. The knowledge-base path (``chat_knowledge.KnowledgeRoute``,
applied by ``ChatService`` to the planned run of a send, an edit or a
regeneration) keeps the :class:`~.turn_context.TurnContext` the builder makes
(role, summary, checkpoint, history, compaction): it replaces
``context.question`` with the question and its numbered sources, so
``context.request()`` — and the rebuild after an automatic compaction — carry
them with the role's prompt and parameters (``turn_context.finish_request``).

Attachments: ``SendRequest.attachments`` are the composer's prepared files
(``AttachmentService.prepare``). Their pending references become the user
message's when it is written (for a draft: on the draft commit). An edit
carries the edited message's attachments over to the new version (fresh
references) unless ``keep_attachments`` is false."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from ..core.agent import CHAT_MODE, PLAN_MODE, AgentMode
from ..core.errors import ConfigError
from ..core.ids import new_id, utc_now
from ..core.models import Message, MessageRole, MessageStatus, Reasoning, Thread
from .attachment_context import TurnFile
from .context import title_from_text
from .request_context import TurnSpec
from .run_support import RunPlan, new_assistant

if TYPE_CHECKING:
    from ..storage.context_store import PendingPart
    from ..storage.store import Store
    from .attachments import PreparedAttachment
    from .providers import ProviderService
    from .request_context import ContextBuilder

log = logging.getLogger(__name__)

LAST_MODEL_KEY = "chat.last_model"


class ChatPath(StrEnum):
    NORMAL = "normal"
    KNOWLEDGE = "knowledge"


@dataclass(frozen=True)
class SendRequest:
    """One send. ``thread_id`` None means a new draft; ``new_thread_id`` lets the
    caller choose the draft's id in advance (the window keys its view by it).
    ``provider``/``model`` default to the thread's, then the last chosen.
    ``role_id`` binds a role to the thread (a draft: on its commit); None
    keeps the thread's. ``attachments`` are the composer's prepared files."""

    text: str
    provider: str | None = None
    model: str | None = None
    thread_id: str | None = None
    new_thread_id: str | None = None
    workspace_id: str | None = None
    #: Edit → branch (PRODUCT.md §5): ``text`` becomes a new version of this user
    #: message of ``thread_id`` (a sibling); the old branch is kept.
    edit_of: str | None = None
    attachments: tuple[PreparedAttachment, ...] = ()
    role_id: str | None = None
    #: an edit keeps the edited message's attachments on the new version
    keep_attachments: bool = True
    #: binds this knowledge base to the thread (a draft: on its commit); None
    #: keeps the thread's. The send then takes the knowledge-base path.
    kb_id: str | None = None
    #: sets the thread's TTS switch (a draft: on its commit); None keeps it.
    tts: bool | None = None
    #: sets the thread's image switch (a draft: on its commit); None keeps it.
    image: bool | None = None
    #: sets the thread's agent switch (a draft: on its commit); None keeps it.
    agent: bool | None = None
    #: this answer's approval mode (the setting's when None)
    agent_mode: AgentMode | None = None
    #: sets the thread's plan mode (a draft: on its commit); None keeps it.
    plan: bool | None = None
    #: how hard the model reasons for this answer; None: the model's setting
    reasoning: Reasoning | None = None


def choose_path(thread: Thread | None, request: SendRequest | None = None) -> ChatPath:
    """The path of a send (PRODUCT.md §3): the knowledge-base path when a
    knowledge base is bound (the thread's, or the one the request binds) and
    the agent is off. Whether the input holds a text question is decided on
    that path (``RagService.prepare``: without one it falls back to normal
    chat, with a note). With the agent on, the base is one of its tools
    (``services/agent/knowledge.py``)."""
    kb_id = (request.kb_id if request else None) or (thread.kb_id if thread else None)
    agent = bool(thread and (thread.agent_enabled or thread.mode == PLAN_MODE))
    if request is not None and request.agent is not None:
        agent = request.agent
    if request is not None and request.plan:
        agent = True
    return ChatPath.KNOWLEDGE if kb_id and not agent else ChatPath.NORMAL


def _parts(
    carried: list[TurnFile], prepared: tuple[PreparedAttachment, ...]
) -> tuple[PendingPart, ...]:
    """The parts to write: carried files take fresh references, the composer's
    files hand over their pending ones."""
    fresh: list[PendingPart] = [(None, f.attachment) for f in carried]
    return (*fresh, *((p.pending_id, p.attachment) for p in prepared))


class SendPlanner:
    def __init__(
        self, store: Store, providers: ProviderService, builder: ContextBuilder, owner: str
    ) -> None:
        self._store = store
        self._providers = providers
        self._builder = builder
        self._owner = owner

    async def plan(self, request: SendRequest) -> RunPlan:
        """Resolve a send or an edit (raises ``MiraError``)."""
        text = request.text.strip()
        if not text and not request.attachments:
            raise ConfigError("Type a message first.")
        thread = await self.find_thread(request)
        provider_name, model = await self.choose_model(request, thread)
        config, provider = await self._providers.chat_provider(provider_name)
        if request.role_id is not None:
            await self._store.get_role(request.role_id)  # refuse an unknown role
        thread, history = await self._thread_and_history(request, thread, text, config.id, model)
        await self._store.set_setting(LAST_MODEL_KEY, {"provider": provider_name, "model": model})
        carried = await self._carried(request)
        spec = TurnSpec(
            thread=thread,
            persisted=request.thread_id is not None,
            history=history,
            text=text,
            provider_name=provider_name,
            provider=provider,
            model=model,
            files=[*carried, *(TurnFile(p.attachment, p.document) for p in request.attachments)],
        )
        context = await self._builder.turn(spec)
        context.reasoning_choice = request.reasoning
        user = self._user_message(thread.id, text, history, request, context.notes, spec.files)
        # the whole history, walked in Python: in a worker thread, which the
        # interpreter interrupts for the window (~18 ms for 5,000 messages)
        built = await asyncio.to_thread(context.request)
        assistant = new_assistant(thread.id, user.id, new_id(), model, provider_name)
        if context.reasoning is not None:  # the level it was asked with (diagnostics)
            assistant = replace(assistant, data={"reasoning": str(context.reasoning)})
        return RunPlan(
            thread=thread,
            is_draft=request.thread_id is None,
            user_message=user,
            assistant=assistant,
            request=built,
            provider_name=provider_name,
            provider=provider,
            owner=self._owner,
            kind="edit" if request.edit_of else "send",
            parts=_parts(carried, request.attachments),
            context=context,
        )

    async def _thread_and_history(
        self, request: SendRequest, thread: Thread | None, text: str, provider_id: str, model: str
    ) -> tuple[Thread, list[Message]]:
        """The thread (a new draft's in memory) and the history the message follows."""
        if thread is None:
            return await self._draft_thread(request, text, provider_id, model), []
        thread = await self._update_thread(thread, request, provider_id, model)
        return thread, await self._history(thread.id, request)

    async def find_thread(self, request: SendRequest) -> Thread | None:
        thread = await self._store.find_thread(request.thread_id) if request.thread_id else None
        if request.thread_id and thread is None:
            raise ConfigError(f"No thread with id {request.thread_id}.")
        if request.edit_of and thread is None:
            raise ConfigError("Editing a message needs its thread.", hint="Pass --thread ID.")
        return thread

    async def choose_model(self, request: SendRequest, thread: Thread | None) -> tuple[str, str]:
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

    async def carried_images(self, request: SendRequest) -> list[str]:
        """Names of the images an edit carries over (for the pre-send check)."""
        return [f.attachment.name for f in await self._carried(request) if f.attachment.is_image]

    async def _carried(self, request: SendRequest) -> list[TurnFile]:
        if not (request.edit_of and request.thread_id and request.keep_attachments):
            return []
        return await self._builder.stored_files(request.edit_of)

    async def _update_thread(
        self, thread: Thread, request: SendRequest, provider_id: str, model: str
    ) -> Thread:
        changes: dict[str, object] = {}
        if (thread.provider_id, thread.model) != (provider_id, model):
            changes.update(provider_id=provider_id, model=model)
        if request.role_id is not None and request.role_id != thread.role_id:
            changes["role_id"] = request.role_id
        if request.kb_id is not None and request.kb_id != thread.kb_id:
            changes["kb_id"] = request.kb_id
        if request.tts is not None and request.tts != thread.tts_enabled:
            changes["tts_enabled"] = request.tts
        if request.image is not None and request.image != thread.image_enabled:
            changes["image_enabled"] = request.image
        if request.agent is not None and request.agent != thread.agent_enabled:
            changes["agent_enabled"] = request.agent
        if request.plan is not None and _mode(request.plan) != thread.mode:
            changes["mode"] = _mode(request.plan)
        if not changes:
            return thread
        return await self._store.update_thread(thread.id, updated_at=thread.updated_at, **changes)

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

    def _user_message(
        self,
        thread_id: str,
        text: str,
        history: list[Message],
        request: SendRequest,
        notes: tuple[str, ...],
        files: Sequence[TurnFile] = (),
    ) -> Message:
        now = utc_now()
        data: dict[str, object] = {}
        if request.edit_of:
            data["edited_from"] = request.edit_of
        if notes:
            data["attachment_notes"] = list(notes)
        if files:
            # What the timeline shows under the message (the parts table holds the rest).
            data["attachments"] = [_file_summary(f) for f in files]
        return Message(
            id=new_id(),
            thread_id=thread_id,
            role=MessageRole.USER,
            text=text,
            created_at=now,
            updated_at=now,
            parent_id=history[-1].id if history else None,
            status=MessageStatus.COMPLETE,
            data=data or None,
        )

    async def _draft_thread(
        self, request: SendRequest, text: str, provider_id: str, model: str
    ) -> Thread:
        workspace_id = request.workspace_id or (await self._store.default_workspace()).id
        now = utc_now()
        names = ", ".join(p.name for p in request.attachments)
        return Thread(
            id=request.new_thread_id or new_id(),
            title=title_from_text(text or names),
            workspace_id=workspace_id,
            created_at=now,
            updated_at=now,
            provider_id=provider_id,
            model=model,
            role_id=request.role_id,
            kb_id=request.kb_id,
            tts_enabled=bool(request.tts),
            image_enabled=bool(request.image),
            agent_enabled=bool(request.agent),
            mode=_mode(bool(request.plan)),
        )


def _mode(plan: bool) -> str:
    return PLAN_MODE if plan else CHAT_MODE


#: characters of an audio file's transcript the message's data keeps (the
#: timeline shows them on hover; the whole of it stays with the attachment)
TRANSCRIPT_EXCERPT = 600


def _file_summary(file: TurnFile) -> dict[str, object]:
    a = file.attachment
    summary: dict[str, object] = {
        "name": a.name,
        "mime": a.mime,
        "size": a.size,
        "kind": str(a.kind),
        "sha256": a.sha256,
    }
    transcript = a.info.get("transcript")
    if isinstance(transcript, str) and transcript:  # what the model read of an audio file
        cut = transcript[:TRANSCRIPT_EXCERPT]
        summary["transcript"] = cut + "…" if len(transcript) > TRANSCRIPT_EXCERPT else cut
    return summary
