"""The chat timeline: a virtualised, scrolling list of messages.

Owns the list of :class:`MessageState` of the open thread and the few message
widgets that are on (or near) the screen: rows start with an estimated height,
get a widget and their real height when they scroll into view, and lose the
widget when they scroll away, so a thread of thousands of messages opens as fast
as a short one. The view opens at the bottom, stays pinned there while an answer
streams if the reader was at the bottom, and keeps the reader's place (anchored
on the first visible row) when heights above change. Streaming deltas go through
a :class:`StreamBuffer`, so a flood of tokens repaints at most ~25 times a second.

Tree intents pass through: Edit (an inline editor, imported on the first edit,
replaces the bubble; ``edit_submitted``), versions (``version_step_requested``), Regenerate
(``regenerate_requested``); :meth:`show_branch` keeps the switched message in place.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QPalette, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollBar, QWidget

from mira_desktop.core.models import Message, MessageRole, MessageStatus

from .message_state import (
    COLLAPSE_DELAY_S,
    THINKING_MODES,
    ClockFn,
    MessageState,
    ViewOptions,
    estimate_height,
    estimate_heights,
)
from .row_factory import RowFactory
from .stream_buffer import DEFAULT_INTERVAL_MS, PendingDelta, StreamBuffer
from .timeline_layout import TimelineLayout
from .timeline_style import palette_is_dark, timeline_style_sheet

if TYPE_CHECKING:  # the row widgets load with the first row (``row_widgets``)
    from .message_widget import MessageWidget
    from .thumbnails import Thumbnails

log = logging.getLogger(__name__)

HIGHLIGHT_MS = 1600
WARM_UP_DELAY_MS = 1500  # the markdown warm-up (~0.1 s) waits until the window is up


class TimelineView(QWidget):
    """Messages of one thread, newest at the bottom. See the module docstring."""

    retry_requested = Signal(str)
    stop_thinking_requested = Signal(str)
    copy_requested = Signal(str)
    edit_submitted = Signal(str, str)  # message id, new text
    version_step_requested = Signal(str, int)  # message id, -1 | +1
    regenerate_requested = Signal(str, str)  # message id, preset
    message_menu_requested = Signal(str, object)  # message id, QMenu (an answer's "⋯")
    media_requested = Signal(str, str, str)  # message id, "speech" | "image", action
    tool_requested = Signal(str, str, str)  # message id, call id, approve | deny | rollback
    plan_requested = Signal(str, str)  # message id, "implement" | "keep" (a proposed plan)
    answer_requested = Signal(str, str, object)  # message id, call id, answers or None
    #: every row replaced (another thread or branch): the anchor rail re-reads
    #: ``message_ids()``; ``row_added``: one message appended (its id)
    rows_changed = Signal()
    row_added = Signal(str)

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        clock: ClockFn = time.monotonic,
        stream_interval_ms: int = DEFAULT_INTERVAL_MS,
    ):
        super().__init__(parent)
        self.setObjectName("timelineView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._options = ViewOptions(clock=clock)
        self._states: list[MessageState] = []
        self._index_of: dict[str, int] = {}
        self._canvas = QWidget(self)
        self._canvas.setObjectName("timelineCanvas")
        self._canvas.setBackgroundRole(QPalette.ColorRole.Base)
        self._canvas.setAutoFillBackground(True)
        self._scrollbar = QScrollBar(Qt.Orientation.Vertical, self)
        self._scrollbar.setObjectName("timelineScrollBar")
        self._scrollbar.valueChanged.connect(self._on_scrollbar)
        self._rows = RowFactory(self._canvas, self._options, self._connect, self)
        self._layout = TimelineLayout(self._canvas, self._scrollbar, self._rows.create)
        self._buffer = StreamBuffer(stream_interval_ms, self)
        self._buffer.flushed.connect(self._on_flush)
        self._apply_style_sheet()
        self._retranslate()
        QTimer.singleShot(WARM_UP_DELAY_MS, self, self.warm_up)  # after the first frame
        app = QApplication.instance()
        if isinstance(app, QApplication):  # Tab into a row off screen: it comes into view
            app.focusChanged.connect(self._on_focus_changed)

    # -- public API ---------------------------------------------------------------

    def set_messages(self, messages: Sequence[Message]) -> None:
        """Show ``messages`` (oldest first), scrolled to the bottom."""
        self._buffer.clear()
        self._rows.forget_renderings()
        self._states = list(map(MessageState.from_message, messages))
        self._index_of = {m.id: i for i, m in enumerate(messages)}
        estimate_heights(self._states, *self._estimate_measures())
        self._options.open_plan_id = self._open_plan()
        self._layout.reset(self._states)
        self._layout.relayout()
        self.rows_changed.emit()

    def clear(self) -> None:
        self.set_messages(())

    def show_branch(self, messages: Sequence[Message], old_id: str, new_id: str) -> None:
        """Show another branch: ``new_id`` (the version switched to) takes the
        place on screen that ``old_id`` had; the rest follows the branch."""
        old_index = self._index_of.get(old_id)
        view_y = None if old_index is None else self._layout.row_view_y(old_index)
        self.set_messages(messages)
        new_index = self._index_of.get(new_id)
        if view_y is not None and new_index is not None:
            self._layout.place_row(new_index, max(0, view_y))

    def set_thumbnails(self, thumbnails: Thumbnails) -> None:
        """Where answers' pictures come from (``thumbnails.py``), for rows made
        from now on."""
        self._options.thumbnails = thumbnails

    def set_actions_enabled(self, enabled: bool) -> None:
        """Whether Edit, Regenerate and the version switcher work (the thread is
        saved, writable and not answering)."""
        if enabled != self._options.actions_enabled:
            self._options.actions_enabled = enabled
            for index in self._layout.live_indices():  # only the actions change
                widget = self._layout.widget_at(index)
                if widget is not None:
                    widget.apply_actions()
                    self._layout.mark_dirty(index)
            self._layout.relayout()

    def actions_enabled(self) -> bool:
        return self._options.actions_enabled

    def begin_edit(self, message_id: str) -> None:
        """Turn a user message into its inline editor."""
        index = self._index_of.get(message_id)
        if index is None or not self._states[index].is_user or not self.actions_enabled():
            return
        state = self._states[index]
        if not state.editing:
            state.editing, state.edit_text = True, state.text
            self._layout.rebuild(index)
            self._layout.relayout()
        focus = getattr(self._layout.widget_at(index), "focus_editor", None)  # UserEditWidget
        if focus is not None:
            focus()

    def end_edit(self, message_id: str) -> None:
        index = self._index_of.get(message_id)
        if index is not None and self._states[index].editing:
            self._states[index].editing = False
            self._layout.rebuild(index)
            self._layout.relayout()

    def message(self, message_id: str) -> Message | None:
        index = self._index_of.get(message_id)
        return None if index is None else self._states[index].message

    def shown_messages(self) -> list[Message]:
        """Every shown message, oldest first (frozen: readable in any thread)."""
        return [s.message for s in self._states]

    def messages_through(self, message_id: str | None) -> list[Message]:
        """The shown messages from the top down to ``message_id`` (inclusive);
        none for ``None``, all of them for an id that is not shown."""
        if message_id is None:
            return []
        index = self._index_of.get(message_id, len(self._states) - 1)
        return [s.message for s in self._states[: index + 1]]

    def upsert_message(self, message: Message) -> None:
        """Add ``message`` at the end, or replace the message with its id."""
        index = self._index_of.get(message.id)
        if index is None:
            self._rows.hold()  # a run is starting: spares are made after it
            state = MessageState.from_message(message)
            state.height = estimate_height(state, *self._estimate_measures())
            self._index_of[state.id] = len(self._states)
            self._states.append(state)
            self._layout.append(state)
            if state.is_user:  # the person just sent it: follow the conversation
                self._layout.pinned = True
            self.row_added.emit(state.id)
        else:
            state, now = self._states[index], self._options.clock()
            # The end of a run: its last buffered deltas join the final state in
            # one apply (a flush first would be a second apply in the same pass).
            ending = state.is_streaming and message.status != MessageStatus.STREAMING
            pending = self._buffer.pending(message.id) if ending else None
            if pending is not None:
                self._buffer.discard(message.id)
                state.add_thinking(pending.thinking, now)
                if state.add_text(pending.text, now):
                    self._schedule_collapse(message.id)
            self._buffer.flush()
            state.replace(message, now)
            self._refresh(message.id)
        self._follow_open_plan()
        self._layout.relayout()

    def set_live_timing(
        self, message_id: str, thinking_started: float | None, answer_started: float | None
    ) -> None:
        """A streaming answer shown again (its thread opened again): when its
        reasoning and its words began, as the run recorded them on this view's
        clock. The Thinking card keeps counting from there, open while it
        thinks and closing one second after the words began, as if the view
        had never left it."""
        index = self._index_of.get(message_id)
        if index is None:
            return
        state = self._states[index]
        if thinking_started is not None and state.thinking_started is None:
            state.thinking_started = thinking_started
        if answer_started is not None and state.answer_started is None:
            state.answer_started = answer_started
            left = COLLAPSE_DELAY_S - (self._options.clock() - answer_started)
            if left > 0:
                self._schedule_collapse(message_id, left)
        self._refresh(message_id, relayout=True)

    def set_message_data(self, message_id: str, data: dict[str, Any] | None) -> None:
        """Replace the data of a shown message — also one that is streaming,
        whose text so far stays (the agent's tool cards change mid-answer)."""
        index = self._index_of.get(message_id)
        if index is None:
            return
        state = self._states[index]
        state.message = replace(state.message, data=data)
        self._refresh(message_id)
        self._follow_open_plan()
        self._layout.relayout()

    def open_plan_id(self) -> str | None:
        """The proposed plan whose buttons work: the newest answer of the
        branch shown, when it is a plan (an older one was answered since)."""
        return self._options.open_plan_id

    def _open_plan(self) -> str | None:
        for state in reversed(self._states):
            message = state.message
            if message.role == MessageRole.SYSTEM_CARD:  # a compaction changes no plan
                continue
            data = message.data
            if message.role != MessageRole.ASSISTANT or not (data and "agent" in data):
                return None
            from mira_desktop.core.agent import is_plan  # only an agent's answers

            return message.id if is_plan(data) else None
        return None

    def _follow_open_plan(self) -> None:
        """A message came or changed: the plan with working buttons may be
        another one now (both rows redraw their actions)."""
        before, now = self._options.open_plan_id, self._open_plan()
        if before == now:
            return
        self._options.open_plan_id = now
        for message_id in (before, now):
            index = None if message_id is None else self._index_of.get(message_id)
            widget = None if index is None else self._layout.widget_at(index)
            if widget is not None and index is not None:
                widget.apply_actions()
                self._layout.mark_dirty(index)

    def append_text(self, message_id: str, text: str) -> None:
        self._buffer.push_text(message_id, text)

    def append_thinking(self, message_id: str, text: str) -> None:
        self._buffer.push_thinking(message_id, text)

    def set_thinking_display(self, mode: str) -> None:
        """``"expanded"`` (open while reasoning streams, closing 1 s after the
        answer begins), ``"collapsed"`` (header only) or ``"hidden"``."""
        if mode not in THINKING_MODES:
            raise ValueError(f"unknown thinking display mode {mode!r}")
        self._options.thinking_mode = mode
        for state in self._states:
            state.thinking_open = None
        self._refresh_all()

    def set_dark(self, dark: bool) -> None:
        """Choose the code highlighting style (colours otherwise follow the palette)."""
        if dark != self._options.dark:
            self._options.dark = dark
            self._refresh_all()

    def scroll_to_message(
        self, message_id: str, *, highlight: bool = False, at: float = 0.0
    ) -> None:
        """Bring a message's top into view, just below the top (``at``: that
        share of the view's height below it, where the content allows)."""
        index = self._index_of.get(message_id)
        if index is None:
            log.debug("scroll_to_message: unknown id %s", message_id)
            return
        if at:
            self._layout.place_row(index, int(self.height() * at))
        else:
            self._layout.scroll_to_row(index)
        if highlight:
            self._set_highlight(message_id, True)
            QTimer.singleShot(HIGHLIGHT_MS, self, lambda: self._set_highlight(message_id, False))

    def message_ids(self) -> list[str]:
        return [s.id for s in self._states]

    def message_view_y(self, message_id: str) -> int | None:
        """Where the top of the message's row is, relative to the top of the
        viewport (negative above it); ``None`` for an id that is not shown.
        Works for rows without a widget (their estimated offset)."""
        index = self._index_of.get(message_id)
        return None if index is None else self._layout.row_view_y(index)

    def message_text(self, message_id: str) -> str:
        """The text shown for the message plus deltas still in the stream buffer."""
        index = self._index_of.get(message_id)
        if index is None:
            return ""
        pending = self._buffer.pending(message_id)
        return self._states[index].text + (pending.text if pending else "")

    def message_count(self) -> int:
        return len(self._states)

    def spare_row_count(self) -> int:
        """Row widgets built ahead, not showing a message (for tests and benchmarks)."""
        return self._rows.spare_count()

    def live_widget_count(self) -> int:
        """How many message widgets exist right now (for tests and benchmarks)."""
        return self._layout.live_count()

    def message_widget(self, message_id: str) -> MessageWidget | None:
        """The widget of a message if it is currently materialised."""
        index = self._index_of.get(message_id)
        return None if index is None else self._layout.widget_at(index)

    def is_pinned_to_bottom(self) -> bool:
        return self._layout.pinned

    def flush_stream(self) -> None:
        """Apply buffered deltas now instead of at the next tick."""
        self._buffer.flush()

    def _estimate_measures(self) -> tuple[int, int, int]:
        """(content width, line height, average character width): what a row's
        height is estimated from before it has a widget."""
        metrics = self.fontMetrics()
        return self._layout.content_width(), metrics.lineSpacing(), metrics.averageCharWidth()

    # -- streaming ----------------------------------------------------------------

    def _on_flush(self, batch: dict[str, PendingDelta]) -> None:
        now = self._options.clock()
        for message_id, delta in batch.items():
            index = self._index_of.get(message_id)
            if index is None:
                log.debug("delta for unknown message %s dropped", message_id)
                continue
            state = self._states[index]
            state.add_thinking(delta.thinking, now)
            if state.add_text(delta.text, now):
                self._schedule_collapse(message_id)
            self._refresh(message_id)
        self._layout.relayout()

    def _schedule_collapse(self, message_id: str, after_s: float = COLLAPSE_DELAY_S) -> None:
        delay = int(after_s * 1000) + 20
        # precise: a coarse timer fires up to 5 % early, before the card's own
        # clock says the second is over, and the card would stay open
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.setTimerType(Qt.TimerType.PreciseTimer)
        timer.timeout.connect(lambda: self._refresh(message_id, relayout=True))
        timer.timeout.connect(timer.deleteLater)
        timer.start(delay)

    def warm_up(self) -> None:
        """One-off costs (the row widgets' modules, markdown, Qt's text) paid
        while idle; then spare rows are kept ready (``row_pool``). The view does
        this on its own a moment after it is created."""
        self._rows.warm_up()

    # -- widgets ------------------------------------------------------------------

    def _connect(self, widget: MessageWidget) -> MessageWidget:
        widget.retry_requested.connect(self.retry_requested)
        widget.stop_thinking_requested.connect(self._on_stop_thinking)
        widget.copy_requested.connect(self.copy_requested)
        widget.thinking_toggle_requested.connect(self._on_thinking_toggle)
        widget.version_step_requested.connect(self.version_step_requested)
        widget.regenerate_requested.connect(self.regenerate_requested)
        widget.menu_requested.connect(self.message_menu_requested)
        widget.media_requested.connect(self.media_requested)
        widget.tool_requested.connect(self.tool_requested)
        widget.plan_requested.connect(self.plan_requested)
        widget.answer_requested.connect(self.answer_requested)
        widget.edit_requested.connect(self.begin_edit)
        widget.edit_submitted.connect(self._on_edit_submitted)
        widget.edit_cancelled.connect(self.end_edit)
        widget.height_changed.connect(self._remeasure)
        widget.reveal_requested.connect(self._reveal)
        return widget

    def reveal_in_message(self, message_id: str, top: int, bottom: int) -> None:
        """Scroll so that ``top``–``bottom`` (in the message widget's
        coordinates) is in view, e.g. a word Find found."""
        self._reveal(message_id, top, bottom)

    def _reveal(self, message_id: str, top: int, bottom: int) -> None:
        """Show ``top``–``bottom`` of a message, e.g. the source a citation names."""
        index = self._index_of.get(message_id)
        if index is not None:
            self._layout.reveal(index, top, bottom)

    def _on_edit_submitted(self, message_id: str, text: str) -> None:
        self.end_edit(message_id)
        self.edit_submitted.emit(message_id, text)

    def _refresh(self, message_id: str, *, relayout: bool = False) -> None:
        index = self._index_of.get(message_id)
        widget = None if index is None else self._layout.widget_at(index)
        if widget is not None and index is not None:
            widget.apply()
            self._layout.mark_dirty(index)
        if relayout:
            self._layout.relayout()

    def _remeasure(self, message_id: str) -> None:
        """A row changed its own content (a markdown step, a card opened):
        measure it again and lay the rows out; it has applied itself."""
        index = self._index_of.get(message_id)
        if index is not None and self._layout.widget_at(index) is not None:
            self._layout.mark_dirty(index)
        self._layout.relayout()

    def _refresh_all(self) -> None:
        for index in self._layout.live_indices():
            self._refresh(self._states[index].id)
        self._layout.relayout()

    def _on_stop_thinking(self, message_id: str) -> None:
        self._refresh(message_id, relayout=True)
        self.stop_thinking_requested.emit(message_id)

    def _on_thinking_toggle(self, message_id: str, open_: bool) -> None:
        index = self._index_of.get(message_id)
        if index is not None:
            self._states[index].thinking_open = open_
            self._refresh(message_id, relayout=True)

    def _set_highlight(self, message_id: str, on: bool) -> None:
        index = self._index_of.get(message_id)
        if index is None:
            return
        self._states[index].highlighted = on
        widget = self._layout.widget_at(index)
        if widget is not None:
            widget.set_highlighted(on)

    # -- scrolling and events -----------------------------------------------------

    def _on_scrollbar(self, value: int) -> None:
        self._layout.scroll_to(value, by_user=True)

    def wheelEvent(self, event: QWheelEvent) -> None:
        pixels = event.pixelDelta().y()
        if not pixels:
            steps = event.angleDelta().y() / 120
            pixels = int(steps * QApplication.wheelScrollLines() * self.fontMetrics().lineSpacing())
        if pixels:
            self._layout.scroll_to(self._layout.scroll_y - pixels, by_user=True)
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Page Up/Down, Home, End and the arrows scroll the conversation —
        also those a message's text passes on (``RichTextView``): the
        keyboard then stays with the timeline, not in a row scrolled away."""
        if not self._layout.scroll_by_key(Qt.Key(event.key()), max(40, self._canvas.height() - 40)):
            super().keyPressEvent(event)
        elif not self.hasFocus():
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    def _on_focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        """Show the part of a message that took the keyboard focus (Tab into a
        row beyond the screen's edge: rows near it exist, off screen). A click
        is left alone (the pointer was on what it focused), and so is the
        window coming back to the front (the reader may have scrolled)."""
        if old is None or new is None or QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            return
        if not self._canvas.isAncestorOf(new):
            return
        for index in self._layout.live_indices():
            row = self._layout.widget_at(index)
            if row is not None and (row is new or row.isAncestorOf(new)):
                top = new.mapTo(row, QPoint(0, 0)).y()
                self._layout.reveal(index, top, top + new.height())
                return

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._canvas.setGeometry(self.rect())
        bar_w = self._scrollbar.sizeHint().width()
        self._scrollbar.setGeometry(self.width() - bar_w, 0, bar_w, self.height())
        self._layout.relayout()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        kind = event.type()
        if kind in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._rows.replace_spares()
            self._apply_style_sheet()
            if kind == QEvent.Type.FontChange:
                # a row's small labels keep the size they were made with:
                # rows are made again, like new ones
                self._layout.drop_widgets()
            else:
                # Every theme change, the system's too (a palette applied
                # without Settings): the code colours baked into the HTML follow.
                self._options.dark = palette_is_dark(self)
                for index in self._layout.live_indices():
                    widget = self._layout.widget_at(index)
                    if widget is not None:
                        widget.refresh_colours()
            self._layout.invalidate_measurements()
            self._refresh_all()
        elif kind == QEvent.Type.LanguageChange:
            self._retranslate()
            # Widgets are disposable: rebuilding them re-reads every string.
            self._rows.replace_spares()
            self._layout.drop_widgets()
            self._layout.relayout()

    def _retranslate(self) -> None:
        self.setAccessibleName(self.tr("Conversation"))
        self.setAccessibleDescription(
            self.tr("The messages of this chat; Page Up and Page Down scroll it")
        )

    def _apply_style_sheet(self) -> None:
        sheet = timeline_style_sheet(self)
        if sheet != self.styleSheet():
            self.setStyleSheet(sheet)
