"""Spare row widgets for the timeline, built while it is idle.

Building a message widget has two halves of about equal cost: its skeleton
(the text surface, labels, buttons, layout and the timeline's connections) and
showing a message in it. A thread that opens builds the ~7 rows on screen in
one pass, and a new question and its answer each build a row in the pass that
starts the run. :class:`RowPool` keeps a few skeletons of the two common kinds
(a question, an answer), made one per timer shot so that each is a short pass
of its own, and hands one out bound to the row's state (``bind``). While a
thread loads, the loop is idle and spares are made again at once; while a
run starts (a new message) they wait until the loop has been left alone for
a moment (``hold``).

Only fresh skeletons are kept: a widget that has shown a message is destroyed
when its row leaves, as before, so nothing of an old message (a selection, a
live rendering, an open card) can reach a new one. A change of language, font
or palette replaces the spares (a small label's font is fixed when it is made).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from mira_desktop.core.models import MessageRole

from .message_state import MessageState

if TYPE_CHECKING:
    from .message_widget import MessageWidget

log = logging.getLogger(__name__)

#: skeletons kept per kind: about a screen's worth of rows of each
SPARES = {"user": 5, "answer": 5}
#: pause between two skeletons (each is a pass of ~1.5 ms)
REFILL_MS = 10
#: pause before making more after a message was added (see ``RowPool.hold``)
HOLD_MS = 500


def row_kind(state: MessageState) -> str:
    """Which widget shows ``state``: ``edit`` (the inline editor), ``user``,
    ``card`` (a system card) or ``answer``."""
    if state.is_user:
        return "edit" if state.editing else "user"
    if state.message.role == MessageRole.SYSTEM_CARD:
        return "card"
    return "answer"


class RowPool(QObject):
    """Skeletons of row widgets made ahead; see the module docstring.
    ``build(kind)`` makes one (hidden, connected, without a state)."""

    def __init__(self, build: Callable[[str], MessageWidget], parent: QObject | None = None):
        super().__init__(parent)
        self._build = build
        self._spares: dict[str, list[MessageWidget]] = {kind: [] for kind in SPARES}
        self._started = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFILL_MS)
        self._timer.timeout.connect(self._refill_one)

    def start(self) -> None:
        """Begin keeping spares (after the timeline's idle warm-up: building
        them earlier would delay the window's first frames)."""
        self._started = True
        self._schedule()

    def take(self, state: MessageState) -> MessageWidget | None:
        """A spare showing ``state``, or None (none of its kind is ready)."""
        spares = self._spares.get(row_kind(state))
        if not spares:
            return None
        widget = spares.pop()
        widget.bind(state)
        self._schedule()
        return widget

    def hold(self) -> None:
        """The loop is busy for a moment (a run starts: its first reads, its
        rows, their paints): make no spare until it has been left alone for
        ``HOLD_MS`` (a skeleton's pass there would lengthen a frame)."""
        if self._started:
            self._timer.start(HOLD_MS)

    def spare_count(self) -> int:
        return sum(map(len, self._spares.values()))

    def clear(self) -> None:
        """Destroy the spares (made under an old language, font or palette);
        new ones follow."""
        for spares in self._spares.values():
            for widget in spares:
                widget.deleteLater()
            spares.clear()
        self._schedule()

    def _missing(self) -> str | None:
        """The kind with the fewest spares short of its count."""
        short = [
            (len(self._spares[k]) - n, k) for k, n in SPARES.items() if len(self._spares[k]) < n
        ]
        return min(short)[1] if short else None

    def _schedule(self) -> None:
        if self._started and not self._timer.isActive() and self._missing() is not None:
            self._timer.start(REFILL_MS)

    def _refill_one(self) -> None:
        kind = self._missing()
        if kind is not None:
            self._spares[kind].append(self._build(kind))
        self._schedule()
