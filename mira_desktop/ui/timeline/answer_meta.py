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
from collections.abc import Callable

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


class AnswerMeta(QVBoxLayout):
    """The meta line and note of an answer (see the module docstring). The
    buttons exist once :meth:`show_actions` first wanted them visible (or a
    caller asked for one); ``owner`` is the message widget they belong to."""

    def __init__(
        self,
        owner: QWidget,
        *,
        on_step: Callable[[int], None],
        on_regenerate: Callable[[str], None],
        on_copy: Callable[[], None],
        on_menu: Callable[[object], None],
    ) -> None:
        super().__init__()
        self._owner = owner
        self._on_step, self._on_regenerate = on_step, on_regenerate
        self._on_copy, self._on_menu = on_copy, on_menu
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(2)
        self._row = QHBoxLayout()
        self._row.setContentsMargins(0, 0, 0, 0)
        self._row.setSpacing(6)
        self.meta = muted_label(owner, "messageMeta")
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
            switcher = VersionSwitcher(self._owner)
            switcher.step_requested.connect(self._on_step)
            self._row.insertWidget(0, switcher)
            self._versions = switcher
        return self._versions

    def regenerate(self) -> RegenerateButton:
        if self._regenerate is None:
            button = RegenerateButton(self._owner)
            button.setVisible(False)
            button.preset_chosen.connect(self._on_regenerate)
            self._row.insertWidget(self._row.indexOf(self.meta) + 1, button)
            self._regenerate = button
        return self._regenerate

    def copy(self) -> QToolButton:
        if self._copy is None:
            button = QToolButton(self._owner)
            button.setObjectName("copyMessageButton")
            button.setText(_tr("MessageWidget", "Copy"))
            button.setToolTip(_tr("MessageWidget", "Copy message"))
            button.setAccessibleName(_tr("MessageWidget", "Copy message"))
            button.setAutoRaise(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setVisible(False)
            button.clicked.connect(self._on_copy)
            after = self._regenerate if self._regenerate is not None else self.meta
            self._row.insertWidget(self._row.indexOf(after) + 1, button)
            self._copy = button
        return self._copy

    def more(self) -> MoreButton:
        if self._more is None:
            button = MoreButton(self._owner)
            button.setVisible(False)
            button.menu_about_to_show.connect(self._on_menu)
            self._row.addWidget(button)
            self._more = button
        return self._more

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
