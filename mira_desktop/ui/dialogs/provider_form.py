"""The fields of one provider (name, kind, base URL, API key) and what they mean.

Pure form: no service calls. It knows each kind's default base URL (shown as the
placeholder and used when the field is left empty), shows a hint per kind (LM Studio,
OpenRouter…), and reports whether the user changed anything since ``set_provider``.
API keys are typed into a password field and never read back: an existing key is
described as saved, leaving the field empty keeps it, and "Remove the saved key"
deletes it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QSignalBlocker, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from mira_desktop.core.models import ProviderConfig, ProviderKind
from mira_desktop.ui.dialogs.form_rows import add_row, hint_label

log = logging.getLogger(__name__)

DEFAULT_BASE_URLS = {
    ProviderKind.OPENAI: "http://localhost:11434/v1",
    ProviderKind.OLLAMA: "http://localhost:11434",
    ProviderKind.ANTHROPIC: "https://api.anthropic.com",
}
KIND_ORDER = (ProviderKind.OPENAI, ProviderKind.OLLAMA, ProviderKind.ANTHROPIC)


@dataclass(frozen=True, slots=True)
class ProviderFormValues:
    name: str
    kind: str
    base_url: str
    api_key: str | None  # None: keep the stored key; "": remove it


class ProviderForm(QWidget):
    """Provider fields. Signal ``edited()`` fires on any user change."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._original: ProviderConfig | None = None
        self._keyring = ""
        self._touched = False
        self._baseline: ProviderFormValues | None = None  # the values as shown
        self.name_edit = QLineEdit(self)
        self.kind_combo = QComboBox(self)
        for kind in KIND_ORDER:
            self.kind_combo.addItem("", str(kind))
        self.url_edit = QLineEdit(self)
        self.url_hint = hint_label(self)
        self.key_edit = QLineEdit(self)
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.remove_key_check = QCheckBox(self)
        self.remove_key_check.setObjectName("RemoveSavedKey")
        self.remove_key_check.hide()
        self.key_hint = hint_label(self)
        self._layout = QFormLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setVerticalSpacing(10)
        self._rows = [QLabel(self) for _ in range(4)]
        add_row(self._layout, self._rows[0], self.name_edit)
        add_row(self._layout, self._rows[1], self.kind_combo)
        add_row(self._layout, self._rows[2], self.url_edit, self.url_hint)
        add_row(self._layout, self._rows[3], self._key_row(), self.key_hint)
        for edit in (self.name_edit, self.url_edit, self.key_edit):
            edit.textEdited.connect(self._mark_dirty)
        self.kind_combo.activated.connect(self._on_kind_activated)
        self.remove_key_check.toggled.connect(self._on_remove_key_toggled)
        self._retranslate()

    def _key_row(self) -> QWidget:
        row = QWidget(self)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.key_edit, 1)
        layout.addWidget(self.remove_key_check)
        return row

    # ---- public API ---------------------------------------------------------
    def original(self) -> ProviderConfig | None:
        """The provider being edited, or ``None`` for a new one."""
        return self._original

    def is_new(self) -> bool:
        return self._original is None

    def is_dirty(self) -> bool:
        """True when the form holds something not saved yet (a new provider or edits)."""
        return self._original is None or self._touched

    def has_user_edits(self) -> bool:
        return self._touched

    def has_unsaved_changes(self) -> bool:
        """Whether the fields differ from what ``set_provider`` showed (a new
        provider's: from an empty form)."""
        return self._baseline is not None and self.values() != self._baseline

    def set_keyring_description(self, description: str) -> None:
        self._keyring = description
        self._update_hints()

    def set_provider(self, config: ProviderConfig | None, *, kind: str = "openai") -> None:
        """Show ``config`` for editing, or empty fields for a new provider of ``kind``."""
        self._original = config
        self.name_edit.setText(config.name if config else "")
        self._select_kind(str(config.kind) if config else kind)
        self.url_edit.setText(config.base_url if config else "")
        self.key_edit.clear()
        with QSignalBlocker(self.remove_key_check):
            self.remove_key_check.setChecked(False)
        self.key_edit.setEnabled(True)
        self.remove_key_check.setVisible(self.has_saved_key())
        self._touched = False
        self._update_hints()
        self._baseline = self.values()

    def fill(self, *, name: str = "", kind: str | None = None, base_url: str = "") -> None:
        """Pre-fill fields (e.g. "Add Ollama" from the welcome panel)."""
        if kind:
            self._select_kind(kind)
        if name:
            self.name_edit.setText(name)
        if base_url:
            self.url_edit.setText(base_url)
        self._mark_dirty()
        self._update_hints()

    def kind(self) -> str:
        return str(self.kind_combo.currentData())

    def values(self) -> ProviderFormValues:
        kind = self.kind()
        url = self.url_edit.text().strip() or DEFAULT_BASE_URLS[ProviderKind(kind)]
        key: str | None = self.key_edit.text().strip() or None
        if self.remove_key_check.isChecked():
            key = ""
        return ProviderFormValues(
            name=self.name_edit.text().strip(), kind=kind, base_url=url, api_key=key
        )

    def has_saved_key(self) -> bool:
        """Whether the provider being edited has a key saved."""
        return self._original is not None and self._original.has_key

    def remove_saved_key(self) -> None:
        """Tick "Remove the saved key" (the saved key goes with the next save)."""
        self.remove_key_check.setChecked(True)

    def mark_saved(self, config: ProviderConfig) -> None:
        self.set_provider(config)

    # ---- behaviour ----------------------------------------------------------
    def _select_kind(self, kind: str) -> None:
        row = self.kind_combo.findData(kind)
        self.kind_combo.setCurrentIndex(max(row, 0))

    def _on_kind_activated(self, _row: int) -> None:
        # A URL still equal to another kind's default follows the new kind.
        if self.url_edit.text().strip() in DEFAULT_BASE_URLS.values():
            self.url_edit.clear()
        self._mark_dirty()
        self._update_hints()

    def _on_remove_key_toggled(self, checked: bool) -> None:
        if checked:
            self.key_edit.clear()
        self.key_edit.setEnabled(not checked)
        self._mark_dirty()
        self._update_hints()

    def _mark_dirty(self, *_args: object) -> None:
        self._touched = True
        self.edited.emit()

    def _update_hints(self) -> None:
        kind = ProviderKind(self.kind())
        self.url_edit.setPlaceholderText(DEFAULT_BASE_URLS[kind])
        hints = {
            ProviderKind.OPENAI: self.tr(
                "Any OpenAI-compatible server. Ollama: http://localhost:11434/v1 · "
                "LM Studio: http://localhost:1234/v1 · OpenAI: https://api.openai.com/v1 · "
                "OpenRouter: https://openrouter.ai/api/v1. Leave empty for the default."
            ),
            ProviderKind.OLLAMA: self.tr(
                "Ollama's own API. Start Ollama on this computer and keep the default."
            ),
            ProviderKind.ANTHROPIC: self.tr("Anthropic's Messages API. An API key is required."),
        }
        self.url_hint.setText(hints[kind])
        if self.remove_key_check.isChecked():
            self.key_edit.setPlaceholderText(self.tr("Removed when you save"))
        elif self.has_saved_key():
            self.key_edit.setPlaceholderText(self.tr("Saved — type a new key to replace it"))
        elif kind is ProviderKind.ANTHROPIC:
            self.key_edit.setPlaceholderText(self.tr("Required"))
        else:
            self.key_edit.setPlaceholderText(self.tr("Optional for local servers"))
        where = self._keyring or self.tr("the system keyring")
        self.key_hint.setText(
            self.tr("Keys are stored in {where}, never in Mira's database.").format(where=where)
        )

    def _retranslate(self) -> None:
        labels = (self.tr("Name"), self.tr("Kind"), self.tr("Base URL"), self.tr("API key"))
        for label, text in zip(self._rows, labels, strict=True):
            label.setText(text)
        self.name_edit.setPlaceholderText(self.tr("e.g. Ollama, LM Studio, OpenRouter"))
        self.remove_key_check.setText(self.tr("Remove the saved key"))
        self.remove_key_check.setToolTip(
            self.tr("Delete this provider's API key when you save (to use it without one)")
        )
        names = (self.tr("OpenAI-compatible"), self.tr("Ollama"), self.tr("Anthropic"))
        for row, name in enumerate(names):
            self.kind_combo.setItemText(row, name)
        self._update_hints()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
