"""Virtualisation engine of the timeline.

Owns the scroll position, the "pinned to the bottom" flag, the row geometry and
the set of materialised widgets: :meth:`TimelineLayout.relayout` works out which
rows are within the viewport plus an overscan margin, creates and measures their
widgets, corrects the row heights (keeping the first visible row where it was,
or the bottom in view when pinned), destroys widgets that left the margin and
places the rest. Rows are identified by index: a thread only grows at its end
(another branch of the tree is shown by starting over with :meth:`reset`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QScrollBar, QWidget

from .message_state import MessageState
from .row_index import RowIndex

if TYPE_CHECKING:  # loaded with the first row (``row_widgets``)
    from .message_widget import MessageWidget

log = logging.getLogger(__name__)

PAD_TOP = 12
PAD_BOTTOM = 24
SIDE_MARGIN = 24
MAX_CONTENT_WIDTH = 860
MIN_OVERSCAN = 240
#: margin materialised synchronously; the full overscan follows in a zero-timer
NEAR_MARGIN = 32
#: widgets this many rows beyond the overscan margin are kept (hysteresis)
KEEP_ROWS = 2

WidgetFactory = Callable[[MessageState], "MessageWidget"]


#: overscan rows are built this long after the pass that showed the screen
PREFETCH_DELAY_MS = 16


class TimelineLayout:
    def __init__(self, canvas: QWidget, scrollbar: QScrollBar, factory: WidgetFactory):
        self._canvas = canvas
        self._bar = scrollbar
        self._factory = factory
        self._states: list[MessageState] = []
        self._rows = RowIndex()
        self._widgets: dict[int, MessageWidget] = {}
        self._dirty: set[int] = set()
        self._busy = False
        # a frame later: a zero timer fires before the paint (the platform
        # schedules it on a timer of its own), and the first frame paid for it
        self._prefetch_timer = QTimer(canvas)
        self._prefetch_timer.setSingleShot(True)
        self._prefetch_timer.setInterval(PREFETCH_DELAY_MS)
        self._prefetch_timer.timeout.connect(self._prefetch)
        self._anchor_row: int | None = None
        self.scroll_y = 0
        self.pinned = True
        self.max_content_width = MAX_CONTENT_WIDTH

    # -- rows ---------------------------------------------------------------------

    def reset(self, states: list[MessageState]) -> None:
        """Start over with ``states`` (the view's own list, which it appends to)."""
        self.drop_widgets()
        self._states = states
        self._rows.reset(s.height for s in states)
        self.scroll_y = 0
        self.pinned = True

    def drop_widgets(self) -> None:
        """Destroy every materialised widget (the next pass builds them anew)."""
        for widget in self._widgets.values():
            self._dispose(widget)
        self._widgets.clear()
        self._dirty.clear()

    def rebuild(self, index: int) -> None:
        """Drop the widget of row ``index``; the next pass creates it anew (the
        row changed kind, e.g. a user message turned into its editor)."""
        widget = self._widgets.pop(index, None)
        self._dirty.discard(index)
        if widget is not None:
            self._dispose(widget)

    def append(self, state: MessageState) -> None:
        """A state was appended to the view's list."""
        self._rows.append(state.height)

    def mark_dirty(self, index: int) -> None:
        if index in self._widgets:
            self._dirty.add(index)

    def invalidate_measurements(self) -> None:
        self._dirty.update(self._widgets)

    # -- queries ------------------------------------------------------------------

    def content_width(self) -> int:
        available = self._canvas.width() - 2 * SIDE_MARGIN
        return max(160, min(available, self.max_content_width))

    def live_count(self) -> int:
        return len(self._widgets)

    def live_indices(self) -> list[int]:
        return sorted(self._widgets)

    def widget_at(self, index: int) -> MessageWidget | None:
        return self._widgets.get(index)

    def max_scroll(self) -> int:
        total = PAD_TOP + self._rows.total() + PAD_BOTTOM
        return max(0, total - self._canvas.height())

    # -- scrolling ----------------------------------------------------------------

    def scroll_to(self, y: int, *, by_user: bool = False) -> None:
        self.scroll_y = max(0, min(int(y), self.max_scroll()))
        if by_user:
            self.pinned = self.scroll_y >= self.max_scroll() - 2
        self.relayout()

    def scroll_to_bottom(self) -> None:
        self.pinned = True
        self.relayout()

    def scroll_to_row(self, index: int) -> None:
        """Put the top of row ``index`` just below the top of the viewport."""
        self.place_row(index, 8)

    def row_view_y(self, index: int) -> int:
        """Where the top of row ``index`` is, relative to the top of the viewport."""
        return PAD_TOP + self._rows.offset(index) - self.scroll_y

    def scroll_by_key(self, key: Qt.Key, page: int) -> bool:
        """Page Up/Down, arrows, Home and End; False for any other key."""
        steps = {Qt.Key.Key_PageDown: page, Qt.Key.Key_PageUp: -page, Qt.Key.Key_Down: 40}
        steps[Qt.Key.Key_Up] = -40
        if key in steps:
            self.scroll_to(self.scroll_y + steps[key], by_user=True)
        elif key == Qt.Key.Key_Home:
            self.scroll_to(0, by_user=True)
        elif key == Qt.Key.Key_End:
            self.scroll_to_bottom()
        else:
            return False
        return True

    def reveal(self, index: int, top: int, bottom: int, margin: int = 12) -> None:
        """Scroll the least that shows ``top``–``bottom`` of row ``index`` (widget
        coordinates), keeping its top in view."""
        row_y, view_h = self.row_view_y(index), self._canvas.height()
        if row_y + bottom + margin > view_h:
            shift = row_y + bottom + margin - view_h
            shift = min(shift, max(0, row_y + top - margin))
        elif row_y + top < margin:
            shift = row_y + top - margin
        else:
            return
        self.scroll_to(self.scroll_y + shift, by_user=True)

    def place_row(self, index: int, view_y: int) -> None:
        """Scroll so the top of row ``index`` is ``view_y`` below the viewport's
        top (as far as the content allows), keeping it there while rows measure."""
        self.pinned = False
        self.scroll_y = max(0, PAD_TOP + self._rows.offset(index) - view_y)
        self._anchor_row = index
        try:
            self.relayout()
        finally:
            self._anchor_row = None
        self.pinned = self.scroll_y >= self.max_scroll() - 2

    # -- the pass -----------------------------------------------------------------

    def relayout(self, *, prefetch: bool = False) -> None:
        """Materialise what is on screen now; rows in the overscan margin follow
        a frame later (``prefetch``), so the first paint only pays for what is
        seen."""
        if self._busy:
            return
        self._busy = True
        try:
            self._relayout(prefetch)
        finally:
            self._busy = False
        timer = self._prefetch_timer
        if not prefetch and (not timer.isActive() or timer.remainingTime() <= 0):
            timer.start()  # again if it fell due meanwhile: it would run before the paint

    def _prefetch(self) -> None:
        self.relayout(prefetch=True)

    def _relayout(self, prefetch: bool) -> None:
        width = self.content_width()
        height = max(1, self._canvas.height())
        overscan = max(MIN_OVERSCAN, height // 2)
        margin = overscan if prefetch else NEAR_MARGIN
        for _ in range(8):
            self._clamp()
            anchor = self._anchor()
            first, last = self._wanted_range(height, margin)
            if not self._materialise(first, last, width):
                break
            if anchor is not None and not self.pinned:
                self.scroll_y = self._rows.offset(anchor[0]) + anchor[1]
        self._clamp()
        self._release(*self._wanted_range(height, overscan))
        self._place(width)
        self._sync_scrollbar(height)

    def _clamp(self) -> None:
        top = self.max_scroll()
        self.scroll_y = top if self.pinned else max(0, min(self.scroll_y, top))

    def _anchor(self) -> tuple[int, int] | None:
        if not self._states:
            return None
        index = self._anchor_row
        if index is None:
            index = self._rows.index_at(max(0, self.scroll_y - PAD_TOP))
        return index, self.scroll_y - self._rows.offset(index)

    def _wanted_range(self, height: int, margin: int) -> tuple[int, int]:
        if not self._states:
            return -1, -1
        top = self.scroll_y - PAD_TOP - margin
        bottom = self.scroll_y - PAD_TOP + height + margin
        return self._rows.index_at(max(0, top)), self._rows.index_at(max(0, bottom))

    def _materialise(self, first: int, last: int, width: int) -> bool:
        """Create/measure the widgets of rows first..last; True if a height changed."""
        changed = False
        for index in range(max(first, 0), last + 1):
            state = self._states[index]
            widget = self._widgets.get(index)
            if widget is None:
                widget = self._widgets[index] = self._factory(state)
            elif index not in self._dirty and state.measured_width == width:
                continue
            self._dirty.discard(index)
            measured = max(1, widget.measure(width))
            state.measured_width = width
            if measured != self._rows.height(index):
                state.height = measured
                self._rows.set_height(index, measured)
                changed = True
        return changed

    def _release(self, first: int, last: int) -> None:
        low, high = first - KEEP_ROWS, last + KEEP_ROWS
        for index in [i for i in self._widgets if not low <= i <= high]:
            self._dispose(self._widgets.pop(index))
            self._dirty.discard(index)

    def _place(self, width: int) -> None:
        x = max(0, (self._canvas.width() - width) // 2)
        for index, widget in self._widgets.items():
            y = PAD_TOP + self._rows.offset(index) - self.scroll_y
            widget.setGeometry(x, y, width, self._rows.height(index))
            if widget.isHidden():
                widget.show()

    def _sync_scrollbar(self, height: int) -> None:
        bar, top = self._bar, self.max_scroll()
        bar.blockSignals(True)
        bar.setRange(0, top)
        bar.setPageStep(height)
        bar.setSingleStep(48)
        bar.setValue(self.scroll_y)
        bar.blockSignals(False)
        bar.setVisible(top > 0)
        bar.raise_()

    def _dispose(self, widget: MessageWidget) -> None:
        """Destroy a row's widget. One holding the keyboard focus hands it to
        the timeline first: Qt would move it on to another row, which the
        timeline would then scroll back to (it shows the focused widget)."""
        focused = QApplication.focusWidget()
        if focused is not None and (focused is widget or widget.isAncestorOf(focused)):
            view = self._canvas.parentWidget()
            (view if view is not None else self._canvas).setFocus(Qt.FocusReason.OtherFocusReason)
        widget.hide()
        widget.deleteLater()
