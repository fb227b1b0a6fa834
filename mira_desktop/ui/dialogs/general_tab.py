"""Settings → Chat & data: automatic titles, the attachment size limit, the trash's
automatic purge, the context summary's automatic refresh, the image model that
illustrates answers (PRODUCT.md §10: an OpenAI-compatible provider and a model
name), the speech-to-text model that writes down dictation (the same kind of
choice) and whether dictated words are sent at once, and where the data
folder is (PRODUCT.md §12). Each change is saved at
once through the settings service. The provider lists follow the providers
(:meth:`GeneralTab.reload_model_choices`, after each change in the dialog); a
choice whose provider was removed is shown as such, not as "None": the
feature says its provider is gone until another is chosen.

The data folder is shown and can be changed (Change…): a running window holds
its database open and keeps writing it, so the switch — and the copy of the
data into an empty folder — is made at the next start
(``services/data_folder.py``; a folder Mira used before is taken as it is).
Choosing the current folder again cancels it; ``--data-dir`` and
``MIRA_DATA_DIR`` still win — the hint says so."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import qasync
from PySide6.QtCore import QEvent, QSignalBlocker, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.errors import MiraError
from mira_desktop.core.media_keys import (
    IMAGE_MODEL_KEY,
    SEND_DICTATION_KEY,
    TRANSCRIPTION_MODEL_KEY,
)
from mira_desktop.core.models import ProviderKind
from mira_desktop.ui.dialogs.async_guard import alive, guarded
from mira_desktop.ui.dialogs.form_rows import hint_label
from mira_desktop.ui.dialogs.status_label import StatusLabel

if TYPE_CHECKING:
    from mira_desktop.services.data_folder import DataFolderService, FolderChange
    from mira_desktop.services.providers import ProviderService
    from mira_desktop.services.settings import SettingsService

log = logging.getLogger(__name__)

AUTO_TITLE_KEY = "chat.auto_title"
MAX_MB_KEY = "attachments.max_mb"
PURGE_DAYS_KEY = "trash.purge_days"
SUMMARY_TURNS_KEY = "summary.auto_refresh_turns"


class GeneralTab(QWidget):
    def __init__(
        self,
        settings: SettingsService,
        data_dir: Path | None = None,
        parent: QWidget | None = None,
        *,
        data_folder: DataFolderService | None = None,
        providers: ProviderService | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings
        self._providers = providers
        self._data_dir = data_dir
        self._data_folder = data_folder
        self._change_task: asyncio.Future[None] | None = None
        self.auto_title = QCheckBox(self)
        self.send_dictation = QCheckBox(self)
        self.send_dictation.setObjectName("SendDictation")
        self.max_mb = self._spin(1, 200)
        self.purge_days = self._spin(0, 3650)
        self.summary_turns = self._spin(0, 100)
        self.image_provider, self.image_model = self._model_choice("Image")
        self.stt_provider, self.stt_model = self._model_choice("Transcription")
        #: setting key → its provider list and model field
        self._choices = {
            IMAGE_MODEL_KEY: (self.image_provider, self.image_model),
            TRANSCRIPTION_MODEL_KEY: (self.stt_provider, self.stt_model),
        }
        self.folder_label = QLabel(str(data_dir or ""), self)
        self.folder_label.setObjectName("DataFolderPath")
        self.open_folder = QPushButton(self)
        self.open_folder.setEnabled(data_dir is not None)
        self.change_folder = QPushButton(self)
        self.change_folder.setObjectName("ChangeDataFolder")
        self.change_folder.setEnabled(data_folder is not None)
        self.folder_hint = hint_label(self)
        self.status = StatusLabel(self)
        self._labels = [QLabel(self) for _ in range(6)]
        self._build()
        self._connect()
        self._retranslate()

    def _spin(self, low: int, high: int) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setRange(low, high)
        spin.setMaximumWidth(160)
        spin.setKeyboardTracking(False)  # save when editing ends, not per keystroke
        return spin

    def _model_choice(self, name: str) -> tuple[QComboBox, QLineEdit]:
        """An OpenAI-compatible provider's list and a model name field."""
        provider = QComboBox(self)
        provider.setObjectName(f"{name}Provider")
        model = QLineEdit(self)
        model.setObjectName(f"{name}Model")
        model.setMaximumWidth(220)
        return provider, model

    def _build(self) -> None:
        form = QFormLayout()
        form.setVerticalSpacing(12)
        form.addRow(self.auto_title)
        for label, field in zip(
            self._labels[:3], (self.max_mb, self.purge_days, self.summary_turns), strict=True
        ):
            form.addRow(label, field)
        for label, (provider, model) in zip(self._labels[4:], self._choices.values(), strict=True):
            row = QHBoxLayout()
            row.addWidget(provider, 0)
            row.addWidget(model, 1)
            form.addRow(label, row)
        form.addRow("", self.send_dictation)
        folder = QHBoxLayout()
        folder.addWidget(self.folder_label, 1)
        folder.addWidget(self.open_folder)
        folder.addWidget(self.change_folder)
        form.addRow(self._labels[3], folder)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.addLayout(form)
        layout.addWidget(self.folder_hint)
        layout.addWidget(self.status)
        layout.addStretch(1)

    def _connect(self) -> None:
        self.auto_title.toggled.connect(self._on_auto_title)
        self.send_dictation.toggled.connect(self._on_send_dictation)
        self.max_mb.valueChanged.connect(self._on_max_mb)
        self.purge_days.valueChanged.connect(self._on_purge_days)
        self.summary_turns.valueChanged.connect(self._on_summary_turns)
        for key, (provider, model) in self._choices.items():
            provider.currentIndexChanged.connect(
                lambda index, field=model: field.setEnabled(index > 0)
            )
            provider.activated.connect(lambda _i, k=key: self._on_model_choice(k))
            model.editingFinished.connect(lambda k=key: self._on_model_choice(k))
        self.open_folder.clicked.connect(self._open_data_folder)
        self.change_folder.clicked.connect(self._choose_data_folder)

    async def load(self) -> None:
        """Show the stored values (without saving them back). Everything is
        read before any widget is touched: the dialog may have been closed
        (and its widgets deleted) while the reads were awaited."""
        values = (
            bool(await self._settings.get(AUTO_TITLE_KEY, True)),
            int(await self._settings.get(MAX_MB_KEY, 8)),
            int(await self._settings.get(PURGE_DAYS_KEY, 30)),
            int(await self._settings.get(SUMMARY_TURNS_KEY, 0)),
        )
        send_dictation = bool(await self._settings.get(SEND_DICTATION_KEY, False))
        if not alive(self):
            return
        widgets = (self.auto_title, self.max_mb, self.purge_days, self.summary_turns)
        blockers = [QSignalBlocker(w) for w in widgets]
        self.auto_title.setChecked(values[0])
        self.max_mb.setValue(values[1])
        self.purge_days.setValue(values[2])
        self.summary_turns.setValue(values[3])
        del blockers
        with QSignalBlocker(self.send_dictation):
            self.send_dictation.setChecked(send_dictation)
        pending = self._data_folder.pending() if self._data_folder else None
        if pending is not None:
            self._show_pending(pending)
        await self.reload_model_choices()

    async def reload_model_choices(self) -> None:
        """The image and speech-to-text rows again, as the providers are now
        (one added or removed); a model name typed but not saved yet stays."""
        providers = await self._providers.list_providers() if self._providers else []
        names = [p.name for p in providers if p.kind is ProviderKind.OPENAI]
        for key in self._choices:
            chosen = await self._settings.get(key)
            if not alive(self):  # Settings closed while it was read
                return
            self._show_model_choice(key, names, chosen)

    def _show_model_choice(self, key: str, names: list[str], chosen: object) -> None:
        """The OpenAI-compatible providers (the others have neither an image nor
        a transcription endpoint) and the model ``chosen`` under ``key`` — its
        provider marked removed when it is no longer configured."""
        combo, field = self._choices[key]
        shown = (str(combo.currentData() or ""), field.text())
        saved = chosen if isinstance(chosen, dict) else {}
        provider = str(saved.get("provider") or "")
        model = str(saved.get("model") or "")
        if shown[0] in names:  # saved, or chosen and being typed: kept as shown
            provider, model = shown
        with QSignalBlocker(combo):
            combo.clear()
            combo.addItem(self.tr("None"), "")
            for name in names:
                combo.addItem(name, name)
            if provider and provider not in names:
                combo.addItem(
                    self.tr("{provider} (provider removed)").format(provider=provider), provider
                )
            index = combo.findData(provider) if provider else 0
            combo.setCurrentIndex(max(index, 0))
        field.setText(model if index > 0 else "")
        field.setEnabled(index > 0)  # the blocker kept the signal from doing it

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

    @qasync.asyncSlot(bool)
    async def _on_send_dictation(self, checked: bool) -> None:
        await guarded(self, self._save(SEND_DICTATION_KEY, checked))

    @qasync.asyncSlot(int)
    async def _on_max_mb(self, value: int) -> None:
        await guarded(self, self._save(MAX_MB_KEY, value))

    @qasync.asyncSlot(int)
    async def _on_purge_days(self, value: int) -> None:
        await guarded(self, self._save(PURGE_DAYS_KEY, value))

    @qasync.asyncSlot(int)
    async def _on_summary_turns(self, value: int) -> None:
        await guarded(self, self._save(SUMMARY_TURNS_KEY, value))

    def _on_model_choice(self, key: str) -> None:
        # read now: editing ends as the dialog closes, and the task runs after
        combo, field = self._choices[key]
        provider = str(combo.currentData() or "")
        model = field.text().strip()
        value = {"provider": provider, "model": model} if provider and model else None
        self._save_model_choice(key, value)

    @qasync.asyncSlot(str, object)
    async def _save_model_choice(self, key: str, value: object) -> None:
        await guarded(self, self._save(key, value))

    def _open_data_folder(self) -> None:
        if self._data_dir is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._data_dir)))

    def _choose_data_folder(self) -> None:
        """Change…: pick a folder (a click: a fresh turn of the event loop),
        say what will happen at the next start, then record it. Choosing the
        current folder again cancels a switch not yet made."""
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        if self._data_folder is None:
            return
        start = str((self._data_dir or Path.home()).parent)
        chosen = QFileDialog.getExistingDirectory(self, self.tr("Choose a data folder"), start)
        if not chosen:
            return
        folder = Path(chosen)
        try:
            change = self._data_folder.plan(folder)
        except MiraError as exc:
            self.status.show_error(exc)
            return
        if not change.cancelled:
            if change.copy:
                text = self.tr(
                    "Copy your conversations, attachments and keys to {folder} when Mira next "
                    "starts, and use it from then on? The current folder is kept as it is."
                )
            else:
                text = self.tr(
                    "{folder} holds Mira's data already. Use it from Mira's next start? "
                    "The conversations there are used as they are; the current folder is kept."
                )
            buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
            answer = QMessageBox.question(
                self, self.tr("Change the data folder"), text.format(folder=change.folder), buttons
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.change_folder.setEnabled(False)
        self._change_task = asyncio.ensure_future(self._change_to(folder))

    async def _change_to(self, folder: Path) -> None:
        """Record the switch (a small file written at once: nothing is copied
        while Mira runs, so closing meanwhile leaves nothing half-done)."""
        assert self._data_folder is not None
        try:
            from ..i18n import current_language

            change = await guarded(
                self, self._data_folder.change_to(folder, language=current_language())
            )
        except MiraError as exc:
            if alive(self):
                self.status.show_error(exc)
                self.change_folder.setEnabled(True)
            return
        if change is None or not alive(self):
            return
        self.change_folder.setEnabled(True)
        if change.cancelled:
            self.status.show_ok(
                self.tr("The move to {folder} is cancelled: Mira keeps using this folder.").format(
                    folder=change.folder
                )
            )
        else:
            self._show_pending(change)

    def _show_pending(self, change: FolderChange) -> None:
        if change.copy:
            text = self.tr(
                "Mira will copy your data to {folder} when it next starts, and use it from "
                "then on. To stay here, choose the current folder again."
            )
        else:
            text = self.tr(
                "Mira will use the data in {folder} from its next start. To stay here, "
                "choose the current folder again."
            )
        self.status.show_ok(text.format(folder=change.folder))

    def _retranslate(self) -> None:
        self.auto_title.setText(
            self.tr("Name new conversations automatically (a short model call)")
        )
        texts = (
            self.tr("Attachment limit (MB per file)"),
            self.tr("Empty the trash after (days, 0 = never)"),
            self.tr("Refresh the context summary every (turns, 0 = off)"),
            self.tr("Data folder"),
            self.tr("Image model"),
            self.tr("Speech-to-text model"),
        )
        for label, text in zip(self._labels, texts, strict=True):
            label.setText(text)
        self.image_model.setPlaceholderText(self.tr("model, e.g. gpt-image-1"))
        self.image_provider.setToolTip(
            self.tr("Illustrated answers use this provider's image endpoint (OpenAI-compatible)")
        )
        self.stt_model.setPlaceholderText(self.tr("model, e.g. whisper-1"))
        self.send_dictation.setText(self.tr("Send dictated words at once"))
        self.send_dictation.setToolTip(
            self.tr(
                "The words are sent as soon as they are written down; with Read answers "
                "aloud (the ⋯ menu) the answer is spoken back: a conversation by voice"
            )
        )
        self.stt_provider.setToolTip(
            self.tr(
                "Dictation (the microphone beside the message box) is written down by this "
                "provider's /audio/transcriptions endpoint (OpenAI-compatible)"
            )
        )
        for combo, _field in self._choices.values():
            if combo.count():
                combo.setItemText(0, self.tr("None"))
        self.open_folder.setText(self.tr("Open"))
        self.change_folder.setText(self.tr("Change…"))
        self.folder_hint.setText(
            self.tr(
                "Another folder is used from Mira's next start. Starting Mira with "
                "--data-dir FOLDER or MIRA_DATA_DIR still picks the folder they name."
            )
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
