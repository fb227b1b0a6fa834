"""Value types of a thread's model context (PRODUCT.md §4): the warnings a send
gets before it goes out, the context summary with its lag, the result of a
compaction, and the context meter's figures. Frozen dataclasses with
``to_dict()`` for the CLI's JSON; no behaviour beyond small derived values.

A compaction checkpoint is a message of role ``system-card`` whose ``data`` is
``{"kind": "compaction", "summary", "covers_until", "instructions", "trigger",
"model"}``; :func:`is_checkpoint` recognises one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .message_kinds import COMPACTION_KIND as COMPACTION_KIND  # re-exported
from .models import Message, MessageRole

NOTHING_TO_COMPACT = "Nothing to compact yet."
CONTEXT_COMPRESSED = "Context compressed"


def is_checkpoint(message: Message) -> bool:
    """True for a "Context compressed" card (a compaction checkpoint)."""
    return (
        message.role is MessageRole.SYSTEM_CARD
        and isinstance(message.data, dict)
        and message.data.get("kind") == COMPACTION_KIND
    )


@dataclass(frozen=True, slots=True)
class SendWarning:
    """Something the user should know before a send goes out. ``code`` is
    stable (``"image_not_supported"``); ``names`` are the files concerned."""

    code: str
    message: str
    names: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "warning",
            "code": self.code,
            "message": self.message,
            "names": list(self.names),
        }


@dataclass(frozen=True, slots=True)
class ContextSummary:
    """A thread's context summary. ``lag`` counts the messages of the active
    branch created after ``updated_at`` (what the summary does not know yet);
    ``message_count`` is how many messages it covered when it was written."""

    thread_id: str
    text: str
    updated_at: str | None
    message_count: int
    lag: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "summary": self.text,
            "updated_at": self.updated_at,
            "message_count": self.message_count,
            "lag": self.lag,
        }


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What ``/compact`` did: the new card, or none with ``message`` saying why
    (``NOTHING_TO_COMPACT``)."""

    thread_id: str
    card: Message | None
    message: str

    @property
    def compacted(self) -> bool:
        return self.card is not None

    def to_dict(self) -> dict[str, Any]:
        data = (self.card.data or {}) if self.card else {}
        return {
            "thread_id": self.thread_id,
            "compacted": self.compacted,
            "message": self.message,
            "card_id": self.card.id if self.card else None,
            "summary": data.get("summary"),
            "covers_until": data.get("covers_until"),
        }


@dataclass(frozen=True, slots=True)
class Meter:
    """The context ring's figures. ``current_tokens``: what the next request
    would hold (hidden context, history since the latest checkpoint, the
    draft); ``peak_tokens``: the largest of the thread's requests so far (or
    ``current_tokens`` when larger); ``context_window`` / ``remaining`` /
    ``share`` are ``None`` when the model's window is not set."""

    current_tokens: int
    peak_tokens: int
    context_window: int | None
    remaining: int | None
    share: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "current_tokens": self.current_tokens,
            "peak_tokens": self.peak_tokens,
            "context_window": self.context_window,
            "remaining": self.remaining,
            "share": self.share,
        }
