"""Batch mode's tick marks and the drag payload of sidebar threads.

:class:`BatchChecks` holds what is ticked: single threads, or "all" minus the
ones unticked since — which covers pages not loaded yet, so "select all" on
100,000 threads costs nothing until an action resolves it page by page
(:class:`BatchSelection`). ``encode_ids``/``decode_ids`` carry thread ids in a
drag (reordering pins, dropping threads on a workspace). Qt-free but for
``QMimeData``."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QMimeData

log = logging.getLogger(__name__)

MIME_TYPE = "application/x-mira-thread-ids"


def encode_ids(ids: Sequence[str]) -> QMimeData:
    data = QMimeData()
    data.setData(MIME_TYPE, json.dumps(list(ids)).encode("utf-8"))
    return data


def decode_ids(data: QMimeData | None) -> list[str]:
    if data is None or not data.hasFormat(MIME_TYPE):
        return []
    try:
        ids = json.loads(bytes(data.data(MIME_TYPE).data()).decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return []
    return [str(i) for i in ids] if isinstance(ids, list) else []


@dataclass(frozen=True, slots=True)
class BatchSelection:
    """The threads ticked in batch mode: ``ids``, or with ``everything`` every
    thread of the list except ``excluded`` (loaded or not)."""

    everything: bool = False
    ids: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()


class BatchChecks:
    def __init__(self) -> None:
        self.on = False
        self._checked: set[str] = set()
        self._everything = False
        self._unchecked: set[str] = set()

    def reset(self, *, on: bool | None = None, everything: bool = False) -> None:
        if on is not None:
            self.on = on
        self._checked.clear()
        self._unchecked.clear()
        self._everything = everything

    def is_checked(self, thread_id: str) -> bool:
        if self._everything:
            return thread_id not in self._unchecked
        return thread_id in self._checked

    def set_checked(self, thread_id: str, checked: bool) -> None:
        if self._everything:
            (self._unchecked.discard if checked else self._unchecked.add)(thread_id)
        else:
            (self._checked.add if checked else self._checked.discard)(thread_id)

    def all_checked(self) -> bool:
        return self._everything and not self._unchecked

    def count(self, total: int) -> int:
        """How many are ticked in a list of ``total`` threads."""
        if self._everything:
            return max(0, total - len(self._unchecked))
        return len(self._checked)

    def selection(self, loaded: Iterable[str]) -> BatchSelection:
        if self._everything:
            return BatchSelection(True, (), tuple(self._unchecked))
        return BatchSelection(False, tuple(i for i in loaded if i in self._checked), ())
