"""``RoleDialog``: the role library (PRODUCT.md §1) — the list of roles and,
beside it, the selected role's fields (``role_form.RoleForm``). New, Duplicate
and Delete act on the list; Save writes the form (a new role or the selected
one). Deleting asks first and says what happens: threads that use the role
keep their history and simply have no role any more. Every change goes
through ``RoleService`` (its validation messages show under the form), which
announces it to its listeners, so the header's role picker follows even a
change that ends after the dialog was closed. Leaving
a form with unsaved edits — another role chosen, New, Duplicate, the dialog
closed — asks first whether to save them (``unsaved.ask_to_save``)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.errors import MiraError
from mira_desktop.core.models import Role

from ..error_texts import error_line
from ..window.confirm import ask_then
from .async_guard import guarded, show_or_log
from .role_form import RoleForm
from .unsaved import Choice, ask_to_save, soon

if TYPE_CHECKING:
    from mira_desktop.services.roles import RoleService

    from ..controllers.tasks import TaskRunner

log = logging.getLogger(__name__)

_ID = Qt.ItemDataRole.UserRole + 1


class RoleDialog(QDialog):
    def __init__(self, roles: RoleService, tasks: TaskRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("RoleDialog")
        self._service = roles
        self._tasks = tasks
        self._roles: list[Role] = []
        self._editing: str | None = None  # id of the role in the form; None: a new one
        self._baseline: dict[str, Any] = {}  # the form's values as shown
        self.loads = 0  # finished list loads (tests wait for the first)
        self.role_list = QListWidget(self)
        self.role_list.setObjectName("RoleList")
        self.role_list.setMaximumWidth(240)
        self.role_list.currentItemChanged.connect(self._on_selected)
        self.form = RoleForm(self)
        self.status = QLabel(self)
        self.status.setObjectName("RoleStatus")
        self.status.setWordWrap(True)
        self.new_button = QPushButton(self)
        self.duplicate_button = QPushButton(self)
        self.delete_button = QPushButton(self)
        self.save_button = QPushButton(self)
        self.save_button.setProperty("primary", True)
        self.save_button.setObjectName("RoleSave")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        self._build_layout()
        self._connect()
        self._retranslate()
        self.resize(900, 620)
        self._show_form(None)

    def _build_layout(self) -> None:
        left = QVBoxLayout()
        left.setSpacing(6)
        left.addWidget(self.role_list, 1)
        row = QHBoxLayout()
        row.setSpacing(6)
        for button in (self.new_button, self.duplicate_button, self.delete_button):
            row.addWidget(button)
        left.addLayout(row)
        scroll = QScrollArea(self)
        scroll.setObjectName("RoleFormScroll")
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.form)
        right = QVBoxLayout()
        right.setSpacing(8)
        right.addWidget(scroll, 1)
        save_row = QHBoxLayout()
        save_row.addWidget(self.status, 1)
        save_row.addWidget(self.save_button, 0, Qt.AlignmentFlag.AlignTop)
        right.addLayout(save_row)
        body = QHBoxLayout()
        body.setSpacing(16)
        body.addLayout(left, 1)
        body.addLayout(right, 3)
        outer = QVBoxLayout(self)
        outer.addLayout(body, 1)
        outer.addWidget(self.buttons)

    def _connect(self) -> None:
        self.new_button.clicked.connect(self.new_role)
        self.duplicate_button.clicked.connect(self.duplicate_role)
        self.delete_button.clicked.connect(self.delete_role)
        self.save_button.clicked.connect(self.save)
        self.form.edited.connect(lambda: self._set_status(""))

    # ---- loading ---------------------------------------------------------------------
    def load(self, select: str | None = None) -> None:
        self._tasks.start(self._load(select))

    async def _load(self, select: str | None) -> None:
        roles = await guarded(self, self._service.list())
        if roles is None:
            return
        self._roles = roles
        self.role_list.blockSignals(True)
        self.role_list.clear()
        for role in roles:
            item = QListWidgetItem(role.name, self.role_list)
            item.setData(_ID, role.id)
            item.setToolTip(role.description or role.name)
        self.role_list.blockSignals(False)
        target = select if select is not None else self._editing
        row = next((i for i, r in enumerate(roles) if r.id == target), -1)
        if row < 0 and roles:
            row = 0
        with QSignalBlocker(self.role_list):
            self.role_list.setCurrentRow(row)
        if row >= 0:
            self._show_form(roles[row])
        elif self._editing is not None:  # its role is gone
            self._show_form(None)
        self._update_buttons()
        self.loads += 1

    def role_names(self) -> list[str]:
        return [r.name for r in self._roles]

    # ---- actions ---------------------------------------------------------------------
    def new_role(self) -> None:
        self.leave_form(self._new_form)

    def _new_form(self) -> None:
        with QSignalBlocker(self.role_list):
            self.role_list.setCurrentRow(-1)
        self._show_form(None)
        self.form.name_edit.setFocus()

    def duplicate_role(self) -> None:
        self.leave_form(self._duplicate)

    def _duplicate(self) -> None:
        if self._editing is not None:
            self._run(self._service.duplicate(self._editing), self.tr("Duplicated."))

    def reject(self) -> None:
        """Close — once the form's unsaved edits are saved or let go (asked)."""
        self.leave_form(self._close_now)

    def _close_now(self) -> None:
        super().reject()

    # ---- unsaved edits ---------------------------------------------------------------
    def has_unsaved_changes(self) -> bool:
        return self.form.values() != self._baseline

    def leave_form(self, then: Callable[[], None]) -> None:
        """Call ``then()`` once the form may be left: at once when nothing is
        unsaved, else after asking — Save (then only if saving worked),
        Discard (the saved role is shown again), Cancel (never)."""
        if not self.has_unsaved_changes():
            then()
            return
        role = self._current_role()
        what = f"“{role.name}”" if role is not None else self.tr("the new role")
        choice = ask_to_save(self, what)
        if choice is Choice.DISCARD:
            self._show_form(role)
            then()
        elif choice is Choice.SAVE:
            self._save(then)

    def delete_role(self) -> None:
        role = self._current_role()
        if role is None:
            return
        text = self.tr(
            "Delete the role “{0}”? Threads that use it keep their whole history; "
            "they simply have no role any more."
        ).format(role.name)
        ask_then(self, self.tr("Delete role"), text, lambda: self._delete(role.id))

    def _delete(self, role_id: str) -> None:
        async def delete() -> None:
            used = await self._service.delete(role_id)
            self._editing = None
            await self._load(None)
            self._set_status(
                self.tr("Deleted. Threads that used it ({0}) keep their history.").format(used)
            )

        self._tasks.start(self._guarded(delete()))

    def save(self) -> None:
        self._save(None)

    def _save(self, then: Callable[[], None] | None) -> None:
        values = self.form.values()
        if self._editing is None:
            self._run(self._service.create(**values), self.tr("Role created."), then)
        else:
            self._run(self._service.edit(self._editing, **values), self.tr("Saved."), then)

    def _run(
        self, work: Awaitable[Role], done: str, then: Callable[[], None] | None = None
    ) -> None:
        async def run() -> None:
            role = await work
            self._editing = role.id
            await self._load(role.id)
            self._set_status(done)
            if then is not None:
                then()

        self._tasks.start(self._guarded(run()))

    async def _guarded(self, work: Awaitable[None]) -> None:
        try:
            await guarded(self, work)
        except MiraError as exc:
            show_or_log(self, exc, self._set_status, error_line(exc), error=True)

    # ---- form ------------------------------------------------------------------------
    def _on_selected(self, item: QListWidgetItem | None) -> None:
        role_id = item.data(_ID) if item is not None else None
        role = next((r for r in self._roles if r.id == role_id), None)
        if role is None or role.id == self._editing:
            return
        if self.has_unsaved_changes():
            soon(self, lambda: self._leave_for(role.id))  # asked once the click is handled
            return
        self._show_form(role)

    def _leave_for(self, role_id: str) -> None:
        self._select_row(self._editing)  # the list shows the role in the form until answered
        self.leave_form(lambda: self._show_role(role_id))

    def _show_role(self, role_id: str) -> None:
        role = next((r for r in self._roles if r.id == role_id), None)
        if role is not None:
            self._select_row(role.id)
            self._show_form(role)

    def _select_row(self, role_id: str | None) -> None:
        row = next((i for i, r in enumerate(self._roles) if r.id == role_id), -1)
        with QSignalBlocker(self.role_list):
            self.role_list.setCurrentRow(row)

    def _show_form(self, role: Role | None) -> None:
        self._editing = role.id if role else None
        self.form.set_role(role)
        self._baseline = self.form.values()
        self._set_status("" if role else self.tr("A new role: fill in a name, then Save."))
        self._update_buttons()

    def _current_role(self) -> Role | None:
        return next((r for r in self._roles if r.id == self._editing), None)

    def _update_buttons(self) -> None:
        chosen = self._editing is not None
        self.duplicate_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setProperty("status", "error" if error else "")
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Roles"))
        self.new_button.setText(self.tr("New"))
        self.duplicate_button.setText(self.tr("Duplicate"))
        self.delete_button.setText(self.tr("Delete…"))
        self.save_button.setText(self.tr("Save"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
