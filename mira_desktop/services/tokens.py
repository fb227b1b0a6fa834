"""Token counting, offline: tiktoken with the encodings shipped in
``resources/tiktoken_cache`` (tiktoken looks there through ``TIKTOKEN_CACHE_DIR``
and never downloads when the file is present). Counts for non-OpenAI models are
estimates, which is how they are flagged wherever they are stored."""

from __future__ import annotations

import logging
import os
import threading
from itertools import islice
from pathlib import Path
from typing import Any

from ..core.models import ChatMessage

log = logging.getLogger(__name__)

ENCODING = "o200k_base"
# Per-message framing overhead of chat formats (role markers etc.), as OpenAI documents it.
MESSAGE_OVERHEAD = 4


#: texts whose counts are kept (the oldest quarter goes when full): ~150 bytes
#: each, the texts themselves not kept
KEPT_COUNTS = 50_000


class TiktokenCounter:
    """Counts tokens with a shipped tiktoken encoding; loads it on first use.

    Counts are kept by text (its hash and length), because the same texts are
    counted again and again: the context meter counts a thread's history, and
    an answer whose server reports no usage has its prompt estimated from the
    same history (a 5,000-message thread: ~200 ms of tiktoken on every send)."""

    def __init__(self, cache_dir: Path, encoding: str = ENCODING) -> None:
        self._cache_dir = cache_dir
        self._encoding_name = encoding
        self._encoding: Any = None
        self._lock = threading.Lock()
        self._counts: dict[tuple[int, int], int] = {}

    def _load(self) -> Any:
        with self._lock:
            if self._encoding is None:
                os.environ["TIKTOKEN_CACHE_DIR"] = str(self._cache_dir)
                import tiktoken

                self._encoding = tiktoken.get_encoding(self._encoding_name)
        return self._encoding

    def load(self) -> None:
        """Load the encoding now (blocking; call it from a worker thread)."""
        self._load()

    @property
    def loaded(self) -> bool:
        """Whether the encoding is in memory (the first count loads it: tiktoken's
        import and the BPE file take 0.5-1 s, never to be paid on the Qt thread)."""
        return self._encoding is not None

    def count(self, text: str) -> int:
        if not text:
            return 0
        key = (hash(text), len(text))
        counted = self._counts.get(key)
        if counted is None:
            counted = len(self._load().encode(text, disallowed_special=()))
            self._keep(key, counted)
        return counted

    def _keep(self, key: tuple[int, int], counted: int) -> None:
        with self._lock:  # counts come from worker threads too
            if len(self._counts) >= KEPT_COUNTS:
                for old in list(islice(self._counts, KEPT_COUNTS // 4)):
                    del self._counts[old]
            self._counts[key] = counted

    def count_messages(self, messages: tuple[ChatMessage, ...] | list[ChatMessage]) -> int:
        total = 3  # every reply is primed with an assistant header
        for message in messages:
            total += MESSAGE_OVERHEAD + self.count(message.content)
        return total
