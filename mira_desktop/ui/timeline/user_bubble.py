"""The user's own message: a right-aligned bubble.

Owns :class:`UserMessageWidget`, which shows what the person typed as plain text
(newlines kept, nothing interpreted) in a bubble as wide as its longest line and
at most ~78 % of the timeline, with the local time and a Copy button (shown on
hover) under it. Geometry is computed by hand so the bubble hugs its text.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QEnterEvent, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QFrame, QSizePolicy, QWidget

from .message_state import MessageState, ViewOptions
from .message_widget import MessageWidget
from .meta_format import local_time
from .rich_text import RichTextView

log = logging.getLogger(__name__)

_MAX_FRACTION = 0.78
_PAD_H = 12
_PAD_V = 8
_MARGIN_TOP = 10
_GAP = 2
_MARGIN_BOTTOM = 4


class _Bubble(QFrame):
    """Rounded background: the palette's Base tinted towards Highlight (painted
    here, so a generic QSS background rule cannot flatten it)."""

    def paintEvent(self, event: QPaintEvent) -> None:
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        accent = palette.color(QPalette.ColorRole.Highlight)
        # Enough of the accent to stand out by ~8 % lightness, whether the
        # palette's highlight is a strong colour or a pale selection tint.
        distance = abs(accent.lightnessF() - base.lightnessF())
        mix = min(1.0, max(0.12, 0.08 / max(distance, 0.01)))
        colour = QColor.fromRgbF(
            base.redF() * (1 - mix) + accent.redF() * mix,
            base.greenF() * (1 - mix) + accent.greenF() * mix,
            base.blueF() * (1 - mix) + accent.blueF() * mix,
        )
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(QRectF(self.rect()), 14, 14)


class UserMessageWidget(MessageWidget):
    """Right-aligned bubble with the person's text."""

    def __init__(self, state: MessageState, options: ViewOptions, parent: QWidget | None = None):
        super().__init__(state, options, parent)
        self.setObjectName("userMessage")
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._bubble = _Bubble(self)
        self._bubble.setObjectName("userBubble")
        self._text = RichTextView(self._bubble, object_name="userText")
        self._time = self._muted_label("messageMeta")
        self._copy = self._copy_button()
        policy = self._copy.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self._copy.setSizePolicy(policy)
        self._copy.setVisible(False)
        self.apply()

    def apply(self) -> None:
        self._text.set_plain(self._state.text)
        label, full = local_time(self._state.message.created_at)
        self._time.setText(label)
        self._time.setToolTip(full)
        self._layout_children(self.width())

    # -- geometry -----------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        _, text_h = self._text_size(width)
        return _MARGIN_TOP + text_h + 2 * _PAD_V + _GAP + self._footer_height() + _MARGIN_BOTTOM

    def _footer_height(self) -> int:
        return max(self._copy.sizeHint().height(), self._time.sizeHint().height())

    def _text_size(self, width: int) -> tuple[int, int]:
        max_inner = max(40, int(width * _MAX_FRACTION) - 2 * _PAD_H)
        self._text.heightForWidth(max_inner)
        inner = min(max_inner, self._text.content_width() + 2)
        return inner, self._text.heightForWidth(inner)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._layout_children(event.size().width())

    def _layout_children(self, width: int) -> None:
        if width <= 0:
            return
        inner, text_h = self._text_size(width)
        bubble_w, bubble_h = inner + 2 * _PAD_H, text_h + 2 * _PAD_V
        self._bubble.setGeometry(width - bubble_w, _MARGIN_TOP, bubble_w, bubble_h)
        self._text.setGeometry(_PAD_H, _PAD_V, inner, text_h)
        footer_y = _MARGIN_TOP + bubble_h + _GAP
        footer_h = self._footer_height()
        time_w = self._time.sizeHint().width()
        self._time.setGeometry(width - time_w - 4, footer_y, time_w, footer_h)
        copy_w = self._copy.sizeHint().width()
        self._copy.setGeometry(width - time_w - 10 - copy_w, footer_y, copy_w, footer_h)

    # -- hover --------------------------------------------------------------------

    def enterEvent(self, event: QEnterEvent) -> None:
        super().enterEvent(event)
        self._copy.setVisible(True)

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        self._copy.setVisible(False)

    @property
    def text_view(self) -> RichTextView:
        return self._text
