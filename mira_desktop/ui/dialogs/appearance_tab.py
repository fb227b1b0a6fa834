"""Settings → Appearance: theme, language and how reasoning ("thinking") is shown.

A change is saved at once through the settings service (keys ``ui.theme``,
``ui.language``, ``ui.thinking_display``) and then announced by a signal, so the window
applies it immediately — there is no Apply button. Language names are written in their
own language so that someone who cannot read the current one still finds theirs.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import qasync
from PySide6.QtCore import QEvent, Signal, SignalInstance
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from mira_desktop.services.settings import DEFAULTS
from mira_desktop.ui.dialogs.async_guard import alive, guarded
from mira_desktop.ui.dialogs.form_rows import hint_label
from mira_desktop.ui.dialogs.status_label import StatusLabel

if TYPE_CHECKING:
    from mira_desktop.services.settings import SettingsService

log = logging.getLogger(__name__)

THEME_KEY = "ui.theme"
LANGUAGE_KEY = "ui.language"
THINKING_KEY = "ui.thinking_display"
THEMES = ("light", "dark", "system")
LANGUAGES = ("en", "zh_CN", "system")
THINKING_MODES = ("expanded", "collapsed", "hidden")


class AppearanceTab(QWidget):
    """Signals: ``theme_changed(str)``, ``language_changed(str)``,
    ``thinking_display_changed(str)`` — emitted after the value was saved."""

    theme_changed = Signal(str)
    language_changed = Signal(str)
    thinking_display_changed = Signal(str)

    def __init__(self, settings: SettingsService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._settings = settings
        self.theme_combo = self._combo(THEMES)
        self.language_combo = self._combo(LANGUAGES)
        self.thinking_combo = self._combo(THINKING_MODES)
        self.status = StatusLabel(self)
        self.note = hint_label(self)
        self._labels = [QLabel(self) for _ in range(3)]
        form = QFormLayout()
        form.setVerticalSpacing(12)
        for label, combo in zip(
            self._labels, (self.theme_combo, self.language_combo, self.thinking_combo), strict=True
        ):
            form.addRow(label, combo)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.addLayout(form)
        layout.addSpacing(8)
        layout.addWidget(self.note)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.theme_combo.activated.connect(self._on_theme_activated)
        self.language_combo.activated.connect(self._on_language_activated)
        self.thinking_combo.activated.connect(self._on_thinking_activated)
        self._retranslate()

    def _combo(self, values: tuple[str, ...]) -> QComboBox:
        combo = QComboBox(self)
        for value in values:
            combo.addItem("", value)
        combo.setMinimumWidth(220)
        combo.setMaximumWidth(360)
        return combo

    async def load(self) -> None:
        """Show the stored values (all read first: Settings may be closed
        while they are)."""
        keys = (THEME_KEY, LANGUAGE_KEY, THINKING_KEY)
        # DEFAULTS: what the app does with nothing stored
        values = [await self._settings.get(key, DEFAULTS[key]) for key in keys]
        if not alive(self):
            return
        combos = (self.theme_combo, self.language_combo, self.thinking_combo)
        for combo, key, value in zip(combos, keys, values, strict=True):
            row = combo.findData(value)
            combo.setCurrentIndex(row if row >= 0 else combo.findData(DEFAULTS[key]))

    async def save_setting(self, key: str, value: str) -> bool:
        try:
            await self._settings.set(key, value)
        except Exception as exc:
            self.status.show_error(exc)
            return False
        self.status.clear_status()
        log.info("setting %s = %s", key, value)
        return True

    async def _apply(self, combo: QComboBox, key: str, announce: SignalInstance) -> None:
        value = str(combo.currentData())
        if await self.save_setting(key, value):
            announce.emit(value)

    @qasync.asyncSlot(int)
    async def _on_theme_activated(self, _row: int) -> None:
        await guarded(self, self._apply(self.theme_combo, THEME_KEY, self.theme_changed))

    @qasync.asyncSlot(int)
    async def _on_language_activated(self, _row: int) -> None:
        await guarded(self, self._apply(self.language_combo, LANGUAGE_KEY, self.language_changed))

    @qasync.asyncSlot(int)
    async def _on_thinking_activated(self, _row: int) -> None:
        await guarded(
            self, self._apply(self.thinking_combo, THINKING_KEY, self.thinking_display_changed)
        )

    def _retranslate(self) -> None:
        self.note.setText(self.tr("Changes apply right away."))
        texts = (self.tr("Theme"), self.tr("Language"), self.tr("Thinking"))
        for label, text in zip(self._labels, texts, strict=True):
            label.setText(text)
        for combo, names in (
            (self.theme_combo, (self.tr("Light"), self.tr("Dark"), self.tr("Follow system"))),
            (self.language_combo, ("English", "简体中文", self.tr("Follow system"))),
            (
                self.thinking_combo,
                (
                    self.tr("Always expanded"),
                    self.tr("Collapse when the answer starts"),
                    self.tr("Hidden"),
                ),
            ),
        ):
            for row, name in enumerate(names):
                combo.setItemText(row, name)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
