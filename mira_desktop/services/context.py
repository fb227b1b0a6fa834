"""Building the messages of a request from the thread (PRODUCT.md §4), as pure
functions: the hidden system context first (role prompt, then the context
summary, then the latest compaction checkpoint), then the history of the active
branch since that checkpoint, then the new input.

Only the active branch is ever sent. Failed answers without text are left out
(they carry no content); stopped answers keep their partial text, so the model
sees what the user saw. "Context compressed" cards are never replayed as chat
messages: the latest one becomes part of the hidden context and everything it
covers is left out (:func:`split_at_checkpoint`). Older messages' attachments
are named, not read (``attachment_context``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.attachments import Attachment
from ..core.context import is_checkpoint
from ..core.models import ChatMessage, Message, MessageRole, MessageStatus
from .attachment_context import earlier_note

STOP_THINKING_PROMPT = (
    "Stop reasoning now. Using only what you have worked out so far, give your best "
    "final answer directly."
)
SUMMARY_HEADER = "[Context summary of this conversation — kept for you; the user does not see it]"
CHECKPOINT_HEADER = (
    "[Context compressed — a summary of the earlier conversation, which is no longer"
    " shown to you; continue from it]"
)

Attachments = Mapping[str, Sequence[Attachment]]


def split_at_checkpoint(history: Sequence[Message]) -> tuple[Message | None, list[Message]]:
    """``(latest checkpoint or None, the messages to replay after it)``.

    The replay starts after the message the checkpoint ``covers_until`` (a card
    written after its turn's answer covers only what came before the turn's
    question), else right after the card itself."""
    index = next((i for i in range(len(history) - 1, -1, -1) if is_checkpoint(history[i])), None)
    if index is None:
        return None, list(history)
    card = history[index]
    covers = (card.data or {}).get("covers_until")
    ids = [m.id for m in history[:index]]
    start = ids.index(covers) + 1 if covers in ids else index + 1
    return card, [m for m in history[start:] if not is_checkpoint(m)]


def history_entries(
    history: Sequence[Message], attachments: Attachments | None = None
) -> list[tuple[str, ChatMessage]]:
    """``(message id, chat message)`` of each message a request replays."""
    result: list[tuple[str, ChatMessage]] = []
    files = attachments or {}
    for message in history:
        if message.deleted_at is not None:
            continue
        if message.role is MessageRole.USER:
            content = message.text
            if files.get(message.id):
                content = f"{content}\n\n{earlier_note(files[message.id])}"
            result.append((message.id, ChatMessage("user", content)))
        elif message.role is MessageRole.ASSISTANT:
            if message.status is MessageStatus.FAILED and not message.text:
                continue
            if not message.text:
                continue
            text = message.text
            data = message.data
            if data and "agent" in data:  # what the agent did (PRODUCT.md §11)
                text += agent_note(data)
            result.append((message.id, ChatMessage("assistant", text)))
    return result


#: tool calls of one earlier answer the model is reminded of
NOTED_CALLS = 20


def agent_note(data: dict[str, Any]) -> str:
    """A line under an earlier answer of the agent saying which tool calls it
    made and how they ended (its cards), so later turns know what was done —
    and undone. Empty without calls."""
    from ..core.agent import answer_cards

    cards = answer_cards(data)
    if not cards:
        return ""
    done = []
    for card in cards[:NOTED_CALLS]:
        state = "rolled back" if card.rolled_back else str(card.status)
        summary = card.summary if len(card.summary) <= 100 else card.summary[:99] + "…"
        done.append(f"{summary} ({state})")
    more = f"; and {len(cards) - NOTED_CALLS} more" if len(cards) > NOTED_CALLS else ""
    return f"\n\n[Tool calls in this answer: {'; '.join(done)}{more}]"


def history_messages(
    history: Sequence[Message], attachments: Attachments | None = None
) -> list[ChatMessage]:
    return [message for _, message in history_entries(history, attachments)]


def hidden_system_text(role_prompt: str, summary: str, checkpoint: str) -> str:
    """The one system message of a request: role prompt, summary, checkpoint
    (in that order, empty parts left out). One message, because several system
    messages are refused by some chat templates."""
    blocks = [role_prompt.strip()]
    if summary.strip():
        blocks.append(f"{SUMMARY_HEADER}\n{summary.strip()}")
    if checkpoint.strip():
        blocks.append(f"{CHECKPOINT_HEADER}\n{checkpoint.strip()}")
    return "\n\n".join(b for b in blocks if b)


def checkpoint_summary(card: Message | None) -> str:
    return str((card.data or {}).get("summary") or card.text) if card is not None else ""


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
    cut = words[: limit - 1]  # and "…": ``limit`` characters in all
    # end on a word where one ends late enough (Chinese has no spaces, a long
    # URL none: cutting at "你好 " or "Summarize " would keep one word)
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(",.;:!?，。；：！？ ") + "…"
