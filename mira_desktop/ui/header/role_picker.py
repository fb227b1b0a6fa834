"""``RolePickerButton``: the header's role picker (PRODUCT.md §1, §3) — a
menu button showing the conversation's role ("No role" or the role's name)
whose menu lists "No role", every role, and "Manage roles…".

It emits ``role_chosen(role_id)`` (``""`` for no role) only when the *user*
picks an entry; :meth:`set_roles` and :meth:`set_current` are silent. A role
that is no longer in the list (deleted elsewhere) shows as "No role"."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from mira_desktop.core.models import Role

from ..widgets.eliding_button import ElidingToolButton

log = logging.getLogger(__name__)

MAX_LABEL_CHARS = 24


class RolePickerButton(ElidingToolButton):
    role_chosen = Signal(str)
    manage_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RolePicker")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._roles: list[Role] = []
        self._current: str | None = None
        self.menu_ = QMenu(self)
        self.menu_.setObjectName("RoleMenu")
        self.setMenu(self.menu_)
        self._group = QActionGroup(self)
        self._group.setExclusive(True)
        self._rebuild()

    def set_roles(self, roles: list[Role]) -> None:
        self._roles = list(roles)
        self._rebuild()

    def roles(self) -> list[Role]:
        return list(self._roles)

    def set_current(self, role_id: str | None) -> None:
        self._current = role_id or None
        self._rebuild()

    def current_role_id(self) -> str | None:
        """The role shown (``None`` when it is no role or no longer exists)."""
        return self._current if any(r.id == self._current for r in self._roles) else None

    def choose(self, role_id: str | None) -> None:
        """Pick as the user would (menus are awkward to click in tests)."""
        self._current = role_id or None
        self._rebuild()
        self.role_chosen.emit(role_id or "")

    def _rebuild(self) -> None:
        menu = self.menu_
        menu.clear()
        for action in self._group.actions():
            self._group.removeAction(action)
        current = self.current_role_id()
        self._add(self.tr("No role"), "", current is None)
        if self._roles:
            menu.addSeparator()
        for role in self._roles:
            action = self._add(role.name, role.id, role.id == current)
            action.setToolTip(role.description or role.name)
        menu.addSeparator()
        manage = menu.addAction(self.tr("Manage roles…"))
        manage.triggered.connect(self.manage_requested)
        self._update_text(current)

    def _add(self, text: str, role_id: str, checked: bool) -> QAction:
        action = self.menu_.addAction(text)
        action.setCheckable(True)
        action.setChecked(checked)
        action.setData(role_id)
        self._group.addAction(action)
        action.triggered.connect(lambda _=False, rid=role_id: self.choose(rid))
        return action

    def _update_text(self, current: str | None) -> None:
        role = next((r for r in self._roles if r.id == current), None)
        if role is None:
            self.setText(self.tr("No role"))
            self.setToolTip(self.tr("Role: none. Choose one to give the assistant a persona."))
            return
        name = role.name
        short = name if len(name) <= MAX_LABEL_CHARS else name[: MAX_LABEL_CHARS - 1] + "…"
        self.setText(self.tr("Role: {0}").format(short))
        self.setToolTip(self.tr("Role: {0}").format(name))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._rebuild()
