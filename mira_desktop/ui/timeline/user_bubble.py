"""The user's own message: a right-aligned bubble.

Owns :class:`UserMessageWidget`, which shows what the person typed as plain text
(newlines kept, nothing interpreted) in a bubble as wide as its longest line and
at most ~78 % of the timeline, with the local time, Copy and the Edit pencil
(both shown on hover and while the keyboard is in the message — Tab from its
text reaches them; Edit only while the window allows it) and the version
switcher "‹ k/n ›" (when the message has versions) under it. The text's
context menu (right click, the Menu key) has "Copy message" and "Edit" too.
Geometry is computed by hand so the bubble hugs its text.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QEnterEvent,
    QFocusEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import QApplication, QFrame, QMenu, QSizePolicy, QToolButton, QWidget

from .message_actions import VersionSwitcher, flat_tool_button
from .message_state import MessageState, ViewOptions
from .message_widget import MessageWidget
from .meta_format import local_time
from .rich_text import RichTextView
from .thumbnails import PictureLabel

log = logging.getLogger(__name__)

_MAX_FRACTION = 0.78
_PAD_H = 12
_PAD_V = 8
_MARGIN_TOP = 10
_GAP = 2
_MARGIN_BOTTOM = 4
#: how the keyboard reaches a message (its Copy and Edit show then)
_KEYBOARD_REASONS = (
    Qt.FocusReason.TabFocusReason,
    Qt.FocusReason.BacktabFocusReason,
    Qt.FocusReason.ShortcutFocusReason,
)
#: attached pictures under the bubble: squares of this side, at most this many
THUMB_SIDE = 72
_MAX_THUMBS = 6


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
        #: the attached pictures' squares (made when a message has some)
        self._thumbs: list[tuple[str, PictureLabel]] = []
        self._watching = False
        self._copy = self._copy_button()
        self._copy.setVisible(False)
        self._edit = flat_tool_button(
            self, "editMessageButton", "✎", self.tr("Edit (the answer is kept as a version)")
        )
        self._edit.clicked.connect(lambda: self.edit_requested.emit(self.message_id))
        self._edit.setVisible(False)
        self._versions = self._version_switcher()
        self._hovered = False
        self._focused = False  # the keyboard is in the message (its text or buttons)
        for part in (self._text, self._copy, self._edit):
            part.installEventFilter(self)
        self._text.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self._text.customContextMenuRequested.connect(self._show_menu)
        #: the text's context menu while it is open (for tests)
        self.context_menu: QMenu | None = None
        if state is not None:
            self.bind(state)

    def apply(self) -> None:
        label = self.tr("Your message")  # who wrote it, for a screen reader
        self.setAccessibleName(label)
        self._text.setAccessibleName(label)
        self._text.set_plain(self._state.text)
        self._bubble.setVisible(self._has_text())  # pictures alone: no empty bubble
        files = attachment_line(self._state.message.data)
        self._files.setText(files)
        self._files.setToolTip(transcripts_tip(self._state.message.data))
        self._files.setVisible(bool(files))
        self._apply_thumbs()
        label, full = local_time(self._state.message.created_at)
        self._time.setText(label)
        self._time.setToolTip(full)
        self._apply_versions(self._versions)
        self._apply_hover()
        self._layout_children(self.width())

    def apply_actions(self) -> None:
        self._apply_versions(self._versions)
        self._apply_hover()

    def _apply_thumbs(self) -> None:
        """Squares of the attached pictures (a row widget reused for another
        message keeps its labels, re-pointed)."""
        thumbnails = self._options.thumbnails
        wanted = picture_hashes(self._state.message.data) if thumbnails else []
        while len(self._thumbs) > len(wanted):
            self._thumbs.pop()[1].deleteLater()
        while len(self._thumbs) < len(wanted):
            label = PictureLabel(self)
            label.setObjectName("attachmentThumb")
            label.setFixedSize(THUMB_SIDE, THUMB_SIDE)
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setCursor(Qt.CursorShape.PointingHandCursor)
            index = len(self._thumbs)
            label.clicked.connect(lambda i=index: self._open_thumb(i))
            self._thumbs.append(("", label))
        if thumbnails is None or not wanted:
            return
        if not self._watching:
            thumbnails.loaded.connect(self._on_thumb_loaded)
            self._watching = True
        for index, (sha256, name) in enumerate(wanted):
            label = self._thumbs[index][1]
            self._thumbs[index] = (sha256, label)
            label.setToolTip(name)
            self._show_thumb(sha256, label)
            label.show()

    def _show_thumb(self, sha256: str, label: PictureLabel) -> None:
        thumbnails = self._options.thumbnails
        if thumbnails is None:
            return
        pixmap = thumbnails.pixmap(sha256, square=THUMB_SIDE)
        if pixmap is not None:
            label.setPixmap(pixmap)
        else:
            label.clear()
            if not thumbnails.failed(sha256, square=THUMB_SIDE):
                thumbnails.request(sha256, THUMB_SIDE, THUMB_SIDE, square=THUMB_SIDE)

    def _open_thumb(self, index: int) -> None:
        """A click on an attached picture: open it (``media_requested`` with the
        key "attachment" and "open:" + its hash)."""
        if index < len(self._thumbs) and self._thumbs[index][0]:
            self.media_requested.emit(
                self.message_id, "attachment", "open:" + self._thumbs[index][0]
            )

    def _on_thumb_loaded(self, sha256: str) -> None:
        for shown, label in self._thumbs:
            if shown == sha256:
                self._show_thumb(shown, label)

    def thumbnail_labels(self) -> list[PictureLabel]:
        return [label for _, label in self._thumbs]

    def _apply_hover(self) -> None:
        shown = self._hovered or self._focused
        self._copy.setVisible(shown)
        self._edit.setVisible(shown and self._options.actions_enabled)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.FocusIn and isinstance(event, QFocusEvent):
            # the keyboard came in (not a window's first focus landing here)
            if event.reason() in _KEYBOARD_REASONS and not self._focused:
                self._focused = True
                self._apply_hover()
        elif kind == QEvent.Type.FocusOut and self._focused:
            # the new focus is known when the old widget hears it left
            focused = QApplication.focusWidget()
            if focused is None or not self.isAncestorOf(focused):
                self._focused = False
                self._apply_hover()
        return False

    def _show_menu(self, pos: QPoint) -> None:
        """The text's own menu (Copy, Select All) with the message's actions."""
        menu = self._text.createStandardContextMenu(pos)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.addSeparator()
        copy = menu.addAction(self.tr("Copy message"))
        copy.setObjectName("message:copy")
        copy.triggered.connect(self.copy_to_clipboard)
        edit = menu.addAction(self.tr("Edit (the answer is kept as a version)"))
        edit.setObjectName("message:edit")
        edit.setEnabled(self._options.actions_enabled)
        edit.triggered.connect(lambda: self.edit_requested.emit(self.message_id))
        self.context_menu = menu
        menu.popup(self._text.viewport().mapToGlobal(pos))  # never exec(): qasync

    # -- geometry -----------------------------------------------------------------

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        files_h = self._files_height(width)
        return (
            _MARGIN_TOP
            + self._bubble_height(width)
            + self._thumbs_height()
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

    def _has_text(self) -> bool:
        return self._state is not None and bool(self._state.text.strip())

    def _bubble_height(self, width: int) -> int:
        """The bubble and the gap under it (none for a message of pictures alone)."""
        if not self._has_text():
            return 0
        return self._text_size(width)[1] + 2 * _PAD_V + _GAP

    def _thumbs_height(self) -> int:
        return THUMB_SIDE + _GAP + 4 if self._thumbs else 0

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
        footer_y = _MARGIN_TOP + self._bubble_height(width)
        if self._thumbs:  # right-aligned like the bubble, in the order attached
            x = width - 4 - len(self._thumbs) * (THUMB_SIDE + 4) + 4
            for _, label in self._thumbs:
                label.setGeometry(x, footer_y + 4, THUMB_SIDE, THUMB_SIDE)
                x += THUMB_SIDE + 4
            footer_y += self._thumbs_height()
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

    def text_views(self) -> list[RichTextView]:
        return [self._text]

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


def transcripts_tip(data: dict[str, Any] | None) -> str:
    """The tooltip of the files' line: what the model read of each audio file
    (its transcript's start), as rich text that Qt wraps; "" without one."""
    blocks = []
    for item in (data or {}).get("attachments") or []:
        if isinstance(item, dict) and isinstance(item.get("transcript"), str):
            import html  # with the first audio file shown

            name, said = html.escape(str(item.get("name") or "")), html.escape(item["transcript"])
            heading = QCoreApplication.translate("UserMessageWidget", "{0}, as written down:")
            blocks.append(f"<p><b>{heading.format(name)}</b><br>“{said}”</p>")
    return "".join(blocks)


def picture_hashes(data: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(sha256, name) of the pictures a user message holds, in order."""
    found = []
    for item in (data or {}).get("attachments") or []:
        if isinstance(item, dict) and item.get("kind") == "image" and item.get("sha256"):
            found.append((str(item["sha256"]), str(item.get("name") or "")))
    return found[:_MAX_THUMBS]


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"
