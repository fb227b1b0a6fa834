"""Typed events.

Two families share this module:

* **Stream events** come out of a provider adapter, one per piece of the wire
  stream: :class:`TextDelta`, :class:`ThinkingDelta`, :class:`ToolCallDelta`,
  :class:`UsageReported` and finally :class:`StreamDone`. A stream that ends
  without :class:`StreamDone` is broken; adapters raise
  :class:`~mira_desktop.core.errors.MalformedStreamError` instead.
* **Chat events** come out of ``ChatService.send``: the stream events above
  (re-yielded), plus the persistence facts (:class:`ThreadCreated`,
  :class:`UserMessageSaved`, :class:`AssistantMessageStarted`), the automatic
  compaction notices (:class:`Compacting`, :class:`Compacted`) and exactly one
  terminal event: :class:`Completed`, :class:`Stopped` or :class:`Failed`.

Chat events of one run carry the text in as few deltas as the consumer allows:
the run merges the consecutive text (and reasoning) deltas that arrive within
one turn of the event loop (:class:`DeltaCoalescer`), so a fast stream costs the
consumer one event per loop turn, not one per token. The concatenation of the
deltas, in order, is always exactly the streamed text. The tool-call pieces
of a stream are put together into whole calls by :class:`ToolCallCollector`.

Every event serialises with ``to_dict()`` to a JSON object with a ``"type"``;
the CLI's ``--json`` mode prints those objects one per line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from .agent import ProgressChanged, ToolCardChanged
from .models import Message, SignedThinking, Thread, ToolCall, Usage


@dataclass(frozen=True, slots=True)
class TextDelta:
    type: ClassVar[str] = "text_delta"
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    type: ClassVar[str] = "thinking_delta"
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True)
class ThinkingSigned:
    """A reasoning block closed by the vendor's signature (Anthropic). Its text
    came before as ``ThinkingDelta``; the block is kept only to be handed back
    with the tool calls that follow it (the agent's next round)."""

    type: ClassVar[str] = "thinking_signed"
    block: SignedThinking

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "redacted": bool(self.block.redacted)}


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call: ``index`` groups deltas of one call; ``name`` and
    ``call_id`` arrive once, ``arguments`` arrives as JSON text fragments."""

    type: ClassVar[str] = "tool_call"
    index: int
    call_id: str | None = None
    name: str | None = None
    arguments: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "index": self.index,
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
        }


@dataclass(frozen=True, slots=True)
class UsageReported:
    """Token counts reported by the provider. ``None`` means "not reported"."""

    type: ClassVar[str] = "usage"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    #: an answer of several requests (the agent's rounds, whose prompts add
    #: up in ``prompt_tokens``): the largest one — the context it reached
    largest_prompt_tokens: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }


@dataclass(frozen=True, slots=True)
class StreamDone:
    """The provider's own end marker arrived (``[DONE]``, ``done: true``,
    ``message_stop``)."""

    type: ClassVar[str] = "stream_done"
    finish_reason: str | None = None

    @property
    def cut_at_length(self) -> bool:
        """The server stopped the answer at its length limit."""
        return self.finish_reason in CUT_AT_LENGTH

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "finish_reason": self.finish_reason}


#: the end reasons that say an answer was cut at its length limit (OpenAI
#: and Ollama "length", Anthropic "max_tokens")
CUT_AT_LENGTH = frozenset({"length", "max_tokens"})
#: ``Message.data`` key of an answer the server cut at its length limit (its reason)
CUT_OFF_KEY = "cut_off"


StreamEvent = (
    TextDelta | ThinkingDelta | ThinkingSigned | ToolCallDelta | UsageReported | StreamDone
)

#: Events that count as "active content" for lazy persistence (PRODUCT.md §2).
ACTIVE_CONTENT = (TextDelta, ThinkingDelta, ToolCallDelta)


@dataclass(frozen=True, slots=True)
class RunStarted:
    """First event of every run: the ids the run will use. For a new draft the
    thread and the user message are not written yet (``persisted`` is false);
    the UI shows them optimistically under these final ids.

    ``kind`` is ``"send"``, ``"edit"`` (a new version of a user message) or
    ``"regenerate"`` (a new version of an answer: ``user_message`` is the
    existing question). ``note`` is a line to show with the answer, e.g.
    "Escalated to … (standard tier)."; ``escalated_from`` then names the model
    a plain Retry moved away from (``{"provider", "model", "tier"}``)."""

    type: ClassVar[str] = "run_started"
    thread_id: str
    user_message: Message
    assistant_message_id: str
    provider: str
    model: str
    persisted: bool
    kind: str = "send"
    note: str | None = None
    escalated_from: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "thread_id": self.thread_id,
            "user_message_id": self.user_message.id,
            "parent_id": self.user_message.parent_id,
            "assistant_message_id": self.assistant_message_id,
            "provider": self.provider,
            "model": self.model,
            "persisted": self.persisted,
            "kind": self.kind,
            "note": self.note,
            "escalated_from": self.escalated_from,
        }


@dataclass(frozen=True, slots=True)
class ThreadCreated:
    type: ClassVar[str] = "thread_created"
    thread: Thread

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "thread_id": self.thread.id, "title": self.thread.title}


@dataclass(frozen=True, slots=True)
class UserMessageSaved:
    type: ClassVar[str] = "user_message_saved"
    message: Message

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "thread_id": self.message.thread_id,
            "message_id": self.message.id,
        }


@dataclass(frozen=True, slots=True)
class AssistantMessageStarted:
    type: ClassVar[str] = "assistant_started"
    message: Message

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "thread_id": self.message.thread_id,
            "message_id": self.message.id,
            "model": self.message.model,
        }


@dataclass(frozen=True, slots=True)
class _Terminal:
    """Shared shape of the three terminal events."""

    thread_id: str | None
    message_id: str | None
    text: str
    thinking: str
    usage: Usage
    error: dict[str, Any] | None = None
    message: Message | None = None
    #: the answer as it should have been written, when writing it failed (a
    #: full disk): the window keeps it and saves it later (``ChatService.save_answer``)
    unsaved: Message | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,  # type: ignore[attr-defined]
            "thread_id": self.thread_id,
            "message_id": self.message_id,
            "text": self.text,
            "thinking": self.thinking,
            "usage": self.usage.to_dict(),
            "error": self.error,
            # the server stopped it at its length limit ("length", "max_tokens"), or null
            "cut_off": ((self.message.data or {}).get(CUT_OFF_KEY) if self.message else None),
        }


@dataclass(frozen=True, slots=True)
class Completed(_Terminal):
    type: ClassVar[str] = "completed"


@dataclass(frozen=True, slots=True)
class Stopped(_Terminal):
    type: ClassVar[str] = "stopped"


@dataclass(frozen=True, slots=True)
class Failed(_Terminal):
    type: ClassVar[str] = "failed"


@dataclass(frozen=True, slots=True)
class Compacting:
    """An automatic compaction began (``trigger``: ``"pre_turn"`` when the
    request would exceed the model's threshold, ``"overflow"`` after the
    provider refused it as too long): the UI shows "Compressing context…"."""

    type: ClassVar[str] = "compacting"
    thread_id: str
    trigger: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "thread_id": self.thread_id, "trigger": self.trigger}


@dataclass(frozen=True, slots=True)
class Compacted:
    """A "Context compressed" card was written (``card.parent_id`` says where:
    an automatic one follows the answer of the turn that needed it). Later
    requests replay only this checkpoint and what follows it."""

    type: ClassVar[str] = "compacted"
    thread_id: str
    card: Message
    trigger: str

    def to_dict(self) -> dict[str, Any]:
        data = self.card.data or {}
        return {
            "type": self.type,
            "thread_id": self.thread_id,
            "message_id": self.card.id,
            "parent_id": self.card.parent_id,
            "trigger": self.trigger,
            "summary": data.get("summary"),
            "covers_until": data.get("covers_until"),
        }


TerminalEvent = Completed | Stopped | Failed

ChatEvent = (
    StreamEvent
    | RunStarted
    | ThreadCreated
    | UserMessageSaved
    | AssistantMessageStarted
    | Compacting
    | Compacted
    | Completed
    | Stopped
    | Failed
    | ToolCardChanged
    | ProgressChanged
)


class DeltaCoalescer:
    """Merges consecutive :class:`TextDelta` / :class:`ThinkingDelta` pieces.

    :meth:`add` takes a delta (empty ones are dropped); :meth:`take` returns the
    merged deltas in arrival order — a run of text pieces becomes one
    ``TextDelta``, reasoning and text interleaved stay interleaved — and empties
    the buffer."""

    __slots__ = ("_kinds", "_parts")

    def __init__(self) -> None:
        self._kinds: list[type[TextDelta] | type[ThinkingDelta]] = []
        self._parts: list[list[str]] = []

    def __bool__(self) -> bool:
        return bool(self._kinds)

    def add(self, event: TextDelta | ThinkingDelta) -> None:
        text = event.text
        if not text:
            return
        kind = type(event)
        if self._kinds and self._kinds[-1] is kind:
            self._parts[-1].append(text)
        else:
            self._kinds.append(kind)
            self._parts.append([text])

    def take(self) -> list[TextDelta | ThinkingDelta]:
        out = [kind("".join(parts)) for kind, parts in zip(self._kinds, self._parts, strict=True)]
        self._kinds, self._parts = [], []
        return out


class _PendingCall:
    """The pieces of one tool call gathered so far."""

    __slots__ = ("arguments", "call_id", "index", "name")

    def __init__(self, index: int) -> None:
        self.index = index
        self.call_id = ""
        self.name = ""
        self.arguments: list[str] = []


class ToolCallCollector:
    """Assembles the :class:`ToolCallDelta` pieces of one stream into whole
    :class:`~mira_desktop.core.models.ToolCall` objects.

    :meth:`add` takes the deltas in arrival order. The first id and name a call
    receives are kept (servers that repeat them in every fragment change
    nothing); its argument fragments are joined. :meth:`calls` returns the
    calls in ``index`` order: a call that came without an id gets
    ``call_<index>``, one without a name keeps ``""``, and arguments that are
    empty decode to ``{}``. Arguments that are not a JSON object (cut-off or
    invalid JSON, a list, a number) also come out as ``{}``; :meth:`malformed`
    lists those calls with the text the model sent, so the caller can tell the
    model what was wrong instead of running the tool.

    A delta that starts another call under an index already in use (a new,
    different id and a name, as servers that number every call 0 send them)
    opens a new call after it rather than mixing the two."""

    __slots__ = ("_current", "_pending")

    def __init__(self) -> None:
        self._pending: list[_PendingCall] = []
        self._current: dict[int, _PendingCall] = {}

    def __bool__(self) -> bool:
        return bool(self._pending)

    def add(self, delta: ToolCallDelta) -> None:
        call = self._current.get(delta.index)
        if call is None or _starts_another_call(call, delta):
            call = self._current[delta.index] = _PendingCall(delta.index)
            self._pending.append(call)
        if delta.call_id and not call.call_id:
            call.call_id = delta.call_id
        if delta.name and not call.name:
            call.name = delta.name
        if delta.arguments:
            call.arguments.append(delta.arguments)

    def calls(self) -> list[ToolCall]:
        """Every call, in ``index`` order (arrival order within an index)."""
        return [call for call, _raw, _ok in self._assemble()]

    def malformed(self) -> list[tuple[ToolCall, str]]:
        """The calls whose arguments were not a JSON object, each with the
        argument text as it arrived (their ``arguments`` are ``{}``)."""
        return [(call, raw) for call, raw, ok in self._assemble() if not ok]

    def _assemble(self) -> list[tuple[ToolCall, str, bool]]:
        out: list[tuple[ToolCall, str, bool]] = []
        # sorted() is stable: calls sharing an index stay in arrival order (and
        # have ids of their own: only a new id starts another call)
        for pending in sorted(self._pending, key=lambda p: p.index):
            call_id = pending.call_id or f"call_{pending.index}"
            raw = "".join(pending.arguments)
            arguments = _decode_arguments(raw)
            call = ToolCall(call_id, pending.name, arguments if arguments is not None else {})
            out.append((call, raw, arguments is not None))
        return out


def _starts_another_call(call: _PendingCall, delta: ToolCallDelta) -> bool:
    return bool(
        call.call_id
        and call.name
        and delta.name
        and delta.call_id
        and delta.call_id != call.call_id
    )


def _decode_arguments(raw: str) -> dict[str, Any] | None:
    """The object ``raw`` encodes (``{}`` for nothing), or ``None`` when it is
    not a JSON object. An object encoded twice (a JSON string holding it, as
    some local models send it) is accepted."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
        if isinstance(value, str):
            value = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def merge_deltas(events: list[StreamEvent]) -> list[StreamEvent]:
    """``events`` with each run of adjacent text (or reasoning) deltas merged
    into one, everything else kept in place and in order. A provider applies
    it to the events of one network read: a fast server packs ~100 chunks
    into a read, and one event instead of a hundred spares every layer above
    (service, controller, timeline) the per-event cost; nothing waits longer."""
    if len(events) < 2:
        return events
    out: list[StreamEvent] = []
    pending = DeltaCoalescer()
    for event in events:
        if isinstance(event, TextDelta | ThinkingDelta):
            pending.add(event)
            continue
        if pending:
            out.extend(pending.take())
        out.append(event)
    if pending:
        out.extend(pending.take())
    return out


__all__ = [
    "ACTIVE_CONTENT",
    "AssistantMessageStarted",
    "ChatEvent",
    "Compacted",
    "Compacting",
    "Completed",
    "DeltaCoalescer",
    "Failed",
    "RunStarted",
    "Stopped",
    "StreamDone",
    "StreamEvent",
    "TerminalEvent",
    "TextDelta",
    "ThinkingDelta",
    "ThinkingSigned",
    "ThreadCreated",
    "ToolCallCollector",
    "ToolCallDelta",
    "UsageReported",
    "UserMessageSaved",
    "merge_deltas",
]
