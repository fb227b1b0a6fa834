"""``ReasoningActions``: the header's ⋯ → "Reasoning effort" submenu — how
hard the chosen model reasons (the server's default, off, low, medium,
high), the same per-model setting as Settings → Models, at hand where the
model is chosen. The levels are read when the menu opens (Settings may have
changed them) and a choice is saved at once with the model's other settings
as they are then (read again: Settings or the command line may have changed
them since the menu opened)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from ...core.errors import MiraError
from ...core.models import ModelInfo, Reasoning
from ..error_texts import error_line
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

#: the submenu's entries in order; "" is the server's default
LEVELS = ("", *(str(level) for level in Reasoning))


class ReasoningActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self.menu = QMenu(window.header.menu)
        self.menu.setObjectName("ReasoningMenu")
        self.group = QActionGroup(self.menu)
        self.group.setExclusive(True)
        self.actions: dict[str, QAction] = {}
        for level in LEVELS:
            action = QAction(self.menu)
            action.setCheckable(True)
            action.setData(level)
            self.group.addAction(action)
            self.menu.addAction(action)
            self.actions[level] = action
        self.actions[""].setChecked(True)
        self.group.triggered.connect(self._on_triggered)
        window.header.menu.insertMenu(window.undo_turn_action, self.menu)
        window.header.menu.aboutToShow.connect(lambda: tasks.start(self.refresh()))
        # the switches' tooltips say what they do (a menu hides them by default)
        window.header.menu.setToolTipsVisible(True)
        self._model: ModelInfo | None = None
        self._retranslate()
        window.installEventFilter(self)

    # ---- reading ------------------------------------------------------------------------
    def current_model(self) -> tuple[str, str] | None:
        return self._w.header.model_picker.current_choice()

    async def refresh(self) -> None:
        """Check the chosen model's level."""
        choice = self.current_model()
        self.menu.menuAction().setEnabled(choice is not None)
        if choice is None:
            self._model = None
            self._title()
            return
        info = await self._read(choice)
        if info is not None and self.current_model() == choice:  # else: its own refresh follows
            self._model = info
            self._show()

    async def _read(self, choice: tuple[str, str]) -> ModelInfo | None:
        provider, model = choice
        try:
            info = await self._services.providers.get_model(provider, model)
        except MiraError as exc:
            log.info("reasoning level of %s/%s not read: %s", provider, model, exc)
            return None
        return info or ModelInfo(name=model, provider_name=provider)

    def _show(self) -> None:
        info = self._model
        level = str(info.reasoning or "") if info is not None else ""
        self.actions[level].setChecked(True)
        self._title()
        self.menu.menuAction().setToolTip(
            self.tr("How hard {model} reasons before it answers (Settings → Models too)").format(
                model=info.name if info is not None else ""
            )
        )

    # ---- choosing -----------------------------------------------------------------------
    def choose(self, level: str) -> None:
        """Save ``level`` ("" for the server's default) for the chosen model."""
        self._tasks.start(self._save(level))

    def _on_triggered(self, action: QAction) -> None:
        self.choose(str(action.data() or ""))

    async def _save(self, level: str) -> None:
        """Saved with the other settings read now (not as the menu found them)."""
        choice = self.current_model()
        info = await self._read(choice) if choice is not None else None
        if info is None:
            await self.refresh()  # the check mark goes back to what is saved
            return
        try:
            saved = await self._services.providers.update_model_settings(
                info.provider_name,
                info.name,
                context_window=info.context_window,
                vision=info.vision,
                tier=str(info.tier) if info.tier else None,
                compaction_threshold=info.compaction_threshold,
                reasoning=level or None,
            )
        except MiraError as exc:
            self._w.notice_bar.show_notice(error_line(exc))
            await self.refresh()
            return
        self._model = saved
        self._show()

    # ---- language -----------------------------------------------------------------------
    def _title(self) -> None:
        """The submenu names the model: the level is the model's, in every
        conversation with it (the other switches of the menu are this one's)."""
        if self._model is None:
            self.menu.setTitle(self.tr("Reasoning effort"))
        else:
            self.menu.setTitle(
                self.tr("Reasoning effort of {model}").format(model=self._model.name)
            )

    def _retranslate(self) -> None:
        self._title()
        texts = {
            "": self.tr("Server's default"),
            str(Reasoning.OFF): self.tr("Off"),
            str(Reasoning.LOW): self.tr("Low"),
            str(Reasoning.MEDIUM): self.tr("Medium"),
            str(Reasoning.HIGH): self.tr("High"),
        }
        for level, text in texts.items():
            self.actions[level].setText(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False
