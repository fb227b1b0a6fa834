"""Settings → Agent (PRODUCT.md §11): whether the agent asks before changes
(manual mode; the header's "Ask before changes" is the same setting),
developer mode (it may change anything in a workspace's ``.agent/``), and the
web search endpoint of its ``web_search`` tool (an address with ``{query}``;
checked before it is kept)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import qasync
from PySide6.QtCore import QEvent, QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from mira_desktop.core.agent import DEVELOPER_KEY, MODE_KEY, SEARCH_URL_KEY, AgentMode
from mira_desktop.core.errors import MiraError
from mira_desktop.ui.dialogs.async_guard import alive, guarded
from mira_desktop.ui.dialogs.form_rows import hint_label
from mira_desktop.ui.dialogs.status_label import StatusLabel
from mira_desktop.ui.error_texts import error_line

if TYPE_CHECKING:
    from mira_desktop.services.settings import SettingsService

log = logging.getLogger(__name__)


class AgentTab(QWidget):
    def __init__(self, settings: SettingsService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self.ask = QCheckBox(self)
        self.ask.setObjectName("AgentAsks")
        self.developer = QCheckBox(self)
        self.developer.setObjectName("AgentDeveloperMode")
        self.search_url = QLineEdit(self)
        self.search_url.setObjectName("AgentSearchUrl")
        self.search_label = QLabel(self)
        self.search_hint = hint_label(self)
        self.status = StatusLabel(self)
        form = QFormLayout()
        form.setVerticalSpacing(12)
        form.addRow(self.ask)
        form.addRow(self.developer)
        form.addRow(self.search_label, self.search_url)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.addLayout(form)
        layout.addWidget(self.search_hint)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.ask.toggled.connect(self._on_ask)
        self.developer.toggled.connect(self._on_developer)
        self.search_url.editingFinished.connect(self._on_search_url)
        self._retranslate()

    async def load(self) -> None:
        """Show the stored values (without saving them back)."""
        mode = AgentMode.parse(await self._settings.get(MODE_KEY))
        developer = bool(await self._settings.get(DEVELOPER_KEY, False))
        url = await self._settings.get(SEARCH_URL_KEY)
        if not alive(self):  # Settings closed while they were read
            return
        with QSignalBlocker(self.ask), QSignalBlocker(self.developer):
            self.ask.setChecked(mode is AgentMode.MANUAL)
            self.developer.setChecked(developer)
        self.search_url.setText(url if isinstance(url, str) else "")

    async def _save(self, key: str, value: Any) -> None:
        try:
            await self._settings.set(key, value)
        except MiraError as exc:
            self.status.show_error(error_line(exc))
            return
        self.status.clear_status()
        log.info("setting %s = %s", key, value)

    @qasync.asyncSlot(bool)
    async def _on_ask(self, checked: bool) -> None:
        mode = AgentMode.MANUAL if checked else AgentMode.AUTO
        await guarded(self, self._save(MODE_KEY, str(mode)))

    @qasync.asyncSlot(bool)
    async def _on_developer(self, checked: bool) -> None:
        await guarded(self, self._save(DEVELOPER_KEY, checked))

    @qasync.asyncSlot()
    async def _on_search_url(self) -> None:
        from mira_desktop.services.agent.web_search import check_search_url

        text = self.search_url.text().strip()
        try:
            url = check_search_url(text) if text else None
        except MiraError as exc:
            self.status.show_error(error_line(exc))  # not kept: the old one stays
            return
        await guarded(self, self._save(SEARCH_URL_KEY, url))

    def _retranslate(self) -> None:
        self.ask.setText(
            self.tr("Ask before the agent writes, edits or runs a command that changes files")
        )
        self.developer.setText(
            self.tr("Developer mode: the agent may change anything in a workspace's .agent/ folder")
        )
        self.search_label.setText(self.tr("Web search address"))
        self.search_url.setPlaceholderText("http://localhost:8888/search?q={query}&format=json")
        self.search_hint.setText(
            self.tr(
                "With an address, the agent can search the web: {query} marks where the words"
                " go, and the answer must be JSON results (SearXNG's, for example). Empty: no"
                " web search."
            )
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
