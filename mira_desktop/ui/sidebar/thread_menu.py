"""``ThreadMenu``: the right-click menu of a sidebar thread. Chats: Rename,
Pin/Unpin, Move to ▸ workspace, Archive, Delete (to the trash). The archive:
Rename, Unarchive, Move to ▸, Delete. The trash: Restore, Delete forever.
Each action carries a name (its object name) and emits ``chosen(name, arg)``;
the sidebar turns that into an intent signal."""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from mira_desktop.core.models import Thread, Workspace
from mira_desktop.ui.sidebar.workspace_list import color_dot_icon

log = logging.getLogger(__name__)


class ThreadMenu(QMenu):
    chosen = Signal(str, str)  # action name, argument (the workspace id of "move")

    def __init__(
        self,
        thread: Thread,
        view: str,
        workspaces: list[Workspace],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ThreadMenu")
        self.menu_thread = thread
        if view == "trash":
            self._add("restore", self.tr("Restore"))
            self.addSeparator()
            self._add("purge", self.tr("Delete forever…"))
            return
        rename = self._add("rename", self.tr("Rename"))
        rename.setShortcut(QKeySequence("F2"))
        if view == "active":
            if thread.pinned:
                self._add("unpin", self.tr("Unpin"))
            else:
                self._add("pin", self.tr("Pin"))
        self._add_move_menu(thread, workspaces)
        if thread.archived:
            self._add("unarchive", self.tr("Unarchive"))
        else:
            self._add("archive", self.tr("Archive"))
        self.addSeparator()
        delete = self._add("trash", self.tr("Delete"))
        delete.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))

    def _add(self, name: str, text: str, arg: str = "", icon: QIcon | None = None) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name if not arg else f"{name}:{arg}")
        if icon is not None:
            action.setIcon(icon)
        action.triggered.connect(lambda: self.chosen.emit(name, arg))
        self.addAction(action)
        return action

    def _add_move_menu(self, thread: Thread, workspaces: list[Workspace]) -> None:
        others = [w for w in workspaces if w.id != thread.workspace_id]
        sub = self.addMenu(self.tr("Move to"))
        sub.setObjectName("MoveMenu")
        sub.setEnabled(bool(others))
        for workspace in others:
            action = QAction(color_dot_icon(workspace.color or None), workspace.name, sub)
            action.setObjectName(f"move:{workspace.id}")
            action.triggered.connect(
                lambda _checked=False, w=workspace.id: self.chosen.emit("move", w)
            )
            sub.addAction(action)

    def action_named(self, name: str) -> QAction | None:
        """The action called ``name`` (``"move:<id>"`` for a workspace), for tests."""
        for action in self.findChildren(QAction):
            if action.objectName() == name:
                return action
        return None
