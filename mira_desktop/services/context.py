"""Building the messages of a request from the thread (PRODUCT.md §4): the hidden
system context first, then the history of the active branch, then the new input.

Only the active branch is ever sent. Failed answers without text are left out
(they carry no content); stopped answers keep their partial text, so the model
sees what the user saw."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.models import ChatMessage, Message, MessageRole, MessageStatus

STOP_THINKING_PROMPT = (
    "Stop reasoning now. Using only what you have worked out so far, give your best "
    "final answer directly."
)


def history_messages(history: Sequence[Message]) -> list[ChatMessage]:
    result: list[ChatMessage] = []
    for message in history:
        if message.deleted_at is not None:
            continue
        if message.role is MessageRole.USER:
            result.append(ChatMessage("user", message.text))
        elif message.role is MessageRole.ASSISTANT:
            if message.status is MessageStatus.FAILED and not message.text:
                continue
            if not message.text:
                continue
            result.append(ChatMessage("assistant", message.text))
    return result


def build_messages(
    history: Sequence[Message], new_text: str, *, system: str | None = None
) -> tuple[ChatMessage, ...]:
    messages: list[ChatMessage] = []
    if system:
        messages.append(ChatMessage("system", system))
    messages.extend(history_messages(history))
    messages.append(ChatMessage("user", new_text))
    return tuple(messages)


def stop_thinking_messages(
    messages: Sequence[ChatMessage], thinking_so_far: str
) -> tuple[ChatMessage, ...]:
    """The follow-up request of "Stop thinking": the reasoning so far is handed
    back and the model is asked to answer from it."""
    note = f"{STOP_THINKING_PROMPT}\n\n[Your reasoning so far]\n{thinking_so_far.strip()}"
    return (*messages, ChatMessage("user", note))


def title_from_text(text: str, limit: int = 60) -> str:
    """A first title from the first words of the first message."""
    words = " ".join(text.split())
    if len(words) <= limit:
        return words or "New chat"
    cut = words[:limit].rsplit(" ", 1)[0] if " " in words[:limit] else words[:limit]
    return cut.rstrip(",.;:!?") + "…"
