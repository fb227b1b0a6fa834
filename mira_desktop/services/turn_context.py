"""One turn's model context, ready to become a request and to be rebuilt after
an automatic compaction (PRODUCT.md §4).

A request is: one hidden system message (role prompt, context summary, latest
compaction checkpoint — :func:`finish_request`), the history replayed since
that checkpoint, and the new input (the question with its files read in full).

Automatic compaction happens inside a run: *pre-turn* when the estimated size
of the request exceeds ``context_window × compaction_threshold`` of the model
(either unset or 0 turns it off), or after the provider refused the request as
too long (*overflow*, one retry). :meth:`TurnContext.compact` summarises what
the request would replay before the question and keeps the new card; the run
writes that card right after the turn's answer (as its child, so the tree's
versions stay as they are: an edit or a regeneration is still a sibling of
what it replaces). The card ``covers_until`` the message before the question,
so later requests replay the checkpoint, then this turn, then what follows."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.models import ChatMessage, ChatRequest, Message, ModelInfo, Reasoning, Role
from ..core.ports import ChatProvider, TokenCounter
from .context import (
    Attachments,
    checkpoint_summary,
    hidden_system_text,
    history_entries,
    history_messages,
    split_at_checkpoint,
)
from .roles import role_system_prompt

if TYPE_CHECKING:
    from .compaction import CompactionService

log = logging.getLogger(__name__)

#: Per-message framing of chat formats (role markers…) and the reply's priming.
MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3


@dataclass(frozen=True, slots=True)
class HiddenContext:
    """What a request carries that the timeline never shows: the thread's role
    and its context summary (the checkpoint is added per request)."""

    role: Role | None = None
    summary: str = ""

    def system_text(self, checkpoint: Message | None = None) -> str:
        prompt = role_system_prompt(self.role) if self.role is not None else ""
        return hidden_system_text(prompt, self.summary, checkpoint_summary(checkpoint))


def finish_request(
    model: str,
    body: Sequence[ChatMessage],
    hidden: HiddenContext,
    checkpoint: Message | None = None,
    reasoning: Reasoning | None = None,
) -> ChatRequest:
    """The request of every user-facing path: one hidden system message (role
    prompt, summary, checkpoint) before ``body``, the role's temperature,
    top_p and max_tokens, and how hard the model reasons. The
    knowledge-base path reuses this."""
    system = hidden.system_text(checkpoint)
    messages = ((ChatMessage("system", system),) if system else ()) + tuple(body)
    role = hidden.role
    return ChatRequest(
        model=model,
        messages=messages,
        temperature=role.temperature if role else None,
        top_p=role.top_p if role else None,
        max_tokens=role.max_tokens if role else None,
        reasoning=reasoning,
    )


def estimate_tokens(tokens: TokenCounter, messages: Sequence[ChatMessage]) -> int:
    """Tokens of a request's messages with the shipped encoding (images not counted)."""
    return REPLY_PRIMING + sum(MESSAGE_OVERHEAD + tokens.count(m.content) for m in messages)


@dataclass
class TurnContext:
    thread_id: str
    model: str
    provider: ChatProvider
    provider_name: str
    model_info: ModelInfo | None
    hidden: HiddenContext
    #: the branch before the question (cards included)
    history: list[Message]
    earlier: Attachments
    question: ChatMessage
    notes: tuple[str, ...]
    tokens: TokenCounter
    compaction: CompactionService | None = None
    #: the card an automatic compaction of this turn made (written after the answer)
    card: Message | None = None
    trigger: str | None = None
    #: this send's reasoning level; None: the model's setting
    reasoning_choice: Reasoning | None = None

    @property
    def reasoning(self) -> Reasoning | None:
        """The level the request carries: the send's, else the model's."""
        if self.reasoning_choice is not None:
            return self.reasoning_choice
        return self.model_info.reasoning if self.model_info else None

    def request(self) -> ChatRequest:
        checkpoint: Message | None = self.card
        replay: list[Message] = []
        if checkpoint is None:
            checkpoint, replay = split_at_checkpoint(self.history)
        body = [*history_messages(replay, self.earlier), self.question]
        return finish_request(self.model, body, self.hidden, checkpoint, self.reasoning)

    def estimate(self, request: ChatRequest) -> int:
        return estimate_tokens(self.tokens, request.messages)

    def threshold_tokens(self) -> int | None:
        """``context_window × compaction_threshold``, or None when either is unset."""
        info = self.model_info
        if info is None or not info.context_window or not info.compaction_threshold:
            return None
        return int(info.context_window * info.compaction_threshold)

    def over_threshold(self, request: ChatRequest) -> bool:
        limit = self.threshold_tokens()
        return limit is not None and self.estimate(request) > limit

    def compactable(self) -> list[Message]:
        """The replayed messages before the question (empty: nothing to compact)."""
        if self.card is not None:
            return []
        _, replay = split_at_checkpoint(self.history)
        return replay if history_entries(replay) else []

    async def compact(self, trigger: str) -> ChatRequest | None:
        """Summarise what precedes the question into a checkpoint; the rebuilt
        request, or None when there is nothing to compact."""
        messages = self.compactable()
        if self.compaction is None or not messages:
            return None
        checkpoint, _ = split_at_checkpoint(self.history)
        self.card = await self.compaction.turn_card(
            thread_id=self.thread_id,
            provider=self.provider,
            provider_name=self.provider_name,
            model=self.model,
            window=self.model_info.context_window if self.model_info else None,
            reasoning=self.model_info.reasoning if self.model_info else None,
            checkpoint=checkpoint,
            messages=messages,
            attachments=self.earlier,
            covers_until=self.history[-1].id,
            trigger=trigger,
        )
        self.trigger = trigger
        log.info("thread %s compacted before answering (%s)", self.thread_id, trigger)
        return self.request()
