"""``ContextMeterService``: the context ring next to the composer (PRODUCT.md §4).

``measure(thread_id, draft_text)`` counts, with the shipped tiktoken encoding,
what the next request would hold: the hidden context (role prompt, summary,
latest checkpoint), the history replayed since that checkpoint (older
attachments by name) and the draft (with its prepared files read in full), with
the same per-message framing as the run's own estimate
(``turn_context.estimate_tokens``). Images are not counted.

Counting is incremental. Token counts are cached per message id and text hash
(the system block and files by hash), and the total of the thread's part is
cached under a one-row fingerprint of the thread (active leaf, last change,
role and its last edit, summary time, model): while someone types, a
measurement reads that row and counts only the draft. After a turn, only the
messages that changed are counted again (``meter_history.py``). Long texts are counted
in a worker thread, and so is every text until the counter has loaded its
encoding (the first count loads tiktoken: 0.5-1 s).

``peak_tokens`` comes from stored usage: the largest ``prompt_tokens`` of the
thread's answers (reported or estimated, every branch) — or the current figure
when that is larger, so the ring never shows a peak below the current use."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.context import Meter
from ..core.models import Message, MessageRole
from ..core.ports import TokenCounter
from .attachment_context import file_block
from .context import split_at_checkpoint
from .meter_history import HistoryTally, Keyed, keyed
from .turn_context import MESSAGE_OVERHEAD, REPLY_PRIMING, HiddenContext

if TYPE_CHECKING:
    from ..storage.context_store import ContextStore
    from ..storage.store import Store
    from .attachments import PreparedAttachment

log = logging.getLogger(__name__)

LAST_MODEL_KEY = "chat.last_model"
#: Texts longer than this are counted in a worker thread.
INLINE_CHARS = 4000
MAX_CACHED = 200_000
MAX_THREADS = 1_000


def _keyed(items: Sequence[tuple[str, str]]) -> list[Keyed]:
    return [keyed(key, text) for key, text in items]


def _split(branch: list[Message]) -> tuple[Message | None, list[Message], list[str]]:
    """``split_at_checkpoint`` of a branch, and the ids of the user messages
    replayed (whose attachments the history names)."""
    checkpoint, replay = split_at_checkpoint(branch)
    return checkpoint, replay, [m.id for m in replay if m.role is MessageRole.USER]


class ContextMeterService:
    def __init__(self, store: Store, context_store: ContextStore, tokens: TokenCounter) -> None:
        self._store = store
        self._context = context_store
        self._tokens = tokens
        self._counts: dict[tuple[str, int], int] = {}
        self._bases: dict[str, tuple[tuple[Any, ...], int]] = {}
        self._history = HistoryTally(self._count_keyed, MESSAGE_OVERHEAD)

    async def measure(
        self,
        thread_id: str,
        draft_text: str = "",
        *,
        attachments: Sequence[PreparedAttachment] = (),
    ) -> Meter:
        """The ring's figures for a thread (or a draft id not saved yet) with
        the composer's current text and chips."""
        fingerprint = await self._context.fingerprint(thread_id)
        base = 0
        if fingerprint is not None:
            cached = self._bases.get(thread_id)
            if cached is not None and cached[0] == fingerprint:
                base = cached[1]
            else:
                base = await self._thread_tokens(thread_id)
                if len(self._bases) >= MAX_THREADS:
                    self._bases.clear()
                self._bases[thread_id] = (fingerprint, base)
        current = REPLY_PRIMING + base + await self._draft_tokens(draft_text, attachments)
        peak = await self._context.peak_prompt_tokens(thread_id) if fingerprint else 0
        provider_id, model = fingerprint[5:7] if fingerprint else (None, None)
        window = await self._window(provider_id, model)
        return Meter(
            current_tokens=current,
            peak_tokens=max(peak, current),
            context_window=window,
            remaining=max(window - current, 0) if window else None,
            share=round(current / window, 4) if window else None,
        )

    async def _thread_tokens(self, thread_id: str) -> int:
        """Hidden context + replayed history (without the reply priming)."""
        thread = await self._store.get_thread(thread_id)
        branch = await self._store.active_branch(thread_id)
        checkpoint, replay, users = await asyncio.to_thread(_split, branch)
        role = await self._store.get_role(thread.role_id) if thread.role_id else None
        summary = (await self._context.get_summary(thread_id))[0] or ""
        system = HiddenContext(role, summary).system_text(checkpoint)
        earlier = await self._context.attachments(users)

        # per message work (the messages changed since the last count): a
        # worker thread's, not the window's
        return await asyncio.to_thread(self._history.total, thread_id, replay, earlier, system)

    async def _draft_tokens(
        self, draft_text: str, attachments: Sequence[PreparedAttachment]
    ) -> int:
        blocks = [
            (f"file:{p.sha256}", file_block(p.attachment, p.document))
            for p in attachments
            if not p.is_image
        ]
        if not draft_text and not blocks:
            return 0
        counts = await self._count_all(_keyed([*blocks, ("draft", draft_text)]))
        return MESSAGE_OVERHEAD + sum(counts) + 2 * len(blocks)  # "\n\n" joins

    async def _count_all(self, items: list[Keyed]) -> list[int]:
        """Counts of keyed texts (:func:`_keyed`); cached ones are not counted
        again. Long texts are counted in a worker thread."""
        missing = sum(len(text) for key, text in items if key not in self._counts)
        if missing > INLINE_CHARS or (missing and not self._counter_ready()):
            return await asyncio.to_thread(self._count_keyed, items)
        return self._count_keyed(items)

    def _count_keyed(self, items: list[Keyed]) -> list[int]:
        """:meth:`_count_all`'s counting, in whichever thread calls it."""
        counts, count = self._counts, self._tokens.count
        if len(counts) + len(items) > MAX_CACHED:
            counts.clear()
        out: list[int] = []
        for key, text in items:
            counted = counts.get(key)
            if counted is None:
                counted = counts[key] = count(text)
            out.append(counted)
        return out

    def _counter_ready(self) -> bool:
        """False while the counter still has to load its encoding (a counter
        without a ``loaded`` attribute is always ready)."""
        return bool(getattr(self._tokens, "loaded", True))

    async def _window(self, provider_id: str | None, model: str | None) -> int | None:
        """The context window of the thread's model (a draft: the last chosen)."""
        provider_name = None
        if provider_id and model:
            config = await self._store.get_provider_by_id(provider_id)
            provider_name = config.name if config else None
        if provider_name is None or model is None:
            last = await self._store.get_setting(LAST_MODEL_KEY) or {}
            provider_name, model = last.get("provider"), last.get("model")
        if not provider_name or not model:
            return None
        info = await self._store.get_model(provider_name, model)
        return info.context_window if info and info.context_window else None
