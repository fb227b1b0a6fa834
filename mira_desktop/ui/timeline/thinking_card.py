"""The Thinking card of an assistant message (PRODUCT.md §6).

Owns the header ("Thinking 12s" counting live while reasoning streams, "Thought
for 12s" once the answer began or after a reload), the reasoning text under it,
the click that opens or closes it, and the "Stop thinking" button shown while
only reasoning is streaming. Whether the card is open is decided by
:meth:`MessageState.thinking_expanded`; this widget only shows it.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .message_state import THINKING_HIDDEN, ClockFn, MessageState
from .rich_text import RichTextView, muted_colour

log = logging.getLogger(__name__)

_BODY_INDENT = 14


class ThinkingCard(QFrame):
    """Header + collapsible reasoning text for one message."""

    toggle_requested = Signal(bool)  # the state the user asks for
    stop_requested = Signal()

    def __init__(self, clock: ClockFn, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("thinkingCard")
        self._clock = clock
        self._state: MessageState | None = None
        self._expanded = False
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._refresh_header)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(self._build_header())
        self._body: RichTextView | None = None  # created when first opened

    def _build_header(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        self._toggle = QToolButton(self)
        self._toggle.setObjectName("thinkingToggle")
        self._toggle.setAutoRaise(True)
        self._toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self._toggle.clicked.connect(self._on_toggle)
        self._stop = QPushButton(self.tr("Stop thinking"), self)
        self._stop.setObjectName("stopThinkingButton")
        self._stop.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self._stop.setVisible(False)
        self._stop.clicked.connect(self._on_stop)
        row.addWidget(self._toggle)
        row.addWidget(self._stop)
        row.addStretch(1)
        return row

    # -- state --------------------------------------------------------------------

    def apply(self, state: MessageState, mode: str) -> None:
        """Show ``state`` in display ``mode``; cheap enough to call on every flush."""
        self._state = state
        now = self._clock()
        live = state.thinking_live
        self.setVisible(bool(state.thinking) and (mode != THINKING_HIDDEN or live))
        self._expanded = state.thinking_expanded(mode, now)
        self._toggle.setEnabled(mode != THINKING_HIDDEN)
        arrow = Qt.ArrowType.DownArrow if self._expanded else Qt.ArrowType.RightArrow
        self._toggle.setArrowType(arrow)
        self._stop.setVisible(live and not state.stop_thinking_sent)
        if self._expanded:
            muted = muted_colour(self)
            self._ensure_body().set_plain(state.thinking.strip("\n"), colour=muted)
        if self._body is not None:
            self._body.setVisible(self._expanded)
        self._refresh_header()
        if live and not self._timer.isActive():
            self._timer.start()
        elif not live:
            self._timer.stop()

    def is_expanded(self) -> bool:
        return self._expanded

    def focus_parts(self) -> list[QWidget]:
        """What Tab stops at in the card, top to bottom."""
        parts: list[QWidget] = [self._toggle, self._stop]
        if self._body is not None:
            parts.append(self._body)
        return parts

    def header_text(self) -> str:
        return self._toggle.text()

    def is_stop_visible(self) -> bool:
        return not self._stop.isHidden()

    def _ensure_body(self) -> RichTextView:
        if self._body is None:
            self._body = RichTextView(self, object_name="thinkingText")
            # Indent with a layout margin: style sheets reset the view's own margins.
            row = QHBoxLayout()
            row.setContentsMargins(_BODY_INDENT, 0, 0, 0)
            row.addWidget(self._body)
            layout = self.layout()
            assert isinstance(layout, QVBoxLayout)
            layout.addLayout(row)
        return self._body

    def _refresh_header(self) -> None:
        state = self._state
        if state is None:
            return
        seconds = state.thinking_seconds(self._clock())
        if state.thinking_live:
            text = self.tr("Thinking {0}").format(self._duration(seconds or 0))
        elif seconds is None:
            text = self.tr("Thoughts")
        elif seconds < 1:  # not "Thought for 0s"
            text = self.tr("Thought for a moment")
        else:
            text = self.tr("Thought for {0}").format(self._duration(seconds))
        if text != self._toggle.text():
            self._toggle.setText(text)

    def _duration(self, seconds: int) -> str:
        if seconds < 60:
            return self.tr("{0}s").format(seconds)
        return self.tr("{0}m {1}s").format(seconds // 60, seconds % 60)

    def _on_toggle(self) -> None:
        self.toggle_requested.emit(not self._expanded)

    def _on_stop(self) -> None:
        self._stop.setEnabled(False)
        self.stop_requested.emit()

    # -- look ---------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._expanded or self._body is None or self._body.isHidden():
            return
        # A thin rule left of the reasoning, like a block quote.
        painter = QPainter(self)
        geometry = self._body.geometry()
        colour = self.palette().color(QPalette.ColorRole.Mid)
        painter.fillRect(4, geometry.top() + 2, 2, max(0, geometry.height() - 4), colour)
        painter.end()
