"""The knowledge-base path of a chat run (PRODUCT.md §3 path 2), applied to a
planned run (:class:`~.run_support.RunPlan`) of a send, an edit, a redirect or
a regeneration whose thread has a knowledge base bound and the agent off
(:func:`~.chat_plan.choose_path`).

``RagService.prepare`` decides the outcome for the question:

* ``ANSWER`` — the best passages, numbered, go with the question: the turn's
  :class:`~.turn_context.TurnContext` is kept (role prompt and parameters,
  summary, checkpoint, history, compaction) and only its ``question`` becomes
  the instructions, the numbered sources and the question, so
  ``context.request()`` — and its rebuild after an automatic compaction —
  carry them. The stored user message stays what the user typed, so later
  turns replay the plain question, not old sources.
* ``REFUSAL`` — an empty base: the fixed refusal is the answer, written as a
  complete assistant message by the ordinary run machinery, but no model is
  called (:class:`FixedAnswer` stands in for the provider).
* ``FALLBACK`` — files or images without a text question: normal chat; the
  answer carries the note that the base was not searched.

Every outcome lands in the answer's ``data`` (``RagContext.to_data()`` plus
``kb_name``): ``kb_path``, ``sources``, ``kb_note``, ``kb_warnings``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

from ..core.events import StreamDone, StreamEvent, TextDelta, UsageReported
from ..core.knowledge import RagContext, RagOutcome
from ..core.models import ChatMessage, ChatRequest, ModelInfo
from .chat_plan import ChatPath, choose_path
from .run_support import RunPlan

if TYPE_CHECKING:
    from .kb import RagService

log = logging.getLogger(__name__)

#: How the question reaches the model on the knowledge-base path.
QUESTION_TEMPLATE = "{instructions}\n\nQuestion: {question}"


def knowledge_question(rag: RagContext, question: ChatMessage) -> ChatMessage:
    """The question with the instructions and numbered sources before it
    (images and the files read into the question are kept)."""
    content = QUESTION_TEMPLATE.format(instructions=rag.system_prompt, question=question.content)
    return replace(question, content=content)


def answer_data(rag: RagContext) -> dict[str, object]:
    """What the answer's ``data`` records about the knowledge-base path."""
    return {**rag.to_data(), "kb_name": rag.kb_name}


class FixedAnswer:
    """A stand-in provider that "answers" a fixed text without any network
    call (the empty knowledge base's refusal); it reports no token usage."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self._text = text

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        yield TextDelta(self._text)
        yield UsageReported(prompt_tokens=0, completion_tokens=0, reasoning_tokens=0)
        yield StreamDone("stop")

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def aclose(self) -> None:
        return None


class KnowledgeRoute:
    """Applies the knowledge-base path to planned runs (see the module docstring).
    Without a ``RagService`` every run stays on the normal path."""

    def __init__(self, rag: RagService | None) -> None:
        self._rag = rag

    async def apply(self, plan: RunPlan) -> RunPlan:
        """``plan`` routed by its thread: unchanged on the normal path."""
        if self._rag is None or choose_path(plan.thread) is not ChatPath.KNOWLEDGE:
            return plan
        assert plan.thread.kb_id is not None
        question = plan.user_message.text
        has_files = bool(plan.parts) or bool(plan.context and plan.context.question.images)
        rag = await self._rag.prepare(plan.thread.kb_id, question, has_files=has_files)
        log.info(
            "thread %s: knowledge base %s, %s (%d sources)",
            plan.thread.id,
            rag.kb_name,
            rag.outcome,
            len(rag.sources),
        )
        data = {**(plan.assistant.data or {}), **answer_data(rag)}
        plan = replace(plan, assistant=replace(plan.assistant, data=data))
        if rag.outcome is RagOutcome.REFUSAL:
            return _refusal(plan, rag)
        if rag.outcome is RagOutcome.ANSWER and plan.context is not None:
            plan.context.question = knowledge_question(rag, plan.context.question)
            plan = replace(plan, request=plan.context.request())
        return plan


def _refusal(plan: RunPlan, rag: RagContext) -> RunPlan:
    """The refusal written as the answer: no model answers it (none is named
    on the message) and nothing is compacted for it."""
    assistant = replace(plan.assistant, model=None, provider=None)
    return replace(
        plan,
        assistant=assistant,
        provider=FixedAnswer(plan.provider_name, rag.text),
        context=None,
    )
