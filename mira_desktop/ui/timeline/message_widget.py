"""One message of the timeline.

Owns the widgets that show a single :class:`MessageState`: the full-width
assistant message (Thinking card, markdown answer, "Stopped" / error + hint with
a Retry button, meta line with the version switcher, model, local time and token
usage, the run's note, Regenerate and Copy; a knowledge-base answer's path and
Sources list, ``ui/kb/sources_widget.py``, with its ``[n]`` citations as links)
and the right-aligned user bubble. Widgets are disposable views: the timeline creates
them when a row scrolls into view, calls :meth:`MessageWidget.apply` whenever the
state changed and destroys them when the row leaves. Object names
(``assistantMessage``, ``userMessage``, ``userBubble``, ``messageMeta``,
``messageError``, ``retryButton``…) are there for the window's QSS.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QRectF, Qt, QUrl, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.models import MessageRole, MessageStatus

from ..kb.citations import CitationRenderer, cite_number
from ..kb.sources_widget import SourcesWidget
from .message_actions import RegenerateButton, VersionSwitcher
from .message_state import MessageState, ViewOptions
from .meta_format import meta_text, note_text, status_texts
from .rich_text import STEP_CHARS, RichTextView
from .thinking_card import ThinkingCard

log = logging.getLogger(__name__)

_OBJECT_NAMES = {
    MessageRole.ASSISTANT: "assistantMessage",
    MessageRole.TOOL: "toolMessage",
    MessageRole.SYSTEM_CARD: "systemCard",
}


def apply_tone(label: QLabel, tone: str) -> None:
    """Mark secondary ("muted") or error text; the timeline's style sheet colours
    ``QLabel[tone=…]`` from the palette. ``muted``/``status`` mirror the theme's
    own QSS conventions."""
    if label.property("tone") == tone:
        return
    label.setProperty("tone", tone)
    label.setProperty("muted", tone == "muted")
    label.setProperty("status", "error" if tone == "error" else "")
    style = label.style()
    style.unpolish(label)
    style.polish(label)


class MessageWidget(QFrame):
    """Common signals and behaviour of both kinds of message."""

    retry_requested = Signal(str)
    stop_thinking_requested = Signal(str)
    copy_requested = Signal(str)
    thinking_toggle_requested = Signal(str, bool)
    version_step_requested = Signal(str, int)  # message id, -1 | +1
    regenerate_requested = Signal(str, str)  # message id, preset
    edit_requested = Signal(str)
    edit_submitted = Signal(str, str)  # message id, new text
    edit_cancelled = Signal(str)
    height_changed = Signal(str)  # the widget wants to be measured again
    #: bring a part of the message into view: message id, top, bottom (widget y)
    reveal_requested = Signal(str, int, int)
    #: Hook for actions of an answer's "⋯" menu (export UI): the message id and the
    #: menu, emitted each time the menu is about to show (it is emptied first).
    menu_requested = Signal(str, object)

    def __init__(self, state: MessageState, options: ViewOptions, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = state
        self._options = options
        self._highlighted = False

    @property
    def message_id(self) -> str:
        return self._state.id

    @property
    def state(self) -> MessageState:
        return self._state

    def apply(self) -> None:
        """Bring the widget in line with its state and the view options."""
        raise NotImplementedError

    def measure(self, width: int) -> int:
        return self.heightForWidth(width)

    def refresh_colours(self) -> None:
        """Re-colour the text surfaces after a palette (theme) change."""
        for view in self.findChildren(RichTextView):
            view.refresh_colours()

    def set_highlighted(self, on: bool) -> None:
        if on != self._highlighted:
            self._highlighted = on
            self.update()

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self._state.text)
        self.copy_requested.emit(self.message_id)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._highlighted:
            colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
            colour.setAlpha(48)
            painter = QPainter(self)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(0, 1, 0, -1), 8, 8)
            painter.end()

    def _muted_label(self, object_name: str, *, small: bool = True) -> QLabel:
        label = QLabel(self)
        label.setObjectName(object_name)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if small:
            font = label.font()
            font.setPointSizeF(max(7.0, font.pointSizeF() * 0.88))
            label.setFont(font)
        apply_tone(label, "muted")
        return label

    def _version_switcher(self) -> VersionSwitcher:
        switcher = VersionSwitcher(self)
        switcher.step_requested.connect(
            lambda step: self.version_step_requested.emit(self.message_id, step)
        )
        return switcher

    def _apply_versions(self, switcher: VersionSwitcher) -> None:
        message = self._state.message
        switcher.set_versions(
            message.sibling_index,
            message.sibling_count,
            enabled=self._options.actions_enabled and not self._state.is_streaming,
        )

    def _copy_button(self) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName("copyMessageButton")
        button.setText(self.tr("Copy"))
        button.setToolTip(self.tr("Copy message"))
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(self.copy_to_clipboard)
        return button


class StatusBox(QWidget):
    """ "Stopped" or the error of a failed answer (with its hint) and Retry; also
    "Waiting for the model…" before the first token."""

    retry_clicked = Signal()

    def __init__(self, parent: MessageWidget):
        super().__init__(parent)
        self.setObjectName("messageStatusBox")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        texts = QVBoxLayout()
        texts.setSpacing(2)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hint = QLabel(self)
        self.hint.setObjectName("messageHint")
        self.hint.setWordWrap(True)
        apply_tone(self.hint, "muted")
        texts.addWidget(self.status)
        texts.addWidget(self.hint)
        self.retry = QPushButton(self.tr("Retry"), self)
        self.retry.setObjectName("retryButton")
        self.retry.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.retry.clicked.connect(self.retry_clicked)
        row.addLayout(texts, 1)
        row.addWidget(self.retry, 0, Qt.AlignmentFlag.AlignTop)

    def show_status(self, text: str, hint: str, *, failed: bool, retry: bool) -> None:
        name = "messageError" if failed else "messageStatus"
        if self.status.objectName() != name:
            self.status.setObjectName(name)
            apply_tone(self.status, "error" if failed else "muted")
        self.status.setText(text)
        self.hint.setText(hint)
        self.hint.setVisible(bool(hint))
        self.retry.setVisible(retry)


class AssistantMessageWidget(MessageWidget):
    """Full-width answer with its Thinking card, status, meta line and actions."""

    def __init__(self, state: MessageState, options: ViewOptions, parent: QWidget | None = None):
        super().__init__(state, options, parent)
        self.setObjectName(_OBJECT_NAMES.get(state.message.role, "assistantMessage"))
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 8, 0, 10)
        self._box.setSpacing(6)
        # The card and the status box are created only when there is something
        # to show: most rows of a long thread need neither.
        self._card: ThinkingCard | None = None
        self._status: StatusBox | None = None
        self._sources: SourcesWidget | None = None
        self._cited = CitationRenderer()
        self._body = RichTextView(self)
        self._body.anchorClicked.connect(self._on_body_anchor)
        self._body.render_pending.connect(lambda: self.height_changed.emit(self.message_id))
        self._box.addWidget(self._body)
        self._box.addLayout(self._build_meta())
        self.apply()

    def _build_card(self) -> ThinkingCard:
        card = ThinkingCard(self._options.clock, self)
        card.toggle_requested.connect(self._on_card_toggle)
        card.stop_requested.connect(self._on_stop_thinking)
        self._box.insertWidget(0, card)
        return card

    def _build_status(self) -> StatusBox:
        box = StatusBox(self)
        box.retry_clicked.connect(self._on_retry)
        self._box.insertWidget(self._box.indexOf(self._body) + 1, box)
        return box

    def _build_meta(self) -> QVBoxLayout:
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self._versions = self._version_switcher()
        self._meta = self._muted_label("messageMeta")
        self._regenerate = RegenerateButton(self)
        self._regenerate.preset_chosen.connect(
            lambda preset: self.regenerate_requested.emit(self.message_id, preset)
        )
        self._copy = self._copy_button()
        self._more = self._more_button()
        row.addWidget(self._versions)
        row.addWidget(self._meta, 1)
        row.addWidget(self._regenerate)
        row.addWidget(self._copy)
        row.addWidget(self._more)
        self._note = self._muted_label("messageNote")
        self._note.setWordWrap(True)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self._note)
        return column

    def _more_button(self) -> QToolButton:
        """The "⋯" button: a menu the window fills through ``menu_requested``."""
        button = QToolButton(self)
        button.setObjectName("messageMoreButton")
        button.setText("⋯")
        button.setToolTip(self.tr("More actions"))
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        menu.setObjectName("messageMoreMenu")
        menu.aboutToShow.connect(lambda: self._fill_more_menu(menu))
        button.setMenu(menu)
        return button

    def _fill_more_menu(self, menu: QMenu) -> None:
        menu.clear()
        self.menu_requested.emit(self.message_id, menu)

    # -- state --------------------------------------------------------------------

    def apply(self) -> None:
        state, options = self._state, self._options
        if state.thinking and self._card is None:
            self._card = self._build_card()
        if self._card is not None:
            self._card.apply(state, options.thinking_mode)
        self._apply_body()
        self._apply_status()
        self._apply_sources()
        meta, tooltip = meta_text(state.message)
        self._meta.setText(meta)
        self._meta.setToolTip(tooltip)
        self._copy.setVisible(bool(state.text))
        is_answer = state.message.role == MessageRole.ASSISTANT
        self._more.setVisible(bool(state.text) and is_answer and not state.is_streaming)
        self._apply_versions(self._versions)
        note = note_text(state.message)
        self._note.setText(note)
        self._note.setVisible(bool(note))
        can_regenerate = state.message.role == MessageRole.ASSISTANT and not state.is_streaming
        self._regenerate.setVisible(options.actions_enabled and can_regenerate)

    def _apply_body(self) -> None:
        state, dark = self._state, self._options.dark
        self._body.setVisible(bool(state.text))
        if not state.text:
            return
        cited = self._cited.rendering(state, dark)  # a finished answer with sources
        if cited is not None:
            if not self._body.is_static_showing(cited):
                self._body.set_rendered(cited)
        elif state.is_streaming or self._body.is_live_showing(state.text, dark=dark):
            streaming = state.is_streaming  # a finished long last block renders at once
            budget = None if not streaming and self._body.markdown_blocked() else STEP_CHARS
            self._body.set_markdown_live(state.text, dark=dark, budget=budget, paced=streaming)
        elif not self._body.is_static_showing(state.rendered(dark)):
            self._body.set_rendered(state.rendered(dark))

    def _apply_status(self) -> None:
        state = self._state
        status, hint = status_texts(state.message)
        if state.is_streaming and not state.text and not state.thinking:
            status = self.tr("Waiting for the model…")
        if status and self._status is None:
            self._status = self._build_status()
        if self._status is None:
            return
        ended = state.message.status in (MessageStatus.STOPPED, MessageStatus.FAILED)
        failed = state.message.status == MessageStatus.FAILED
        self._status.show_status(status, hint, failed=failed, retry=ended)
        self._status.setVisible(bool(status))

    def _apply_sources(self) -> None:
        """The knowledge-base path and Sources of a finished answer."""
        state = self._state
        shown = bool((state.message.data or {}).get("kb_path")) and not state.is_streaming
        if shown and self._sources is None:
            self._sources = SourcesWidget(self)
            self._sources.layout_changed.connect(lambda: self.height_changed.emit(self.message_id))
            self._sources.reveal_requested.connect(
                lambda top, bottom: self.reveal_requested.emit(self.message_id, top, bottom)
            )
            self._box.insertWidget(self._box.count() - 1, self._sources)  # above the meta line
        if self._sources is not None:
            if shown:
                self._sources.show_answer(state)
            self._sources.setVisible(shown)

    # -- actions ------------------------------------------------------------------

    def _on_body_anchor(self, url: QUrl) -> None:
        number = cite_number(url)
        if number is not None and self._sources is not None:
            self._sources.focus_source(number)

    def _on_card_toggle(self, open_: bool) -> None:
        self.thinking_toggle_requested.emit(self.message_id, open_)

    def _on_stop_thinking(self) -> None:
        self._state.stop_thinking_sent = True
        self.stop_thinking_requested.emit(self.message_id)

    def _on_retry(self) -> None:
        self.retry_requested.emit(self.message_id)

    # -- for tests and the timeline -----------------------------------------------

    @property
    def thinking_card(self) -> ThinkingCard | None:
        return self._card

    @property
    def status_box(self) -> StatusBox | None:
        return self._status

    @property
    def body(self) -> RichTextView:
        return self._body

    @property
    def version_switcher(self) -> VersionSwitcher:
        return self._versions

    @property
    def regenerate_button(self) -> RegenerateButton:
        return self._regenerate

    @property
    def note_label(self) -> QLabel:
        return self._note

    @property
    def sources(self) -> SourcesWidget | None:
        return self._sources
