"""``KbPickerButton``: the header's knowledge-base picker (PRODUCT.md §3 path 2)
— a menu button showing the conversation's knowledge base ("No knowledge base"
or its name) whose menu lists "No knowledge base", every base with its
document count, and "Manage knowledge bases…".

It emits ``kb_chosen(kb_id)`` (``""`` for none) only when the *user* picks an
entry; :meth:`set_bases` and :meth:`set_current` are silent. A base that is no
longer in the list (deleted elsewhere) shows as "No knowledge base"."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from ..widgets.eliding_button import ElidingToolButton

if TYPE_CHECKING:
    from ...core.knowledge import KnowledgeBaseStats

log = logging.getLogger(__name__)

MAX_LABEL_CHARS = 22


class KbPickerButton(ElidingToolButton):
    kb_chosen = Signal(str)
    manage_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("KbPicker")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._bases: list[KnowledgeBaseStats] = []
        self._current: str | None = None
        self.menu_ = QMenu(self)
        self.menu_.setObjectName("KbMenu")
        self.setMenu(self.menu_)
        self._group = QActionGroup(self)
        self._group.setExclusive(True)
        self._rebuild()

    def set_bases(self, bases: list[KnowledgeBaseStats]) -> None:
        self._bases = list(bases)
        self._rebuild()

    def bases(self) -> list[KnowledgeBaseStats]:
        return list(self._bases)

    def set_current(self, kb_id: str | None) -> None:
        self._current = kb_id or None
        self._rebuild()

    def current_kb_id(self) -> str | None:
        """The base shown (``None`` when it is none or no longer exists)."""
        return self._current if any(b.kb.id == self._current for b in self._bases) else None

    def choose(self, kb_id: str | None) -> None:
        """Pick as the user would (menus are awkward to click in tests)."""
        self._current = kb_id or None
        self._rebuild()
        self.kb_chosen.emit(kb_id or "")

    def _rebuild(self) -> None:
        menu = self.menu_
        menu.clear()
        for action in self._group.actions():
            self._group.removeAction(action)
        current = self.current_kb_id()
        self._add(self.tr("No knowledge base"), "", current is None)
        if self._bases:
            menu.addSeparator()
        for stats in self._bases:
            if stats.documents == 1:
                text = self.tr("{name} (1 document)").format(name=stats.kb.name)
            else:
                text = self.tr("{name} ({count} documents)").format(
                    name=stats.kb.name, count=stats.documents
                )
            self._add(text, stats.kb.id, stats.kb.id == current)
        menu.addSeparator()
        manage = menu.addAction(self.tr("Manage knowledge bases…"))
        manage.triggered.connect(self.manage_requested)
        self._update_text(current)

    def _add(self, text: str, kb_id: str, checked: bool) -> QAction:
        action = self.menu_.addAction(text)
        action.setCheckable(True)
        action.setChecked(checked)
        action.setData(kb_id)
        self._group.addAction(action)
        action.triggered.connect(lambda _=False, kid=kb_id: self.choose(kid))
        return action

    def _update_text(self, current: str | None) -> None:
        stats = next((b for b in self._bases if b.kb.id == current), None)
        if stats is None:
            self.setText(self.tr("No knowledge base"))
            self.setToolTip(
                self.tr("Knowledge base: none. Choose one to answer from your documents.")
            )
            return
        name = stats.kb.name
        short = name if len(name) <= MAX_LABEL_CHARS else name[: MAX_LABEL_CHARS - 1] + "…"
        self.setText(self.tr("KB: {0}").format(short))
        self.setToolTip(
            self.tr("Answers come from the knowledge base “{0}”, with sources.").format(name)
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._rebuild()
