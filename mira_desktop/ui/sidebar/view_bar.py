"""``ViewBar``: the sidebar's header controls above the thread list — the view
switcher (Chats / Archived / Trash), the batch-mode toggle and, while batch
mode is on, the batch bar (select all, how many are ticked, Move to ▸,
Archive or Unarchive, Delete, Export…; in the trash Restore and Delete
forever); in the trash, "Empty trash". Emits intents only; "export" reaches
the export UI through ``ThreadSidebar.batch_export_requested``."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.models import Workspace
from mira_desktop.ui.sidebar.thread_filter import VIEWS
from mira_desktop.ui.sidebar.workspace_list import color_dot_icon

log = logging.getLogger(__name__)


class ViewBar(QWidget):
    view_chosen = Signal(str)  # "active" | "archived" | "trash"
    batch_toggled = Signal(bool)
    select_all_toggled = Signal(bool)
    batch_action = Signal(str, str)  # "move" (arg: workspace id), "archive", "unarchive",
    # "trash", "restore", "purge"
    empty_trash_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ViewBar")
        self._view = "active"
        self._count = 0
        self._build_switcher()
        self._build_batch_bar()
        self.empty_trash_button = QPushButton(self)
        self.empty_trash_button.setObjectName("EmptyTrashButton")
        self.empty_trash_button.clicked.connect(self.empty_trash_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addLayout(self._switcher_row)
        layout.addWidget(self.batch_bar)
        layout.addWidget(self.empty_trash_button)
        self._retranslate()
        self._update_visibility()

    def _build_switcher(self) -> None:
        self.view_buttons: dict[str, QToolButton] = {}
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        for view in VIEWS:
            button = QToolButton(self)
            button.setObjectName(f"View_{view}")
            button.setProperty("segment", True)
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.clicked.connect(lambda _checked=False, v=view: self._choose(v))
            self._group.addButton(button)
            self.view_buttons[view] = button
            row.addWidget(button)
        row.addStretch(1)
        self.batch_button = QToolButton(self)
        self.batch_button.setObjectName("BatchButton")
        self.batch_button.setCheckable(True)
        self.batch_button.setAutoRaise(True)
        self.batch_button.toggled.connect(self._on_batch)
        row.addWidget(self.batch_button)
        self.view_buttons["active"].setChecked(True)
        self._switcher_row = row

    def _build_batch_bar(self) -> None:
        bar = QWidget(self)
        bar.setObjectName("BatchBar")
        self.select_all = QCheckBox(bar)
        self.select_all.setObjectName("SelectAll")
        self.select_all.clicked.connect(self.select_all_toggled)
        self.count_label = QLabel(bar)
        self.count_label.setProperty("muted", True)
        self.move_button = QToolButton(bar)
        self.move_button.setObjectName("BatchMove")
        self.move_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.move_menu = QMenu(self.move_button)
        self.move_button.setMenu(self.move_menu)
        self.batch_buttons: dict[str, QPushButton] = {}
        for name in ("archive", "unarchive", "trash", "restore", "purge", "export"):
            button = QPushButton(bar)
            button.setObjectName(f"Batch_{name}")
            button.clicked.connect(lambda _checked=False, n=name: self.batch_action.emit(n, ""))
            self.batch_buttons[name] = button
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.select_all)
        top.addStretch(1)
        top.addWidget(self.count_label)
        actions = QHBoxLayout()
        actions.setContentsMargins(0, 0, 0, 0)
        actions.setSpacing(4)
        actions.addWidget(self.move_button)
        for button in self.batch_buttons.values():
            actions.addWidget(button)
        actions.addStretch(1)
        column = QVBoxLayout(bar)
        column.setContentsMargins(4, 0, 4, 0)
        column.setSpacing(4)
        column.addLayout(top)
        column.addLayout(actions)
        self.batch_bar = bar

    # ---- public API -------------------------------------------------------------------
    def view(self) -> str:
        return self._view

    def set_view(self, view: str) -> None:
        """Show ``view`` as chosen (silent)."""
        self._view = view
        self.view_buttons[view].setChecked(True)
        self._update_visibility()

    def set_workspaces(self, workspaces: list[Workspace]) -> None:
        self.move_menu.clear()
        for workspace in workspaces:
            action = self.move_menu.addAction(
                color_dot_icon(workspace.color or None), workspace.name
            )
            action.setObjectName(f"move:{workspace.id}")
            action.triggered.connect(
                lambda _checked=False, w=workspace.id: self.batch_action.emit("move", w)
            )

    def set_checked_count(self, count: int, everything: bool) -> None:
        self._count = count
        self.count_label.setText(self.tr("{n} selected").format(n=count))
        self.select_all.setChecked(everything)
        for button in self.batch_buttons.values():
            button.setEnabled(count > 0)
        self.move_button.setEnabled(count > 0)

    def set_batch(self, on: bool) -> None:
        self.batch_button.setChecked(on)

    # ---- behaviour ----------------------------------------------------------------------
    def _choose(self, view: str) -> None:
        if view != self._view:
            self._view = view
            self._update_visibility()
            self.view_chosen.emit(view)

    def _on_batch(self, on: bool) -> None:
        self._update_visibility()
        self.batch_toggled.emit(on)

    def _update_visibility(self) -> None:
        batch = self.batch_button.isChecked()
        trash = self._view == "trash"
        self.batch_bar.setVisible(batch)
        self.empty_trash_button.setVisible(trash and not batch)
        shown = {
            "active": ("archive", "trash", "export"),
            "archived": ("unarchive", "trash", "export"),
            "trash": ("restore", "purge"),
        }[self._view]
        for name, button in self.batch_buttons.items():
            button.setVisible(name in shown)
        self.move_button.setVisible(not trash)

    def _retranslate(self) -> None:
        labels = {
            "active": self.tr("Chats"),
            "archived": self.tr("Archived"),
            "trash": self.tr("Trash"),
        }
        for view, view_button in self.view_buttons.items():
            view_button.setText(labels[view])
        self.view_buttons["trash"].setToolTip(
            self.tr("Deleted conversations, restorable until the automatic purge")
        )
        self.batch_button.setText(self.tr("Select"))
        self.batch_button.setToolTip(self.tr("Select several conversations"))
        self.select_all.setText(self.tr("All"))
        self.move_button.setText(self.tr("Move to"))
        texts = {
            "archive": self.tr("Archive"),
            "unarchive": self.tr("Unarchive"),
            "trash": self.tr("Delete"),
            "restore": self.tr("Restore"),
            "purge": self.tr("Delete forever"),
            "export": self.tr("Export…"),
        }
        for name, button in self.batch_buttons.items():
            button.setText(texts[name])
        self.empty_trash_button.setText(self.tr("Empty trash…"))
        self.count_label.setText(self.tr("{n} selected").format(n=self._count))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
