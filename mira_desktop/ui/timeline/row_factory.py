"""Where the timeline's row widgets come from.

A row that scrolls into view gets a widget from :class:`RowFactory`: a spare
skeleton made while the view was idle (``row_pool``), bound to the row's
state, or a new widget when none of its kind is ready. Either way the view's
``wire`` callback connects it once, when it is made. The factory also keeps
the finished renderings of the last ``RENDER_CACHE_ROWS`` rows that had a
widget, so a row scrolled back into view does not render its markdown again,
while a long thread does not keep the HTML of every answer it ever showed.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from .message_state import MessageState, ViewOptions
from .row_pool import RowPool

if TYPE_CHECKING:  # the row widgets load with the first row (``row_widgets``)
    from .message_widget import MessageWidget

#: finished renderings kept for rows that scrolled away (re-rendering is cheap,
#: the HTML of thousands of answers is not)
RENDER_CACHE_ROWS = 200

Wire = Callable[["MessageWidget"], "MessageWidget"]


class RowFactory(QObject):
    """Row widgets for ``canvas``; see the module docstring. ``wire(widget)``
    connects a new widget to the view and returns it."""

    def __init__(self, canvas: QWidget, options: ViewOptions, wire: Wire, parent: QObject):
        super().__init__(parent)
        self._canvas = canvas
        self._options = options
        self._wire = wire
        self._pool = RowPool(self._build_spare, self)
        self._recent: OrderedDict[str, MessageState] = OrderedDict()

    def create(self, state: MessageState) -> MessageWidget:
        """The widget showing ``state`` (for ``TimelineLayout``)."""
        self._remember_rendering(state)
        widget = self._pool.take(state)  # a skeleton built while idle, or a new one
        if widget is None:
            from .row_widgets import create_row_widget  # with the first row, not the first frame

            widget = self._wire(create_row_widget(state, self._options, self._canvas))
        widget.set_highlighted(state.highlighted)
        return widget

    def warm_up(self) -> None:
        """One-off costs (the row widgets' modules, markdown, Qt's text) paid
        while idle; then spares are kept ready."""
        from .row_widgets import warm_up_rendering

        warm_up_rendering(self._canvas, self._options.dark)
        self._pool.start()

    def hold(self) -> None:
        """A run is starting: spares are made after it (``RowPool.hold``)."""
        self._pool.hold()

    def replace_spares(self) -> None:
        """The language, font or palette changed: spares made under the old
        ones would not match new rows, so they are made again while idle."""
        self._pool.clear()

    def spare_count(self) -> int:
        return self._pool.spare_count()

    def forget_renderings(self) -> None:
        """Another thread (or branch) is shown: its rows start afresh."""
        self._recent.clear()

    def _build_spare(self, kind: str) -> MessageWidget:
        from .row_widgets import create_spare_widget

        return self._wire(create_spare_widget(kind, self._options, self._canvas))

    def _remember_rendering(self, state: MessageState) -> None:
        recent = self._recent
        recent[state.id] = state
        recent.move_to_end(state.id)
        while len(recent) > RENDER_CACHE_ROWS:
            recent.popitem(last=False)[1].drop_render_cache()
