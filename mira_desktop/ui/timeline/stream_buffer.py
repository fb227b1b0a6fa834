"""Coalescing of streaming deltas for the timeline.

Owns the ~40 ms batching between the controller's per-token signals and the
repaint of a message: deltas for any number of messages are accumulated in
memory and handed over in one ``flushed`` emission, so the timeline re-renders at
most ~25 times a second however fast tokens arrive. The interval adapts to
what a flush costs (its slots: the timeline's append and relayout): after a
flush of cost ``c`` the next waits at least ``c × (1 / share − 1)`` (see
:func:`~.live_cadence.paced_wait_ms`), so flushes keep to a bounded share of
the Qt thread. The timer only runs while something is pending; an idle buffer
costs nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer, Signal

from .live_cadence import CEILING_MS, LIVE_SHARE, paced_wait_ms

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_MS = 40


@dataclass(slots=True)
class PendingDelta:
    """What arrived for one message since the last flush. Reasoning is applied
    before answer text (providers send reasoning first)."""

    thinking: str = ""
    text: str = ""


class StreamBuffer(QObject):
    """Accumulates text/thinking deltas per message id and emits them in batches."""

    #: dict[str, PendingDelta], in order of first arrival
    flushed = Signal(object)

    def __init__(self, interval_ms: int = DEFAULT_INTERVAL_MS, parent: QObject | None = None):
        super().__init__(parent)
        self._interval_ms = interval_ms
        self._pending: dict[str, PendingDelta] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.flush)

    def push_text(self, message_id: str, text: str) -> None:
        if text:
            self._entry(message_id).text += text

    def push_thinking(self, message_id: str, text: str) -> None:
        if text:
            self._entry(message_id).thinking += text

    def pending(self, message_id: str) -> PendingDelta | None:
        """What is buffered for ``message_id`` and not yet flushed."""
        return self._pending.get(message_id)

    def discard(self, message_id: str) -> None:
        """Drop whatever is buffered for one message (it was replaced wholesale)."""
        self._pending.pop(message_id, None)

    def clear(self) -> None:
        self._pending.clear()
        self._timer.stop()

    def flush(self) -> None:
        """Emit everything pending now (also called by the timer)."""
        self._timer.stop()
        if not self._pending:
            return
        batch, self._pending = self._pending, {}
        started = time.perf_counter()
        self.flushed.emit(batch)
        self._timer.setInterval(self.next_interval_ms(time.perf_counter() - started))

    def next_interval_ms(self, cost_s: float) -> int:
        """The pause after a flush that cost ``cost_s`` seconds."""
        if self._interval_ms <= 0:
            return 0  # tests flush on the next loop turn
        ceiling = max(CEILING_MS, self._interval_ms)
        return paced_wait_ms(
            cost_s, share=LIVE_SHARE, floor_ms=self._interval_ms, ceiling_ms=ceiling
        )

    def _entry(self, message_id: str) -> PendingDelta:
        entry = self._pending.get(message_id)
        if entry is None:
            entry = self._pending[message_id] = PendingDelta()
        if not self._timer.isActive():
            self._timer.start()
        return entry
