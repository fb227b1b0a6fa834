"""The small controls of the conversation tree on a message (PRODUCT.md §5).

Owns :class:`VersionSwitcher` ("‹ 2/3 ›" on a message with sibling versions),
:class:`RegenerateButton` (a button with the menu Retry, More concise, More
detailed, More creative, Custom guidance…), the answer's "⋯" :class:`MoreButton`
(Regenerate builds its menu lazily, :class:`LazyMenuButton`) and :func:`flat_tool_button` (the
pencil of a user message). They only emit intents; the window decides what a
switch or a regeneration does. Object names (``versionSwitcher``,
``versionPrevButton``, ``versionLabel``, ``versionNextButton``,
``regenerateButton``, ``editMessageButton``) are there for tests and the QSS.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QToolButton, QWidget

log = logging.getLogger(__name__)

#: the presets of ``services/regenerate.py`` in menu order ("custom" asks first)
#: "think": the same model again, reasoning hard (whatever its setting says)
REGENERATE_PRESETS = ("retry", "concise", "detailed", "creative", "think", "custom")


def flat_tool_button(parent: QWidget, object_name: str, text: str, tip: str) -> QToolButton:
    """A borderless small button like the message's Copy."""
    button = QToolButton(parent)
    button.setObjectName(object_name)
    button.setText(text)
    button.setToolTip(tip)
    button.setAccessibleName(tip)
    button.setAutoRaise(True)
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    return button


class VersionSwitcher(QWidget):
    """ "‹ k/n ›": ``step_requested(-1 | +1)``. Hidden for a message without versions."""

    step_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("versionSwitcher")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.prev_button = flat_tool_button(
            self, "versionPrevButton", "‹", self.tr("Previous version")
        )
        self.label = QLabel(self)
        self.label.setObjectName("versionLabel")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = self.label.font()
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.88))
        self.label.setFont(font)
        self.label.setProperty("tone", "muted")
        self.label.setProperty("muted", True)
        self.next_button = flat_tool_button(self, "versionNextButton", "›", self.tr("Next version"))
        for widget in (self.prev_button, self.label, self.next_button):
            row.addWidget(widget)
        self.prev_button.clicked.connect(lambda: self.step_requested.emit(-1))
        self.next_button.clicked.connect(lambda: self.step_requested.emit(1))
        self.setVisible(False)

    def set_versions(self, index: int, count: int, *, enabled: bool) -> None:
        """Show version ``index + 1`` of ``count``; the arrows work when ``enabled``."""
        self.setVisible(count > 1)
        self.label.setText(f"{index + 1}/{count}")
        self.label.setToolTip(self.tr("Version {0} of {1}").format(index + 1, count))
        self.prev_button.setEnabled(enabled and index > 0)
        self.next_button.setEnabled(enabled and index < count - 1)

    def text(self) -> str:
        """ "2/3" (what the label shows), "" when hidden."""
        return self.label.text() if not self.isHidden() else ""


class LazyMenuButton(QToolButton):
    """An instant-popup button whose menu is built the first time it can be
    needed (pointer over it, focus, a press or a key), not with the button:
    most buttons of a long thread never open their menu. ``build_menu(button)``
    makes it: a plain function, not a bound method, so a button that is gone
    is freed at once, not left in a reference cycle for the collector."""

    def __init__(self, build_menu: Callable[[Any], QMenu], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._build_menu = build_menu
        self.setAutoRaise(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)

    def menu(self) -> QMenu:  # type: ignore[override]
        """The button's menu, built now if it was not yet."""
        menu = super().menu()
        if menu is None:
            menu = self._build_menu(self)
            self.setMenu(menu)
        return menu

    def event(self, event: QEvent) -> bool:
        if event.type() in _MENU_EVENTS:
            self.menu()
        return super().event(event)


_MENU_EVENTS = frozenset(
    (
        QEvent.Type.Enter,
        QEvent.Type.FocusIn,
        QEvent.Type.MouseButtonPress,
        QEvent.Type.KeyPress,
        QEvent.Type.ShortcutOverride,
    )
)


class RegenerateButton(LazyMenuButton):
    """ "Regenerate ▾" with the presets: ``preset_chosen(preset)``."""

    preset_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(RegenerateButton._presets_menu, parent)
        self.setObjectName("regenerateButton")
        self.setText(self.tr("Regenerate") + " ▾")
        self.setToolTip(self.tr("Answer again as a new version"))

    def _presets_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.setObjectName("regenerateMenu")
        labels = {
            "retry": self.tr("Retry"),
            "concise": self.tr("More concise"),
            "detailed": self.tr("More detailed"),
            "creative": self.tr("More creative"),
            "think": self.tr("Think harder"),
            "custom": self.tr("Custom guidance…"),
        }
        for preset in REGENERATE_PRESETS:
            if preset == "custom":
                menu.addSeparator()
            action = QAction(labels[preset], menu)
            action.setData(preset)
            action.triggered.connect(lambda _=False, p=preset: self.preset_chosen.emit(p))
            menu.addAction(action)
        return menu

    def action_for(self, preset: str) -> QAction:
        """The menu entry of a preset (tests trigger it like a click)."""
        return next(a for a in self.menu().actions() if a.data() == preset)


class MoreButton(LazyMenuButton):
    """The "⋯" of an answer: ``menu_about_to_show(menu)`` each time its menu
    opens, so the window can fill it."""

    menu_about_to_show = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(MoreButton._actions_menu, parent)
        self.setObjectName("messageMoreButton")
        self.setText("⋯")
        tip = QCoreApplication.translate("AssistantMessageWidget", "More actions")
        self.setToolTip(tip)
        self.setAccessibleName(tip)
        self.menu()  # an empty menu is cheap, and the window's code looks for it

    def _actions_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.setObjectName("messageMoreMenu")
        menu.aboutToShow.connect(lambda: self.menu_about_to_show.emit(menu))
        return menu
