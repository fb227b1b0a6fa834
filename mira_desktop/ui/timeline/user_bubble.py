"""The user's own message: a right-aligned bubble.

Owns :class:`UserMessageWidget`, which shows what the person typed as plain text
(newlines kept, nothing interpreted) in a bubble as wide as its longest line and
at most ~78 % of the timeline, with the local time, Copy and the Edit pencil
(both shown on hover; Edit only while the window allows it) and the version
switcher "‹ k/n ›" (when the message has versions) under it. Geometry is
computed by hand so the bubble hugs its text.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QEnterEvent, QPainter, QPaintEvent, QPalette, QResizeEvent
from PySide6.QtWidgets import QFrame, QSizePolicy, QToolButton, QWidget

from .message_actions import VersionSwitcher, flat_tool_button
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

    def __init__(
        self, state: MessageState | None, options: ViewOptions, parent: QWidget | None = None
    ):
        super().__init__(state, options, parent)
        self.setObjectName("userMessage")
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._bubble = _Bubble(self)
        self._bubble.setObjectName("userBubble")
        self._text = RichTextView(self._bubble, object_name="userText")
        self._time = self._muted_label("messageMeta")
        self._files = self._muted_label("messageAttachments")
        self._files.setWordWrap(True)
        self._copy = self._copy_button()
        self._copy.setVisible(False)
        self._edit = flat_tool_button(
            self, "editMessageButton", "✎", self.tr("Edit (the answer is kept as a version)")
        )
        self._edit.clicked.connect(lambda: self.edit_requested.emit(self.message_id))
        self._edit.setVisible(False)
        self._versions = self._version_switcher()
        self._hovered = False
        if state is not None:
            self.bind(state)

    def apply(self) -> None:
        self._text.set_plain(self._state.text)
        files = attachment_line(self._state.message.data)
        self._files.setText(files)
        self._files.setVisible(bool(files))
        label, full = local_time(self._state.message.created_at)
        self._time.setText(label)
        self._time.setToolTip(full)
        self._apply_versions(self._versions)
        self._apply_hover()
        self._layout_children(self.width())

    def apply_actions(self) -> None:
        self._apply_versions(self._versions)
        self._apply_hover()

    def _apply_hover(self) -> None:
        self._copy.setVisible(self._hovered)
        self._edit.setVisible(self._hovered and self._options.actions_enabled)

    # -- geometry -----------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        _, text_h = self._text_size(width)
        files_h = self._files_height(width)
        return (
            _MARGIN_TOP
            + text_h
            + 2 * _PAD_V
            + _GAP
            + files_h
            + self._footer_height()
            + _MARGIN_BOTTOM
        )

    def _files_width(self, width: int) -> int:
        """The line's own width on one line, at most the bubble's limit (a
        word-wrapped label's size hint is a guess that squeezed it)."""
        text = self._files.text()
        natural = self._files.fontMetrics().horizontalAdvance(text) + 4 if text else 0
        return max(40, min(natural, int(width * _MAX_FRACTION)))

    def _files_height(self, width: int) -> int:
        if not self._files.text():
            return 0
        return self._files.heightForWidth(self._files_width(width)) + _GAP

    def _footer_height(self) -> int:
        parts = (self._copy, self._time, self._edit, self._versions)
        return max(w.sizeHint().height() for w in parts)

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
        if self._files.text():
            files_w = self._files_width(width)
            files_h = self._files.heightForWidth(files_w)
            self._files.setGeometry(width - 4 - files_w, footer_y, files_w, files_h)
            footer_y += files_h + _GAP
        footer_h = self._footer_height()
        # right to left: time, Copy, Edit, "‹ k/n ›"; hidden buttons keep their place
        right = width - 4
        for widget, gap in ((self._time, 6), (self._copy, 2), (self._edit, 6), (self._versions, 0)):
            w = widget.sizeHint().width()
            widget.setGeometry(right - w, footer_y, w, footer_h)
            right -= w + gap

    # -- hover --------------------------------------------------------------------

    def enterEvent(self, event: QEnterEvent) -> None:
        super().enterEvent(event)
        self._hovered = True
        self._apply_hover()

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        self._hovered = False
        self._apply_hover()

    def set_hovered(self, hovered: bool) -> None:
        """Show the hover actions as if the pointer were over the message."""
        self._hovered = hovered
        self._apply_hover()

    @property
    def text_view(self) -> RichTextView:
        return self._text

    @property
    def edit_button(self) -> QToolButton:
        return self._edit

    @property
    def version_switcher(self) -> VersionSwitcher:
        return self._versions


def attachment_line(data: dict[str, Any] | None) -> str:
    """ "report.pdf (120 KB),  chart.png (48 KB)" from a user message's data.

    Plain text: the 📎 / 🖼 it began with are boxes on systems without an
    emoji font. Each file's name and size are joined by no-break spaces, so
    the line wraps between files, never inside one."""
    files = (data or {}).get("attachments") or []
    parts = []
    for item in files:
        if not isinstance(item, dict):
            continue
        size = _size(int(item.get("size") or 0)).replace(" ", "\u00a0")
        parts.append(f"{item.get('name', '?')}\u00a0({size})")
    return ",  ".join(parts)


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
