"""``TitleService``: the automatic title of a thread after its first answer
(PRODUCT.md §8). A short model call through the thread's own provider and model
asks for a title; the answer is cleaned (first line, quotes and "Title:"
stripped, at most 60 characters). On any error — no provider, a dead server, a
timeout, an empty answer — the title falls back to the first words of the first
message. A title the user chose (``title_source = 'manual'``) is never
overwritten, not even by a generation that was already running when they
renamed the thread.

Call ``generate_title(thread_id)`` once the first answer has completed."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING

from ..core.errors import ConfigError, MiraError
from ..core.events import TextDelta
from ..core.models import (
    ChatMessage,
    ChatRequest,
    Message,
    MessageRole,
    Thread,
    least_reasoning,
)
from .context import title_from_text
from .history import TITLE_LIMIT

if TYPE_CHECKING:
    from ..storage.history_store import HistoryStore
    from ..storage.store import Store
    from .providers import ProviderService

log = logging.getLogger(__name__)

TITLE_PROMPT = (
    "Write a title of at most six words for the conversation below. Use the language "
    "of the conversation. Reply with the title only: no quotes, no punctuation at the "
    "end, no explanation."
)
EXCERPT_CHARS = 1500
_QUOTES = "\"'`“”‘’«»「」『』《》*#_ "
_PREFIX = re.compile(r"^\s*(title|标题)\s*[:：]\s*", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)


def clean_generated_title(text: str, limit: int = TITLE_LIMIT) -> str:
    """The first non-empty line, without quotes, "Title:" or a trailing stop."""
    text = _THINK.sub("", text)
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    # "**Title:** …": the marks around the label go first, then the label
    line = _PREFIX.sub("", line.strip(_QUOTES + "\t")).strip(_QUOTES + "\t")
    line = " ".join(line.rstrip(".。!！").split()).strip(_QUOTES)
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def fallback_title(first_text: str) -> str:
    """The first words of the first message, at most 60 characters."""
    return title_from_text(first_text, limit=TITLE_LIMIT - 1)


class TitleService:
    def __init__(
        self,
        store: Store,
        history: HistoryStore,
        providers: ProviderService,
        *,
        timeout: float = 30.0,
    ) -> None:
        self._store = store
        self._history = history
        self._providers = providers
        self._timeout = timeout

    async def generate_title(self, thread_id: str) -> str:
        """Title the thread from its first exchange; returns the thread's title
        afterwards (unchanged when the user already named it)."""
        thread = await self._store.get_thread(thread_id)
        if await self._history.title_source(thread_id) == "manual":
            return thread.title
        branch = await self._store.active_branch(thread_id)
        first_user = next((m for m in branch if m.role is MessageRole.USER), None)
        if first_user is None:
            return thread.title
        try:
            title = await asyncio.wait_for(self._ask_model(thread, branch), self._timeout)
        except (MiraError, TimeoutError) as exc:
            log.info("automatic title fell back to the first words: %s", exc)
            title = fallback_title(first_user.text)
        except Exception:
            log.warning("automatic title failed; using the first words", exc_info=True)
            title = fallback_title(first_user.text)
        if await self._history.set_auto_title(thread_id, title):
            return title
        return (await self._store.get_thread(thread_id)).title

    async def _ask_model(self, thread: Thread, branch: list[Message]) -> str:
        if not thread.provider_id or not thread.model:
            raise ConfigError("The thread has no model.")
        config = await self._store.get_provider_by_id(thread.provider_id)
        if config is None:
            raise ConfigError("The thread's provider was removed.")
        _, provider = await self._providers.chat_provider(config.name)
        # a model set to reason (so its server takes the field) titles with the
        # least reasoning: a few words need no thought (qwen3 answers at once)
        info = await self._store.get_model(config.name, thread.model)
        least = least_reasoning(info.reasoning if info else None)
        request = ChatRequest(model=thread.model, messages=_title_messages(branch), reasoning=least)
        parts: list[str] = []
        async for event in provider.stream_chat(request):
            if isinstance(event, TextDelta):
                parts.append(event.text)
        title = clean_generated_title("".join(parts))
        if not title:
            raise ConfigError("The model answered with an empty title.")
        return title


def _title_messages(branch: list[Message]) -> tuple[ChatMessage, ...]:
    lines: list[str] = []
    exchange = [m for m in branch if m.role in (MessageRole.USER, MessageRole.ASSISTANT)]
    for message in exchange[:2]:
        who = "User" if message.role is MessageRole.USER else "Assistant"
        lines.append(f"{who}: {message.text[:EXCERPT_CHARS]}")
    return (
        ChatMessage("system", TITLE_PROMPT),
        ChatMessage("user", "\n\n".join(lines)),
    )
