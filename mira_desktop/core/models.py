"""Plain value types of the product (PRODUCT.md §1): workspaces, threads, messages,
usage, providers, models, roles. Frozen dataclasses; no I/O and no behaviour beyond
small derived properties. Identity (ids, parent links) is stored here because the
conversation is a tree and every layer needs to see its shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class MessageRole(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM_CARD = "system-card"


class MessageStatus(StrEnum):
    COMPLETE = "complete"
    STREAMING = "streaming"
    STOPPED = "stopped"
    FAILED = "failed"


class ProviderKind(StrEnum):
    OPENAI = "openai"
    OLLAMA = "ollama"
    ANTHROPIC = "anthropic"


class ModelTier(StrEnum):
    FAST = "fast"
    STANDARD = "standard"
    REASONING = "reasoning"


class Reasoning(StrEnum):
    """How hard a model reasons before it answers (a per-model setting, or one
    send's choice). Each vendor gets its own field: Anthropic an extended-
    thinking budget, Ollama ``think``, an OpenAI-compatible server
    ``reasoning_effort``. No value at all (``None``) sends nothing: the
    server's default."""

    OFF = "off"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


def least_reasoning(level: Reasoning | None) -> Reasoning | None:
    """The level of a request that needs no thought (a title, a summary) to
    a model set to ``level``: off when one is set (its server takes the
    field), else none (no field the server never had)."""
    return Reasoning.OFF if level is not None else None


DEFAULT_WORKSPACE_NAME = "Mira BASE"


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one answer. ``counts_estimated``: the prompt/completion
    counts were computed locally with tiktoken rather than reported by the
    provider; ``reasoning_estimated``: the same of the reasoning count.
    ``estimated`` is true when any count is an estimate."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    counts_estimated: bool = False
    reasoning_estimated: bool = False

    @property
    def estimated(self) -> bool:
        return self.counts_estimated or self.reasoning_estimated

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "estimated": self.estimated,
        }


@dataclass(frozen=True, slots=True)
class Workspace:
    id: str
    name: str
    color: str = ""
    root_dir: str | None = None
    sort_order: int = 0
    is_default: bool = False
    created_at: str = ""
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class Thread:
    id: str
    title: str
    workspace_id: str
    created_at: str
    updated_at: str
    provider_id: str | None = None
    model: str | None = None
    role_id: str | None = None
    kb_id: str | None = None
    agent_enabled: bool = False
    mode: str = "chat"
    tts_enabled: bool = False
    image_enabled: bool = False
    pinned: bool = False
    pin_order: int | None = None
    archived: bool = False
    deleted_at: str | None = None
    source: str = "desktop"
    active_leaf_id: str | None = None


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    thread_id: str
    role: MessageRole
    text: str
    created_at: str
    updated_at: str = ""
    parent_id: str | None = None
    status: MessageStatus = MessageStatus.COMPLETE
    thinking: str = ""
    thinking_ms: int | None = None
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    error: dict[str, Any] | None = None
    data: dict[str, Any] | None = None
    deleted_at: str | None = None
    sibling_index: int = 0
    sibling_count: int = 1


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    id: str
    name: str
    kind: ProviderKind
    base_url: str
    has_key: bool = False
    created_at: str = ""
    #: changes with every edit (address, kind, key, name): a client built
    #: for an older version of the row is stale (``ProviderService``)
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """A model as a provider lists it, plus the per-model settings of §12."""

    name: str
    provider_id: str | None = None
    provider_name: str = ""
    display_name: str = ""
    context_window: int | None = None
    vision: bool = False
    tier: ModelTier | None = None
    compaction_threshold: float | None = None
    #: how hard it reasons; None: the server's default
    reasoning: Reasoning | None = None


@dataclass(frozen=True, slots=True)
class Role:
    id: str
    name: str
    description: str = ""
    persona: str = ""
    world_view: str = ""
    scenario: str = ""
    examples: str = ""
    style: str = ""
    constraints: str = ""
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model (PRODUCT.md §11): its name, what it does,
    and its arguments as a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the model made: the vendor's id for it, the tool's name and
    the arguments decoded from JSON (``{}`` when it sent none)."""

    call_id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of a request to a model, in vendor-neutral form.

    An assistant message may carry the ``tool_calls`` it made; the result of
    one call goes back as a ``"tool"`` message with its ``tool_call_id`` and
    the tool's ``name``."""

    role: str  # "system" | "user" | "assistant" | "tool"
    content: str
    images: tuple[ImagePart, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    #: an assistant's reasoning as the vendor must see it again before the
    #: results of its tool calls (Anthropic's signed thinking blocks)
    signed_thinking: tuple[SignedThinking, ...] = ()


@dataclass(frozen=True, slots=True)
class SignedThinking:
    """One closed reasoning block with the vendor's proof that it is unaltered:
    its ``text`` and ``signature``, or a redacted block's opaque ``redacted``
    data."""

    text: str = ""
    signature: str = ""
    redacted: str = ""


@dataclass(frozen=True, slots=True)
class ImagePart:
    mime: str
    data_base64: str


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """What a provider adapter needs to stream one answer."""

    model: str
    messages: tuple[ChatMessage, ...]
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: tools the model may call (the agent); none for plain chat
    tools: tuple[ToolSpec, ...] = ()
    #: how hard the model reasons; None sends nothing (the server's default)
    reasoning: Reasoning | None = None
