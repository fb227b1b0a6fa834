"""``HistoryTally``: the tokens of a thread's replayed history, counted once
and then, after a turn, only for the messages that changed.

The context meter measures a thread again after every turn. Keying every
message's text and looking its count up again is per message work (~7 µs;
~35 ms of Python for a 5,000-message thread, competing with the window for
the GIL and the cores). A turn leaves the history before it as it was — the
same message objects, as storage keeps the branch (``branch_cache.py``) —
so the tally keeps, per thread, the messages it counted last, what each one
added and the attachments it named, and counts again only from the first
message that is not the very same object (or names other attachments)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..core.attachments import Attachment
from ..core.models import Message, MessageRole
from .context import Attachments, history_entries

#: a text to count under its cache key: ((what it is, digest of the text), text)
Keyed = tuple[tuple[str, int], str]
CountKeyed = Callable[[list[Keyed]], list[int]]


def digest(text: str) -> int:
    """The text's part of its cache key: Python's own string hash (64 bits,
    with the key's message id; the cache lives as long as the process). A
    blake2b digest of the UTF-8 cost ~5x more."""
    return hash(text)


def keyed(key: str, text: str) -> Keyed:
    return ((key, digest(text)), text)


@dataclass(frozen=True, slots=True)
class _Tally:
    replay: tuple[Message, ...]
    #: per replayed message: the attachments its entry named (user messages)
    files: tuple[Sequence[Attachment] | None, ...]
    #: per replayed message: its tokens with their framing (0: not replayed)
    tokens: tuple[int, ...]


class HistoryTally:
    def __init__(self, count_keyed: CountKeyed, overhead: int, size: int = 4) -> None:
        """``count_keyed``: counts of keyed texts (cached by key);
        ``overhead``: the framing tokens of each message; ``size``: threads
        kept (the open one and a few just left)."""
        self._count_keyed = count_keyed
        self._overhead = overhead
        self._size = size
        self._kept: OrderedDict[str, _Tally] = OrderedDict()
        self._lock = threading.Lock()

    def total(
        self, thread_id: str, replay: Sequence[Message], earlier: Attachments, system: str
    ) -> int:
        """Tokens of the replayed history (older attachments named) and of the
        hidden context ``system``, each with its framing."""
        kept = self._kept.get(thread_id)
        same = _same_prefix(kept, replay, earlier) if kept is not None else 0
        rest = replay[same:]
        files = [earlier.get(m.id) if m.role is MessageRole.USER else None for m in rest]
        texts: list[Keyed] = []
        where: list[int] = []  # the index in ``rest`` of each text
        for index, (key, message) in _entries(rest, earlier):
            texts.append(keyed(key, message))
            where.append(index)
        if system:
            texts.append(keyed("system", system))
        counts = self._count_keyed(texts)
        tokens = [0] * len(rest)
        for index, count in zip(where, counts, strict=False):
            tokens[index] = self._overhead + count
        kept_tokens = kept.tokens[:same] if kept is not None else ()
        tally = _Tally(
            replay=(*(kept.replay[:same] if kept is not None else ()), *rest),
            files=(*(kept.files[:same] if kept is not None else ()), *files),
            tokens=(*kept_tokens, *tokens),
        )
        with self._lock:  # measures of two threads may run at once (worker threads)
            self._kept[thread_id] = tally
            self._kept.move_to_end(thread_id)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
        system_tokens = self._overhead + counts[-1] if system else 0
        return sum(tally.tokens) + system_tokens


def _entries(
    messages: Sequence[Message], earlier: Attachments
) -> list[tuple[int, tuple[str, str]]]:
    """(index in ``messages``, (key, text to count)) of each message a request
    replays (``history_entries``: per message, so a tail can be done alone)."""
    index_of = {m.id: i for i, m in enumerate(messages)}
    return [
        (index_of[key], (key, message.content))
        for key, message in history_entries(messages, earlier)
    ]


def _same_prefix(kept: _Tally, replay: Sequence[Message], earlier: Attachments) -> int:
    """How many replayed messages lead the kept tally unchanged: the same
    objects (frozen), user messages naming the same attachments."""
    same = 0
    for old, new, files in zip(kept.replay, replay, kept.files, strict=False):
        if old is not new or (new.role is MessageRole.USER and earlier.get(new.id) != files):
            break
        same += 1
    return same
