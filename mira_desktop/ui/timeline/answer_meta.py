"""The parts of an answer below its text, built only when there is something
to show.

Owns :class:`StatusBox` ("Stopped" or the error of a failed answer with its hint
and Retry; "Waiting for the model…") and :class:`AnswerMeta`, the meta line of
an answer: the version switcher "‹ k/n ›", the model/time/usage label,
Regenerate, Copy and "⋯", and the run's note under it. Creating a message widget
is on the event loop's critical path (a send, a scroll), so the buttons are
made the first time they are shown — a streaming answer needs none of them —
and their menus the first time they can open (``message_actions.py``).
:func:`apply_tone` marks muted/error labels for the timeline's style sheet.
"""

from __future__ import annotations

import logging
import weakref

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .message_actions import MoreButton, RegenerateButton, VersionSwitcher

log = logging.getLogger(__name__)

_tr = QCoreApplication.translate  # the contexts the strings had before this module


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


def muted_label(parent: QWidget, object_name: str, *, small: bool = True) -> QLabel:
    """A selectable secondary-text label (the meta line, the note, the time)."""
    label = QLabel(parent)
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.PlainText)  # model names, file names: as written
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if small:
        font = label.font()
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.88))
        label.setFont(font)
    apply_tone(label, "muted")
    return label


class StatusBox(QWidget):
    """ "Stopped" or the error of a failed answer (with its hint) and Retry; also
    "Waiting for the model…" before the first token."""

    retry_clicked = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setObjectName("messageStatusBox")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        texts = QVBoxLayout()
        texts.setSpacing(2)
        # A provider's error can be a whole HTML page: shown as the words it is.
        self.status = QLabel(self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hint = QLabel(self)
        self.hint.setTextFormat(Qt.TextFormat.PlainText)
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

    def set_retry_enabled(self, enabled: bool) -> None:
        """Retry works only while the thread is saved, writable and idle (the
        window's actions state); a disabled one says why on hover."""
        self.retry.setEnabled(enabled)
        self.retry.setToolTip(
            self.tr("Answer again with the chat's current model")
            if enabled
            else self.tr("Retry works once this chat has stopped answering (not in the trash)")
        )


class AnswerMeta(QVBoxLayout):
    """The meta line and note of an answer (see the module docstring). The
    buttons exist once :meth:`show_actions` first wanted them visible (or a
    caller asked for one); ``owner`` is the message widget they belong to.
    What the buttons ask for comes out as signals, and the owner is held
    weakly: the layout keeps no reference back to its widget, so a row that
    is gone is freed at once instead of waiting, in a reference cycle, for
    the collector."""

    step_requested = Signal(int)  # the version switcher: -1 or +1
    regenerate_requested = Signal(str)  # a preset
    copy_requested = Signal()
    menu_requested = Signal(object)  # the "⋯" menu, about to open

    def __init__(self, owner: QWidget) -> None:
        super().__init__()
        self._owner = weakref.ref(owner)
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(2)
        self._row = QHBoxLayout()
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(6)
        self.meta = muted_label(owner, "messageMeta")
        self.meta.setWordWrap(True)  # a narrow window: two lines, not cut under the buttons
        self._row.addWidget(self.meta, 1)
        self.addLayout(self._row)
        self.note = muted_label(owner, "messageNote")
        self.note.setWordWrap(True)
        self.addWidget(self.note)
        self._versions: VersionSwitcher | None = None
        self._regenerate: RegenerateButton | None = None
        self._copy: QToolButton | None = None
        self._more: MoreButton | None = None

    # -- the buttons, made on first use -------------------------------------------

    def versions(self) -> VersionSwitcher:
        if self._versions is None:
            switcher = VersionSwitcher(self._owner())
            switcher.step_requested.connect(self.step_requested)
            self._row.insertWidget(0, switcher)
            self._versions = switcher
        return self._versions

    def regenerate(self) -> RegenerateButton:
        if self._regenerate is None:
            button = RegenerateButton(self._owner())
            button.setVisible(False)
            button.preset_chosen.connect(self.regenerate_requested)
            self._row.insertWidget(self._row.indexOf(self.meta) + 1, button)
            self._regenerate = button
        return self._regenerate

    def copy(self) -> QToolButton:
        if self._copy is None:
            button = QToolButton(self._owner())
            button.setObjectName("copyMessageButton")
            button.setText(_tr("MessageWidget", "Copy"))
            button.setToolTip(_tr("MessageWidget", "Copy message"))
            button.setAccessibleName(_tr("MessageWidget", "Copy message"))
            button.setAutoRaise(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setVisible(False)
            button.clicked.connect(self.copy_requested)
            after = self._regenerate if self._regenerate is not None else self.meta
            self._row.insertWidget(self._row.indexOf(after) + 1, button)
            self._copy = button
        return self._copy

    def more(self) -> MoreButton:
        if self._more is None:
            button = MoreButton(self._owner())
            button.setVisible(False)
            button.menu_about_to_show.connect(self.menu_requested)
            self._row.addWidget(button)
            self._more = button
        return self._more

    def made_buttons(self) -> list[QWidget]:
        """The buttons made so far, left to right (what Tab stops at)."""
        made: list[QWidget | None] = [self._versions, self._regenerate, self._copy, self._more]
        return [button for button in made if button is not None]

    def prepare(self) -> None:
        """Make the (hidden) buttons of an answer now, ahead of showing them."""
        self.regenerate()
        self.copy()
        self.more()

    def show_actions(
        self,
        *,
        versions: tuple[int, int, bool],
        regenerate: bool,
        copy: bool,
        more: bool,
    ) -> None:
        """Show or hide each action, making a button only when it is shown."""
        index, count, enabled = versions
        if count > 1 or self._versions is not None:
            self.versions().set_versions(index, count, enabled=enabled)
        for make, current, shown in (
            (self.regenerate, self._regenerate, regenerate),
            (self.copy, self._copy, copy),
            (self.more, self._more, more),
        ):
            if shown or current is not None:
                make().setVisible(shown)
