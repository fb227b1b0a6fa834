"""The Settings dialog: tabs Providers, Models and Appearance over the provider and
settings services.

Open it with ``open()`` or ``show()`` — never ``exec()``: a nested modal loop would
stall the qasync loop the tabs await on. It loads its data when first shown (or when
``load()`` is awaited) and re-announces what changed: ``providers_changed()`` (also
after a model's settings were saved), ``theme_changed(str)``, ``language_changed(str)``
and ``thinking_display_changed(str)``. Closing it (Close, Esc, the window's
close button) with unsaved edits in the provider or model form asks first
whether to save them.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import qasync
from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTabWidget, QVBoxLayout, QWidget

from mira_desktop.ui.dialogs.agent_tab import AgentTab
from mira_desktop.ui.dialogs.appearance_tab import AppearanceTab
from mira_desktop.ui.dialogs.async_guard import alive, guarded, show_or_log
from mira_desktop.ui.dialogs.general_tab import GeneralTab
from mira_desktop.ui.dialogs.models_tab import ModelsTab
from mira_desktop.ui.dialogs.providers_tab import ProvidersTab
from mira_desktop.ui.dialogs.status_label import describe_error

if TYPE_CHECKING:
    from mira_desktop.services.data_folder import DataFolderService
    from mira_desktop.services.providers import ProviderService
    from mira_desktop.services.settings import SettingsService

log = logging.getLogger(__name__)

TAB_NAMES = ("providers", "models", "appearance", "general", "agent")


class SettingsDialog(QDialog):
    """Signals: ``providers_changed()``, ``theme_changed(str)``, ``language_changed(str)``,
    ``thinking_display_changed(str)``."""

    providers_changed = Signal()
    theme_changed = Signal(str)
    language_changed = Signal(str)
    thinking_display_changed = Signal(str)

    def __init__(
        self,
        providers: ProviderService,
        settings: SettingsService,
        parent: QWidget | None = None,
        *,
        data_dir: Path | None = None,
        data_folder: DataFolderService | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("SettingsDialog")
        self.setMinimumSize(760, 520)
        self._loaded = False
        self.providers_tab = ProvidersTab(providers, self)
        self.models_tab = ModelsTab(providers, self)
        self.appearance_tab = AppearanceTab(settings, self)
        self.general_tab = GeneralTab(
            settings, data_dir, self, data_folder=data_folder, providers=providers
        )
        self.agent_tab = AgentTab(settings, self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(False)
        #: the pages, in their order on the tab bar and of loading
        self.pages = (
            self.providers_tab,
            self.models_tab,
            self.appearance_tab,
            self.general_tab,
            self.agent_tab,
        )
        for tab in self.pages:
            self.tabs.addTab(tab, "")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.buttons)
        self._connect()
        self._retranslate()

    def _connect(self) -> None:
        self.providers_tab.providers_changed.connect(self.providers_changed)
        self.providers_tab.providers_changed.connect(self._on_providers_changed)
        self.models_tab.models_changed.connect(self.providers_changed)
        self.appearance_tab.theme_changed.connect(self.theme_changed)
        self.appearance_tab.language_changed.connect(self.language_changed)
        self.appearance_tab.thinking_display_changed.connect(self.thinking_display_changed)

    # ---- public API ---------------------------------------------------------
    async def load(self) -> None:
        """Load every tab from the services; errors are shown in the Providers
        tab. Each tab reads its values before it shows them, and shows
        nothing once the dialog was closed (and deleted) meanwhile; the tabs
        after it are then not read at all."""
        self._loaded = True
        try:
            for tab in self.pages:
                if not alive(self):
                    return
                await tab.load()
        except Exception as exc:  # e.g. the database is unavailable: say so inline
            log.warning("settings could not be loaded: %s", exc)
            if alive(self):
                self.providers_tab.status.show_error(describe_error(exc))

    def show_tab(self, name: str) -> None:
        """Switch to "providers", "models", "appearance", "general" or "agent"."""
        if name in TAB_NAMES:
            self.tabs.setCurrentIndex(TAB_NAMES.index(name))

    def start_add_provider(
        self, *, kind: str = "openai", name: str = "", base_url: str = ""
    ) -> None:
        """Show the Providers tab with a new, optionally pre-filled, provider form."""
        self.show_tab("providers")
        self.providers_tab.start_new(kind=kind, name=name, base_url=base_url)

    # ---- behaviour ----------------------------------------------------------
    @qasync.asyncSlot()
    async def reload(self) -> None:
        await guarded(self, self.load())

    @qasync.asyncSlot()
    async def _on_providers_changed(self) -> None:
        await guarded(self, self._reload_models())

    async def _reload_models(self) -> None:
        for tab, load in (
            (self.models_tab, self.models_tab.load),
            (self.general_tab, self.general_tab.reload_model_choices),
        ):
            if not alive(self):  # closed while the tab before read
                return
            try:
                await load()
            except Exception as exc:
                show_or_log(self, exc, tab.status.show_error, exc)

    def reject(self) -> None:
        """Close — once the forms' unsaved edits are saved or let go (asked)."""
        providers, models = self.providers_tab, self.models_tab

        def leave_models() -> None:
            if models.has_unsaved_changes():
                self.show_tab("models")
            models.leave_form(self._close_now)

        if providers.has_unsaved_changes():
            self.show_tab("providers")
        providers.leave_form(leave_models)

    def _close_now(self) -> None:
        super().reject()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._loaded:
            self._loaded = True
            QTimer.singleShot(0, self.reload)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Settings"))
        for row, text in enumerate(
            (
                self.tr("Providers"),
                self.tr("Models"),
                self.tr("Appearance"),
                self.tr("Chat && data"),
                self.tr("Agent"),
            )
        ):
            self.tabs.setTabText(row, text)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
