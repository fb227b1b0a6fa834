"""``CompactionService``: ``/compact [instructions]`` (PRODUCT.md §4).

A compaction summarises the active branch since the latest checkpoint (the
earlier checkpoint's summary folded in) into a "Context compressed" card: a
message of role ``system-card`` appended to the active branch, with ``data``
``{"kind": "compaction", "summary", "covers_until", "instructions", "trigger",
"model"}`` and the summary as its text (so search and exports find it). Later
requests replay only the latest checkpoint, as hidden context, plus what
follows it (``context.split_at_checkpoint``). With nothing new since the last
checkpoint the result says "Nothing to compact yet." — a result, not an error.

The summary is made by the thread's model (the run's model for automatic
compactions, see ``turn_context.py``), without the role: an internal call. Its
prompt keeps identifiers — URLs, DOIs, PMIDs, file paths, numbers — verbatim."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.context import (
    COMPACTION_KIND,
    CONTEXT_COMPRESSED,
    NOTHING_TO_COMPACT,
    CompactionResult,
)
from ..core.errors import ConfigError
from ..core.ids import new_id, utc_now
from ..core.models import (
    Message,
    MessageRole,
    MessageStatus,
    ModelInfo,
    Reasoning,
    Thread,
    least_reasoning,
)
from ..core.ports import ChatProvider, TokenCounter
from .context import Attachments, checkpoint_summary, history_entries, split_at_checkpoint
from .summariser import COMPACTION_PROMPT, SummaryJob, summarise, transcript_lines

if TYPE_CHECKING:
    from ..storage.context_store import ContextStore
    from ..storage.store import Store
    from .providers import ProviderService

log = logging.getLogger(__name__)


async def thread_model(
    store: Store, providers: ProviderService, thread: Thread
) -> tuple[str, ChatProvider, str, ModelInfo | None]:
    """``(provider name, adapter, model, model settings)`` of a thread's model."""
    config = await store.get_provider_by_id(thread.provider_id) if thread.provider_id else None
    if config is None or not thread.model:
        raise ConfigError(
            "This thread has no model to summarise with.",
            hint="Choose a model for the thread first (send a message with one).",
        )
    _, provider = await providers.chat_provider(config.name)
    info = await store.get_model(config.name, thread.model)
    return config.name, provider, thread.model, info


def make_card(
    thread_id: str,
    summary: str,
    *,
    covers_until: str | None,
    trigger: str,
    model: str,
    provider: str,
    instructions: str | None = None,
    parent_id: str | None = None,
) -> Message:
    """A "Context compressed" card (not saved)."""
    now = utc_now()
    return Message(
        id=new_id(),
        thread_id=thread_id,
        role=MessageRole.SYSTEM_CARD,
        text=summary,
        created_at=now,
        updated_at=now,
        parent_id=parent_id,
        status=MessageStatus.COMPLETE,
        model=model,
        provider=provider,
        data={
            "kind": COMPACTION_KIND,
            "title": CONTEXT_COMPRESSED,
            "summary": summary,
            "covers_until": covers_until,
            "instructions": instructions or None,
            "trigger": trigger,
            "model": model,
        },
    )


class CompactionService:
    def __init__(
        self,
        store: Store,
        context_store: ContextStore,
        providers: ProviderService,
        tokens: TokenCounter,
    ) -> None:
        self._store = store
        self._context = context_store
        self._providers = providers
        self._tokens = tokens

    async def compact(self, thread_id: str, instructions: str | None = None) -> CompactionResult:
        """Write a checkpoint card at the end of the active branch (manual
        ``/compact``). Callers refuse a thread that is answering
        (``ChatService.compact`` does)."""
        thread = await self._store.get_thread(thread_id)
        branch = await self._store.active_branch(thread_id)
        checkpoint, replay = split_at_checkpoint(branch)
        if not history_entries(replay):
            return CompactionResult(thread_id, None, NOTHING_TO_COMPACT)
        provider_name, provider, model, info = await thread_model(
            self._store, self._providers, thread
        )
        card = await self.turn_card(
            thread_id=thread_id,
            provider=provider,
            provider_name=provider_name,
            model=model,
            window=info.context_window if info else None,
            reasoning=info.reasoning if info else None,
            checkpoint=checkpoint,
            messages=replay,
            attachments=await self._earlier(replay),
            covers_until=branch[-1].id,
            trigger="manual",
            instructions=instructions,
        )
        card = replace(card, parent_id=branch[-1].id)
        # the summary took a while: an answer regenerated, a turn undone or
        # another version chosen meanwhile would get a card of a branch that
        # is no longer the one shown (and undone words back in the context)
        now = await self._store.get_thread(thread_id)
        if now.active_leaf_id != branch[-1].id:
            raise ConfigError(
                "The conversation changed while it was being compressed; nothing was saved.",
                hint="Run /compact again.",
            )
        await self._store.add_message(card)
        log.info("thread %s compacted by hand (%d messages)", thread_id, len(replay))
        return CompactionResult(thread_id, card, "Context compressed.")

    async def turn_card(
        self,
        *,
        thread_id: str,
        provider: ChatProvider,
        provider_name: str,
        model: str,
        window: int | None,
        checkpoint: Message | None,
        messages: Sequence[Message],
        attachments: Attachments,
        covers_until: str | None,
        trigger: str,
        instructions: str | None = None,
        reasoning: Reasoning | None = None,
    ) -> Message:
        """Summarise ``messages`` after ``checkpoint`` into an unsaved card;
        ``reasoning``: the model's level (the summary asks with the least)."""
        job = SummaryJob(
            model=model,
            system=COMPACTION_PROMPT,
            previous=checkpoint_summary(checkpoint),
            instructions=(instructions or "").strip(),
            reasoning=least_reasoning(reasoning),
        )
        lines = transcript_lines(messages, attachments)
        summary = await summarise(provider, job, lines, tokens=self._tokens, window=window)
        return make_card(
            thread_id,
            summary,
            covers_until=covers_until,
            trigger=trigger,
            model=model,
            provider=provider_name,
            instructions=(instructions or "").strip() or None,
        )

    async def _earlier(self, messages: Sequence[Message]) -> Attachments:
        users = [m.id for m in messages if m.role is MessageRole.USER]
        return await self._context.attachments(users)
