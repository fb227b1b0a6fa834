"""The context of a request, gathered from storage (PRODUCT.md §4): the thread's
role and context summary (the *hidden context*), the attachments of its
messages, the model's settings, and the new input rendered with its files.

:func:`~.turn_context.finish_request` is the one place where the hidden context and the
role's sampling parameters (temperature, top_p, max_tokens) are put on a
request. Every user-facing path goes through it — send, edit, regenerate,
redirect, and the knowledge-base path later (it builds its own body of
messages and calls ``finish_request`` with the same ``HiddenContext``).
Internal calls (summary, compaction, titles) do not: see ``summariser.py``."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.errors import NotFoundError
from ..core.models import Message, MessageRole, ModelInfo, Role, Thread
from ..core.ports import ChatProvider, TokenCounter
from .attachment_context import TurnFile, render_question
from .turn_context import HiddenContext, TurnContext, finish_request

if TYPE_CHECKING:
    from ..storage.context_store import ContextStore
    from ..storage.store import Store
    from .attachments import AttachmentService
    from .compaction import CompactionService

log = logging.getLogger(__name__)

__all__ = ["ContextBuilder", "HiddenContext", "TurnSpec", "finish_request"]


@dataclass
class TurnSpec:
    """What a turn is made of, before the storage look-ups. ``history`` is the
    branch before the question; ``persisted`` is false for a new draft (no row
    to read yet); ``suffix`` is appended to the question for the model only
    (regeneration guidance)."""

    thread: Thread
    persisted: bool
    history: list[Message]
    text: str
    provider_name: str
    provider: ChatProvider
    model: str
    files: Sequence[TurnFile] = ()
    suffix: str = ""


class ContextBuilder:
    def __init__(
        self,
        store: Store,
        context_store: ContextStore,
        tokens: TokenCounter,
        *,
        attachments: AttachmentService | None = None,
        compaction: CompactionService | None = None,
    ) -> None:
        self._store = store
        self._context = context_store
        self._tokens = tokens
        self._attachments = attachments
        self._compaction = compaction

    @property
    def attachments(self) -> AttachmentService | None:
        return self._attachments

    async def role(self, role_id: str | None) -> Role | None:
        if not role_id:
            return None
        try:
            return await self._store.get_role(role_id)
        except NotFoundError:
            log.warning("role %s of a thread is gone; sending without it", role_id)
            return None

    async def hidden(self, thread: Thread, *, persisted: bool = True) -> HiddenContext:
        role = await self.role(thread.role_id)
        summary = (await self._context.get_summary(thread.id))[0] if persisted else None
        return HiddenContext(role=role, summary=summary or "")

    async def model_info(self, provider_name: str, model: str) -> ModelInfo | None:
        return await self._store.get_model(provider_name, model)

    async def stored_files(self, message_id: str) -> list[TurnFile]:
        """The attachments of a saved message, to read in full again."""
        found = await self._context.attachments([message_id])
        return [TurnFile(a) for a in found.get(message_id, [])]

    async def turn(self, spec: TurnSpec) -> TurnContext:
        """Everything a run needs to build (and rebuild after compaction) its request."""
        info = await self.model_info(spec.provider_name, spec.model)
        hidden = await self.hidden(spec.thread, persisted=spec.persisted)
        users = [m.id for m in spec.history if m.role is MessageRole.USER]
        earlier = await self._context.attachments(users) if spec.persisted else {}
        rendered = await render_question(
            spec.text,
            spec.files,
            model=spec.model,
            vision=bool(info and info.vision),
            attachments=self._attachments,
        )
        question = rendered.message
        if spec.suffix:
            question = replace(question, content=f"{question.content}\n\n{spec.suffix}")
        return TurnContext(
            thread_id=spec.thread.id,
            model=spec.model,
            provider=spec.provider,
            provider_name=spec.provider_name,
            model_info=info,
            hidden=hidden,
            history=list(spec.history),
            earlier=earlier,
            question=question,
            notes=rendered.notes,
            tokens=self._tokens,
            compaction=self._compaction,
        )
