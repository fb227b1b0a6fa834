"""A ``system-card`` message of the timeline: most often the "Context
compressed" card a compaction leaves (PRODUCT.md §4; ``data.kind ==
"compaction"``), drawn as a distinct, collapsible card rather than an answer.

The header says what the card is (the compaction title, translated), when and
how it was made (automatic or by ``/compact``, the model) and offers Copy; a
click on the header opens the body — the summary as markdown, plus the
instructions given to ``/compact``. Closed by default; whether it is open is
kept on the :class:`MessageState` (``card_open``) so it survives the widget
scrolling away. Object names: ``systemCard``, ``systemCardToggle``,
``systemCardMeta``, ``systemCardText``."""

from __future__ import annotations

import logging

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QHBoxLayout, QToolButton, QVBoxLayout, QWidget

from mira_desktop.core.message_kinds import COMPACTION_KIND

from .message_state import MessageState, ViewOptions
from .message_widget import MessageWidget
from .meta_format import SEPARATOR, local_time
from .rich_text import RichTextView

log = logging.getLogger(__name__)

_PAD = 12
_CARD_QSS = """
QToolButton#systemCardToggle { border: none; background: transparent; padding: 2px 4px; }
"""


def is_compaction(state: MessageState) -> bool:
    data = state.message.data or {}
    return data.get("kind") == COMPACTION_KIND


class SystemCardWidget(MessageWidget):
    """A collapsible card for a ``system-card`` message."""

    def __init__(self, state: MessageState, options: ViewOptions, parent: QWidget | None = None):
        super().__init__(state, options, parent)
        self.setObjectName("systemCard")
        self.setStyleSheet(_CARD_QSS)
        box = QVBoxLayout(self)
        box.setContentsMargins(_PAD, 8, _PAD, 10)
        box.setSpacing(6)
        box.addLayout(self._build_header())
        self._instructions = self._muted_label("systemCardInstructions")
        self._instructions.setWordWrap(True)
        self._body = RichTextView(self, object_name="messageText")
        box.addWidget(self._instructions)
        box.addWidget(self._body)
        self._box = box  # typed: ``self.layout()`` is ``QLayout | None``
        self._outer_margin = 6
        self.setContentsMargins(0, self._outer_margin, 0, self._outer_margin)
        self.apply()

    def _build_header(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self._toggle = QToolButton(self)
        self._toggle.setObjectName("systemCardToggle")
        self._toggle.setAutoRaise(True)
        self._toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self._toggle.clicked.connect(self._on_toggle)
        font = self._toggle.font()
        font.setBold(True)
        self._toggle.setFont(font)
        self._meta = self._muted_label("systemCardMeta")
        self._copy = self._copy_button()
        row.addWidget(self._toggle)
        row.addWidget(self._meta, 1)
        row.addWidget(self._copy)
        return row

    # -- state --------------------------------------------------------------------

    def apply(self) -> None:
        state = self._state
        open_ = state.card_open
        self._toggle.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self._toggle.setText(self.title())
        self._toggle.setToolTip(
            self.tr("Hide the summary") if open_ else self.tr("Show the summary")
        )
        meta, tooltip = self._meta_text()
        self._meta.setText(meta)
        self._meta.setToolTip(tooltip)
        instructions = str((state.message.data or {}).get("instructions") or "")
        self._instructions.setText(self.tr("Instructions: {0}").format(instructions))
        self._instructions.setVisible(open_ and bool(instructions))
        self._body.setVisible(open_ and bool(state.text))
        if open_ and state.text:
            rendered = state.rendered(self._options.dark)
            if not self._body.is_static_showing(rendered):
                self._body.set_rendered(rendered)

    def measure(self, width: int) -> int:
        # A closed card has no height-for-width child: ask the layout for its hint.
        if self._box.hasHeightForWidth():
            return self._box.totalHeightForWidth(width)
        return self._box.totalSizeHint().height()

    def title(self) -> str:
        if is_compaction(self._state):
            return self.tr("Context compressed")
        title = (self._state.message.data or {}).get("title")
        return str(title) if title else self.tr("Note")

    def is_open(self) -> bool:
        return self._state.card_open

    def _meta_text(self) -> tuple[str, str]:
        message = self._state.message
        label, full = local_time(message.created_at)
        data = message.data or {}
        how = ""
        if is_compaction(self._state):
            manual = data.get("trigger") in (None, "", "manual")
            how = self.tr("by /compact") if manual else self.tr("automatically")
        parts = [p for p in (how, str(data.get("model") or message.model or ""), label) if p]
        return SEPARATOR.join(parts), full

    def _on_toggle(self) -> None:
        self._state.card_open = not self._state.card_open
        self.apply()
        self.height_changed.emit(self.message_id)

    @property
    def body(self) -> RichTextView:
        return self._body

    # -- look ---------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        rect = QRectF(self.rect()).adjusted(0.5, self._outer_margin + 0.5, -0.5, -0.5)
        rect.setBottom(rect.bottom() - self._outer_margin)
        painter.setPen(QColor(palette.color(QPalette.ColorRole.Mid)))
        painter.setBrush(QColor(palette.color(QPalette.ColorRole.AlternateBase)))
        painter.drawRoundedRect(rect, 10, 10)
        accent = QColor(palette.color(QPalette.ColorRole.Accent))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(accent)
        painter.drawRoundedRect(
            QRectF(rect.left(), rect.top() + 8, 3, rect.height() - 16), 1.5, 1.5
        )
        painter.end()
        super().paintEvent(event)
