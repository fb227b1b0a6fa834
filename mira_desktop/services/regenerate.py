"""Regenerating an answer (PRODUCT.md §5): the presets and their guidance texts,
model-tier escalation of a plain Retry, and the plan of a regeneration run.

A regeneration is a new assistant message whose parent is the question of the
answer being regenerated: a sibling version, nothing is overwritten and no user
message is written. The request is the branch down to that question.

Guidance reaches the model appended to the question itself (the last user
message of the request) as ``[Regeneration guidance: …]``, not as a separate
user message: some servers (Anthropic's Messages API) refuse two user turns in
a row, and the stored question stays exactly what the user typed.

The request is built like a send's (``request_context.ContextBuilder``): the
thread's role prompt and parameters, its summary, the latest checkpoint, and
the question's own files read in full again (it is the newest user message).
Images a non-vision model cannot take are noted in the new answer's ``data``
(``attachment_notes``), since the question itself is not written again.

Tier escalation: a plain Retry (no guidance, no model chosen) of an answer made
by a model of tier *fast* uses the next tier up that has a model configured
(fast → standard → reasoning; the same provider first), and says so in the
answer's ``data`` (``escalated_from``, ``escalated_to``, ``note``). Without a
tier on the answer's model, or with nothing above it, the same model retries.
The thread's model is left as the user chose it: escalation is one answer's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..core.errors import ConfigError
from ..core.ids import new_id
from ..core.models import ChatMessage, Message, MessageRole, ModelInfo, ModelTier, Reasoning
from .request_context import TurnSpec
from .run_support import RunPlan, new_assistant

if TYPE_CHECKING:
    from ..storage.store import Store
    from .providers import ProviderService
    from .request_context import ContextBuilder

log = logging.getLogger(__name__)


class RegeneratePreset(StrEnum):
    RETRY = "retry"
    CONCISE = "concise"
    DETAILED = "detailed"
    CREATIVE = "creative"
    CUSTOM = "custom"


PRESET_GUIDANCE: dict[RegeneratePreset, str] = {
    RegeneratePreset.CONCISE: "Make the answer more concise.",
    RegeneratePreset.DETAILED: "Make the answer more detailed.",
    RegeneratePreset.CREATIVE: "Make the answer more creative.",
}

TIER_ORDER: tuple[ModelTier, ...] = (ModelTier.FAST, ModelTier.STANDARD, ModelTier.REASONING)


@dataclass(frozen=True)
class RegenerateRequest:
    """Answer ``message_id`` (an assistant message of ``thread_id``) again.

    ``guidance`` is the "Custom guidance…" text; given, it wins over ``preset``.
    ``provider``/``model`` default to the model of the answer being regenerated
    (then the thread's); choosing one, or a ``reasoning`` level, turns tier
    escalation off."""

    thread_id: str
    message_id: str
    preset: RegeneratePreset | str = RegeneratePreset.RETRY
    guidance: str | None = None
    provider: str | None = None
    model: str | None = None
    #: how hard the model reasons this time; None: the model's setting
    reasoning: Reasoning | None = None


def guidance_for(preset: RegeneratePreset | str, guidance: str | None) -> str | None:
    """The guidance text of a preset or a custom text (None for a plain Retry)."""
    custom = " ".join((guidance or "").split())
    if custom:
        return custom
    try:
        chosen = RegeneratePreset(str(preset).lower())
    except ValueError:
        names = ", ".join(p.value for p in RegeneratePreset)
        raise ConfigError(
            f"Unknown regeneration preset {preset!r}.", hint=f"Use {names}."
        ) from None
    if chosen is RegeneratePreset.CUSTOM:
        raise ConfigError("Type the guidance for the new answer first.")
    return PRESET_GUIDANCE.get(chosen)


def guidance_note(guidance: str) -> str:
    return f"[Regeneration guidance: {guidance}]"


def with_guidance(messages: tuple[ChatMessage, ...], guidance: str) -> tuple[ChatMessage, ...]:
    """Append the guidance note to the last user message of a request."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user":
            noted = replace(message, content=f"{message.content}\n\n{guidance_note(guidance)}")
            return (*messages[:index], noted, *messages[index + 1 :])
    return (*messages, ChatMessage("user", guidance_note(guidance)))


async def next_tier_model(store: Store, provider_name: str, model: str) -> ModelInfo | None:
    """The model a plain Retry escalates to, or None to retry the same model."""
    current = await store.get_model(provider_name, model)
    if current is None or current.tier is None:
        return None
    candidates = await store.list_models()
    for tier in TIER_ORDER[TIER_ORDER.index(current.tier) + 1 :]:
        in_tier = [m for m in candidates if m.tier is tier]
        in_tier.sort(key=lambda m: (m.provider_name != provider_name, m.provider_name, m.name))
        if in_tier:
            return in_tier[0]
    return None


async def _answer_model(store: Store, original: Message, thread_id: str) -> tuple[str, str]:
    """The provider and model that made the answer, else the thread's."""
    if original.provider and original.model:
        if any(p.name == original.provider for p in await store.list_providers()):
            return original.provider, original.model
    thread = await store.get_thread(thread_id)
    if thread.provider_id and thread.model:
        config = await store.get_provider_by_id(thread.provider_id)
        if config is not None:
            return config.name, thread.model
    raise ConfigError(
        "Choose a provider and a model first.",
        hint="The model of this answer is no longer configured; pick one to regenerate with.",
    )


async def _choose_model(
    store: Store, request: RegenerateRequest, original: Message, escalate: bool
) -> tuple[str, str, dict[str, Any]]:
    """(provider, model, data for the new answer) of a regeneration."""
    if request.provider and request.model:
        return request.provider, request.model, {}
    provider, model = await _answer_model(store, original, request.thread_id)
    if request.provider or request.model:
        return request.provider or provider, request.model or model, {}
    target = await next_tier_model(store, provider, model) if escalate else None
    if target is None:
        return provider, model, {}
    current = await store.get_model(provider, model)
    tier = str(current.tier) if current and current.tier else None
    data = {
        "escalated_from": {"provider": provider, "model": model, "tier": tier},
        "escalated_to": {
            "provider": target.provider_name,
            "model": target.name,
            "tier": str(target.tier),
        },
        "note": f"Retry escalated to {target.name} ({target.tier} tier) from {model}.",
    }
    log.info(
        "retry escalated from %s/%s to %s/%s", provider, model, target.provider_name, target.name
    )
    return target.provider_name, target.name, data


async def _question_of(store: Store, request: RegenerateRequest) -> tuple[list[Message], Message]:
    """(branch down to the question, the answer being regenerated)."""
    path = await store.live_path(request.thread_id, request.message_id)
    original = path[-1]
    if original.role is not MessageRole.ASSISTANT:
        raise ConfigError(
            "Only an answer can be regenerated.", hint="To change a question, edit it instead."
        )
    if len(path) < 2 or path[-2].role is not MessageRole.USER:
        raise ConfigError("This answer has no question to answer again.")
    return path[:-1], original


def _answer_data(
    request: RegenerateRequest, original: Message, guidance: str | None, notes: tuple[str, ...]
) -> dict[str, Any]:
    """What the new answer records about how it was made."""
    preset = str(request.preset) if not request.guidance else str(RegeneratePreset.CUSTOM)
    data: dict[str, Any] = {"regenerated_from": original.id, "preset": preset}
    if guidance:
        data["guidance"] = guidance
    if notes:
        data["attachment_notes"] = list(notes)
    return data


async def plan_regeneration(
    request: RegenerateRequest,
    store: Store,
    providers: ProviderService,
    owner: str,
    builder: ContextBuilder,
) -> RunPlan:
    """Resolve everything a regeneration run needs (raises ``MiraError``)."""
    guidance = guidance_for(request.preset, request.guidance)
    thread = await store.get_thread(request.thread_id)
    history, original = await _question_of(store, request)
    question = history[-1]
    provider_name, model, data = await _choose_model(  # a chosen effort keeps the model
        store, request, original, escalate=guidance is None and request.reasoning is None
    )
    _, provider = await providers.chat_provider(provider_name)
    spec = TurnSpec(
        thread=thread,
        persisted=True,
        history=history[:-1],
        text=question.text,
        provider_name=provider_name,
        provider=provider,
        model=model,
        files=await builder.stored_files(question.id),
        suffix=guidance_note(guidance) if guidance else "",
    )
    context = await builder.turn(spec)
    context.reasoning_choice = request.reasoning
    data.update(_answer_data(request, original, guidance, context.notes))
    if context.reasoning is not None:
        data["reasoning"] = str(context.reasoning)
    assistant = new_assistant(thread.id, question.id, new_id(), model, provider_name)
    return RunPlan(
        thread=thread,
        is_draft=False,
        user_message=question,
        assistant=replace(assistant, data=data),
        request=context.request(),
        provider_name=provider_name,
        provider=provider,
        owner=owner,
        kind="regenerate",
        write_user=False,
        context=context,
    )
