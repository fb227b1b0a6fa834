"""One message of the timeline: :class:`MessageWidget`, the base of the
full-width answer (``assistant_message.py``) and of the right-aligned user
bubble (``user_bubble.py``) — their common signals, measuring, highlight and
the small buttons both have.

Widgets are disposable views: the timeline creates them when a row scrolls
into view (or binds a skeleton it built while idle, :meth:`MessageWidget.bind`;
see ``row_pool.py``), calls :meth:`MessageWidget.apply` whenever the state
changed (and :meth:`MessageWidget.apply_actions` when only the actions'
availability did) and destroys them when the row leaves. Object names
(``assistantMessage``, ``userMessage``, ``userBubble``, ``messageMeta``,
``messageError``, ``retryButton``…) are there for the window's QSS.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QFrame, QLabel, QToolButton, QWidget

from .answer_meta import muted_label
from .message_actions import VersionSwitcher
from .message_state import MessageState, ViewOptions
from .rich_text import RichTextView

__all__ = ["MessageWidget"]


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
    #: media made after an answer: message id, its key ("speech", "image"),
    #: "open" | "save" | "retry"
    media_requested = Signal(str, str, str)
    #: the agent's tool cards: message id, call id, "approve" | "deny" | "rollback"
    tool_requested = Signal(str, str, str)
    #: the agent's questions answered: message id, call id, answers (None: dismissed)
    answer_requested = Signal(str, str, object)
    #: a proposed plan's buttons: message id, "implement" | "keep"
    plan_requested = Signal(str, str)

    def __init__(
        self, state: MessageState | None, options: ViewOptions, parent: QWidget | None = None
    ):
        """``state`` is None only for a spare built ahead of its row (see
        ``row_pool``): :meth:`bind` gives it one before anything reads it."""
        super().__init__(parent)
        self._state = cast(MessageState, state)
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

    def bind(self, state: MessageState) -> None:
        """Show ``state`` in a widget built without one (a spare)."""
        self._state = state
        self.apply()

    def apply_actions(self) -> None:
        """Bring only the actions in line with the view options (Edit,
        Regenerate and the version switcher became (un)available)."""
        self.apply()

    def measure(self, width: int) -> int:
        layout = self.layout()
        height = self._height_for(width)
        if layout is not None and self.width() != width:
            # Laid out once at that width: before, a word-wrapped label beside
            # a button (a failed answer's error and Retry) was measured a
            # line short, and its last line was cut off.
            self.resize(width, max(height, 1))
            layout.activate()
            height = self._height_for(width)
        return height

    def _height_for(self, width: int) -> int:
        height = self.heightForWidth(width)
        if height < 0:  # nothing shown wraps (a collapsed thinking card alone)
            layout = self.layout()
            height = layout.totalSizeHint().height() if layout is not None else 0
        return height

    def refresh_colours(self) -> None:
        """Re-colour the text surfaces after a palette (theme) change."""
        for view in self.findChildren(RichTextView):
            view.refresh_colours()

    def text_views(self) -> list[RichTextView]:
        """The views showing the message's own text (what Find looks in)."""
        return []

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
        return muted_label(self, object_name, small=small)

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
