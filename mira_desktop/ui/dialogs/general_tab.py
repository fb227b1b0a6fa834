"""Settings → Chat & data: automatic titles, the attachment size limit, the trash's
automatic purge, the context summary's automatic refresh, and where the data folder
is (PRODUCT.md §12). Each change is saved at once through the settings service.

The data folder is shown, not edited here: a running window holds the database
open, so another folder is chosen at start with ``--data-dir`` or
``MIRA_DATA_DIR`` — the hint says so."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import qasync
from PySide6.QtCore import QEvent, QSignalBlocker, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.ui.dialogs.async_guard import guarded
from mira_desktop.ui.dialogs.form_rows import hint_label
from mira_desktop.ui.dialogs.status_label import StatusLabel

if TYPE_CHECKING:
    from mira_desktop.services.settings import SettingsService

log = logging.getLogger(__name__)

AUTO_TITLE_KEY = "chat.auto_title"
MAX_MB_KEY = "attachments.max_mb"
PURGE_DAYS_KEY = "trash.purge_days"
SUMMARY_TURNS_KEY = "summary.auto_refresh_turns"


class GeneralTab(QWidget):
    def __init__(
        self, settings: SettingsService, data_dir: Path | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._settings = settings
        self._data_dir = data_dir
        self.auto_title = QCheckBox(self)
        self.max_mb = self._spin(1, 200)
        self.purge_days = self._spin(0, 3650)
        self.summary_turns = self._spin(0, 100)
        self.folder_label = QLabel(str(data_dir or ""), self)
        self.folder_label.setObjectName("DataFolderPath")
        self.open_folder = QPushButton(self)
        self.open_folder.setEnabled(data_dir is not None)
        self.folder_hint = hint_label(self)
        self.status = StatusLabel(self)
        self._labels = [QLabel(self) for _ in range(4)]
        self._build()
        self._connect()
        self._retranslate()

    def _spin(self, low: int, high: int) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setRange(low, high)
        spin.setMaximumWidth(160)
        spin.setKeyboardTracking(False)  # save when editing ends, not per keystroke
        return spin

    def _build(self) -> None:
        form = QFormLayout()
        form.setVerticalSpacing(12)
        form.addRow(self.auto_title)
        for label, field in zip(
            self._labels[:3], (self.max_mb, self.purge_days, self.summary_turns), strict=True
        ):
            form.addRow(label, field)
        folder = QHBoxLayout()
        folder.addWidget(self.folder_label, 1)
        folder.addWidget(self.open_folder)
        form.addRow(self._labels[3], folder)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.addLayout(form)
        layout.addWidget(self.folder_hint)
        layout.addWidget(self.status)
        layout.addStretch(1)

    def _connect(self) -> None:
        self.auto_title.toggled.connect(self._on_auto_title)
        self.max_mb.valueChanged.connect(self._on_max_mb)
        self.purge_days.valueChanged.connect(self._on_purge_days)
        self.summary_turns.valueChanged.connect(self._on_summary_turns)
        self.open_folder.clicked.connect(self._open_data_folder)

    async def load(self) -> None:
        """Show the stored values (without saving them back)."""
        values = (
            bool(await self._settings.get(AUTO_TITLE_KEY, True)),
            int(await self._settings.get(MAX_MB_KEY, 8)),
            int(await self._settings.get(PURGE_DAYS_KEY, 30)),
            int(await self._settings.get(SUMMARY_TURNS_KEY, 0)),
        )
        widgets = (self.auto_title, self.max_mb, self.purge_days, self.summary_turns)
        blockers = [QSignalBlocker(w) for w in widgets]
        self.auto_title.setChecked(values[0])
        self.max_mb.setValue(values[1])
        self.purge_days.setValue(values[2])
        self.summary_turns.setValue(values[3])
        del blockers

    async def _save(self, key: str, value: Any) -> None:
        try:
            await self._settings.set(key, value)
        except Exception as exc:
            self.status.show_error(exc)
            return
        self.status.clear_status()
        log.info("setting %s = %s", key, value)

    @qasync.asyncSlot(bool)
    async def _on_auto_title(self, checked: bool) -> None:
        await guarded(self, self._save(AUTO_TITLE_KEY, checked))

    @qasync.asyncSlot(int)
    async def _on_max_mb(self, value: int) -> None:
        await guarded(self, self._save(MAX_MB_KEY, value))

    @qasync.asyncSlot(int)
    async def _on_purge_days(self, value: int) -> None:
        await guarded(self, self._save(PURGE_DAYS_KEY, value))

    @qasync.asyncSlot(int)
    async def _on_summary_turns(self, value: int) -> None:
        await guarded(self, self._save(SUMMARY_TURNS_KEY, value))

    def _open_data_folder(self) -> None:
        if self._data_dir is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._data_dir)))

    def _retranslate(self) -> None:
        self.auto_title.setText(
            self.tr("Name new conversations automatically (a short model call)")
        )
        texts = (
            self.tr("Attachment limit (MB per file)"),
            self.tr("Empty the trash after (days, 0 = never)"),
            self.tr("Refresh the context summary every (turns, 0 = off)"),
            self.tr("Data folder"),
        )
        for label, text in zip(self._labels, texts, strict=True):
            label.setText(text)
        self.open_folder.setText(self.tr("Open"))
        self.folder_hint.setText(
            self.tr(
                "To use another data folder, start Mira with --data-dir FOLDER "
                "or set MIRA_DATA_DIR."
            )
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
