"""Row geometry of the virtualised timeline.

Owns the heights of all rows (estimated or measured) and their cumulative
offsets, so that "which row is at pixel y" and "where does row i start" are a
binary search and a list lookup even for tens of thousands of messages. Changes
near the end (the streaming answer) update the offsets in place; others mark
them for one O(n) rebuild on the next query.
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Iterable
from itertools import accumulate

log = logging.getLogger(__name__)

_IN_PLACE_LIMIT = 256


class RowIndex:
    def __init__(self) -> None:
        self._heights: list[int] = []
        self._offsets: list[int] = [0]
        self._stale = False

    def reset(self, heights: Iterable[int]) -> None:
        self._heights = [max(1, int(h)) for h in heights]
        self._stale = True

    def append(self, height: int) -> None:
        height = max(1, int(height))
        self._heights.append(height)
        if not self._stale:
            self._offsets.append(self._offsets[-1] + height)

    def __len__(self) -> int:
        return len(self._heights)

    def height(self, index: int) -> int:
        return self._heights[index]

    def set_height(self, index: int, height: int) -> None:
        height = max(1, int(height))
        delta = height - self._heights[index]
        if not delta:
            return
        self._heights[index] = height
        if self._stale:
            return
        if len(self._heights) - index <= _IN_PLACE_LIMIT:
            offsets = self._offsets
            for j in range(index + 1, len(offsets)):
                offsets[j] += delta
        else:
            self._stale = True

    def offset(self, index: int) -> int:
        """Top of row ``index``; ``offset(len(self))`` is the total height."""
        self._rebuild()
        return self._offsets[index]

    def total(self) -> int:
        self._rebuild()
        return self._offsets[-1]

    def index_at(self, y: int) -> int:
        """The row containing pixel ``y`` (clamped to the first/last row)."""
        if not self._heights:
            return 0
        self._rebuild()
        index = bisect_right(self._offsets, y) - 1
        return min(max(index, 0), len(self._heights) - 1)

    def _rebuild(self) -> None:
        if self._stale:
            self._offsets = [0, *accumulate(self._heights)]
            self._stale = False
