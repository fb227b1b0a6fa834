"""Settings → Providers: the list of configured providers and the form to add, edit,
test and remove them, with "Fetch models".

All service calls are awaited in ``qasync.asyncSlot`` *methods* (never free functions:
qasync#177). While one runs the action buttons are disabled and the status line says
what is happening; its outcome — "Connected — 12 models available" or the error with
what to do next — stays inline. "Test connection" on a new or edited provider saves
it first, so it tests exactly what the form shows. Saving a new base URL on
another host while a key is saved asks first whether that key should go there
too (by default it is removed). Leaving a form with unsaved edits — another
provider chosen, Add, the dialog closed (:meth:`ProvidersTab.leave_form`) —
asks whether to save them first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import qasync
from PySide6.QtCore import QEvent, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QWidget,
)

from mira_desktop.core.models import ModelInfo, ProviderConfig
from mira_desktop.ui.dialogs.async_guard import alive, guarded, show_or_log
from mira_desktop.ui.dialogs.model_count import model_count_text, no_models_text
from mira_desktop.ui.dialogs.provider_form import ProviderForm
from mira_desktop.ui.dialogs.providers_layout import lay_out
from mira_desktop.ui.dialogs.saved_key import settle_saved_key
from mira_desktop.ui.dialogs.status_label import StatusLabel
from mira_desktop.ui.dialogs.unsaved import Choice, ask_to_save, soon

if TYPE_CHECKING:
    from mira_desktop.services.providers import ProviderService

log = logging.getLogger(__name__)

_NAME_ROLE = Qt.ItemDataRole.UserRole + 1


class ProvidersTab(QWidget):
    """Signal ``providers_changed()`` after any successful change or model fetch."""

    providers_changed = Signal()
    # built by ``providers_layout.lay_out``
    confirm_bar: QFrame
    confirm_label: QLabel
    confirm_remove_button: QPushButton
    cancel_remove_button: QPushButton

    def __init__(self, service: ProviderService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._providers: list[ProviderConfig] = []
        self._busy_depth = 0
        self.provider_list = QListWidget(self)
        self.provider_list.setMinimumWidth(180)
        self.provider_list.setMaximumWidth(240)
        self.add_button = QPushButton(self)
        self.remove_button = QPushButton(self)
        self.form = ProviderForm(self)
        self.save_button = QPushButton(self)
        self.save_button.setProperty("primary", True)
        self.test_button = QPushButton(self)
        self.fetch_button = QPushButton(self)
        self.status = StatusLabel(self)
        self.empty_hint = QLabel(self)
        self.empty_hint.setProperty("muted", True)
        self.empty_hint.setWordWrap(True)
        lay_out(self)
        self._connect()
        self._retranslate()
        secrets_file = service.secrets_file
        if secrets_file is None:
            self.form.set_keyring_description(service.keyring_description)
        else:  # worded here, in the interface's language
            self.form.set_keyring_description(
                self.tr(
                    "the file {path} (readable only by you; no system keyring was found)"
                ).format(path=secrets_file)
            )
        self._show_new_form()

    def _connect(self) -> None:
        self.provider_list.currentItemChanged.connect(self._on_current_changed)
        self.add_button.clicked.connect(self._on_add_clicked)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.cancel_remove_button.clicked.connect(self.confirm_bar.hide)
        self.confirm_remove_button.clicked.connect(self._on_remove_confirmed)
        self.save_button.clicked.connect(self._on_save_clicked)
        self.test_button.clicked.connect(self._on_test_clicked)
        self.fetch_button.clicked.connect(self._on_fetch_clicked)
        self.form.edited.connect(self._update_buttons)

    # ---- public API ---------------------------------------------------------
    def providers(self) -> list[ProviderConfig]:
        return list(self._providers)

    async def load(self, select: str | None = None) -> None:
        """Reload the list from the service and select ``select`` (or the first)."""
        self._providers = await self._service.list_providers()
        if not alive(self):  # Settings closed while the list was read
            return
        self.provider_list.blockSignals(True)
        self.provider_list.clear()
        for config in self._providers:
            item = QListWidgetItem(config.name, self.provider_list)
            item.setData(_NAME_ROLE, config.name)
            item.setToolTip(f"{config.kind} · {config.base_url}")
        self.provider_list.blockSignals(False)
        names = [c.name for c in self._providers]
        current = self.form.original()
        target = select or (current.name if current and current.name in names else None)
        if target is None and names and not self.form.has_user_edits():
            target = names[0]
        if target in names:
            self._select(target)
        elif not names and (current is not None or not self.form.has_user_edits()):
            # the provider shown is gone, or an untouched form: a fresh one of
            # its kind. A form typed into or pre-filled ("Add a provider…" on
            # the first-start screen opens it before this load ends) stays.
            self._show_new_form(self.form.kind() if current is None else "openai")
        self._update_buttons()

    def start_new(self, *, kind: str = "openai", name: str = "", base_url: str = "") -> None:
        """Open an empty (optionally pre-filled) form for a new provider."""
        self._show_new_form(kind)
        self.status.clear_status()
        if name or base_url:
            self.form.fill(name=name, kind=kind, base_url=base_url)
        self.form.name_edit.setFocus()

    async def save(self, *, fetch_new: bool = True) -> ProviderConfig | None:
        """Add or update the provider in the form; ``None`` (error shown) on
        failure, or once Settings was closed meanwhile (the provider is saved
        all the same: nothing is left to go on with). A provider just added has its models fetched at once (unless
        ``fetch_new`` is False: Test connection and Fetch models fetch anyway),
        so the model picker has something to offer."""
        values = self.form.values()
        original = self.form.original()
        with self._busy(self.tr("Saving…")):
            try:
                if original is None:
                    saved = await self._service.add_provider(
                        values.name, values.kind, values.base_url, values.api_key
                    )
                else:
                    saved = await self._service.update_provider(
                        original.name,
                        new_name=values.name if values.name != original.name else None,
                        kind=values.kind,
                        base_url=values.base_url,
                        api_key=values.api_key,
                    )
                await self.load(select=saved.name)
            except Exception as exc:  # shown inline; the dialog stays usable
                self._show_error(exc)
                return None
        if not alive(self):  # saved; the window hears it from the service
            return None
        self.status.show_ok(self.tr("Saved “{name}”.").format(name=saved.name))
        self.providers_changed.emit()
        if original is None and fetch_new:
            await self.fetch_models()
        return saved

    async def test_connection(self) -> list[ModelInfo] | None:
        name = await self._saved_name()
        if name is None:
            return None
        with self._busy(self.tr("Connecting to “{name}”…").format(name=name)):
            try:
                models = await self._service.test_connection(name)
            except Exception as exc:
                self._show_error(exc)
                return None
        if not alive(self):
            return None
        self._show_model_count(name, models, connected=True)
        self.providers_changed.emit()
        return models

    async def fetch_models(self) -> list[ModelInfo] | None:
        name = await self._saved_name()
        if name is None:
            return None
        with self._busy(self.tr("Fetching models from “{name}”…").format(name=name)):
            try:
                models = await self._service.fetch_models(name)
            except Exception as exc:
                self._show_error(exc)
                return None
        if not alive(self):  # fetched; the window hears it from the service
            return None
        self._show_model_count(name, models, connected=False)
        self.providers_changed.emit()
        return models

    async def remove_current(self) -> bool:
        original = self.form.original()
        self.confirm_bar.hide()
        if original is None:
            return False
        with self._busy(self.tr("Removing…")):
            try:
                await self._service.remove_provider(original.name)
                await self.load()
            except Exception as exc:
                self._show_error(exc)
                return False
        if not alive(self):  # removed; the window hears it from the service
            return True
        self.status.show_ok(self.tr("Removed “{name}”.").format(name=original.name))
        self.providers_changed.emit()
        return True

    # ---- slots (async work lives in methods: qasync#177) ---------------------
    # A click first settles where a saved key goes (a question: asked from the
    # click, never from a task), then starts the work.
    def _on_save_clicked(self) -> None:
        if self.settle_saved_key():
            self._save_slot()

    def _on_test_clicked(self) -> None:
        if self.settle_saved_key():
            self._test_slot()

    def _on_fetch_clicked(self) -> None:
        if self.settle_saved_key():
            self._fetch_slot()

    @qasync.asyncSlot()
    async def _save_slot(self) -> None:
        await guarded(self, self.save())

    @qasync.asyncSlot()
    async def _test_slot(self) -> None:
        await guarded(self, self.test_connection())

    @qasync.asyncSlot()
    async def _fetch_slot(self) -> None:
        await guarded(self, self.fetch_models())

    def settle_saved_key(self) -> bool:
        """Before the form is saved: where its saved key goes when the base URL
        moved to another host (asked; see ``saved_key.py``). False: cancelled."""
        return settle_saved_key(self, self.form)

    @qasync.asyncSlot()
    async def _on_remove_confirmed(self) -> None:
        await guarded(self, self.remove_current())

    def _on_add_clicked(self) -> None:
        self.leave_form(self.start_new)

    def _on_remove_clicked(self) -> None:
        original = self.form.original()
        if original is None:
            return
        self.confirm_label.setText(
            self.tr("Remove “{name}”? Its model list is forgotten; conversations are kept.").format(
                name=original.name
            )
        )
        self.confirm_bar.show()

    def _on_current_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is None:
            return
        name = current.data(_NAME_ROLE)
        shown = self.form.original()
        if self.form.has_unsaved_changes() and (shown is None or shown.name != name):
            # asked once the click is handled; until answered the form stays
            soon(self, lambda: self._leave_for(name))
            return
        config = next((c for c in self._providers if c.name == name), None)
        self.form.set_provider(config)
        self.status.clear_status()
        self.confirm_bar.hide()
        self._update_buttons()

    def _leave_for(self, name: str) -> None:
        shown = self.form.original()
        self._select_quietly(shown.name if shown is not None else None)
        self.leave_form(lambda: self._select(name))

    # ---- unsaved edits --------------------------------------------------------
    def has_unsaved_changes(self) -> bool:
        return self.form.has_unsaved_changes()

    def leave_form(self, then: Callable[[], None]) -> None:
        """Call ``then()`` once the form may be left: at once when nothing is
        unsaved, else after asking — Save (then only if saving worked),
        Discard (the form shows the saved provider again), Cancel (never)."""
        if not self.form.has_unsaved_changes():
            then()
            return
        original = self.form.original()
        name = original.name if original is not None else self.form.values().name
        what = f"“{name}”" if name else self.tr("the new provider")
        choice = ask_to_save(self, what)
        if choice is Choice.CANCEL:
            return
        if choice is Choice.DISCARD:
            self.form.set_provider(original, kind=self.form.kind())
            self._update_buttons()
            then()
        elif self.settle_saved_key():
            self._save_then(then)

    @qasync.asyncSlot(object)
    async def _save_then(self, then: Callable[[], None]) -> None:
        if await guarded(self, self.save()) is not None:
            then()

    # ---- helpers ------------------------------------------------------------
    async def _saved_name(self) -> str | None:
        """Name of the provider to talk to, saving the form first when it changed."""
        original = self.form.original()
        if original is not None and not self.form.is_dirty():
            return original.name
        saved = await self.save(fetch_new=False)
        return saved.name if saved is not None else None

    def _show_model_count(self, name: str, models: list[ModelInfo], *, connected: bool) -> None:
        if models:
            self.status.show_ok(model_count_text(len(models), connected=connected))
            return
        config = next((c for c in self._providers if c.name == name), None)
        kind = str(config.kind) if config is not None else ""
        self.status.show_error(no_models_text(name, kind))

    def _select(self, name: str) -> None:
        for row in range(self.provider_list.count()):
            item = self.provider_list.item(row)
            if item.data(_NAME_ROLE) == name:
                with QSignalBlocker(self.provider_list):
                    self.provider_list.setCurrentItem(item)
                config = next((c for c in self._providers if c.name == name), None)
                self.form.set_provider(config)
                self.status.clear_status()
                self.confirm_bar.hide()
                self._update_buttons()
                return

    def _select_quietly(self, name: str | None) -> None:
        """Show ``name`` (None: none) as chosen in the list, the form untouched."""
        item = next(
            (
                self.provider_list.item(r)
                for r in range(self.provider_list.count())
                if self.provider_list.item(r).data(_NAME_ROLE) == name
            ),
            None,
        )
        with QSignalBlocker(self.provider_list):
            # Qt's setCurrentItem(item) is setCurrentRow(row(item)); -1: none
            self.provider_list.setCurrentRow(-1 if item is None else self.provider_list.row(item))
            if item is None:
                self.provider_list.clearSelection()

    def _show_new_form(self, kind: str = "openai") -> None:
        self.provider_list.clearSelection()
        self.provider_list.setCurrentRow(-1)  # no current provider
        self.form.set_provider(None, kind=kind)
        self.confirm_bar.hide()
        self._update_buttons()

    @contextmanager
    def _busy(self, text: str) -> Iterator[None]:
        self._busy_depth += 1
        self.status.show_busy(text)
        self._update_buttons()
        try:
            yield
        finally:
            self._busy_depth -= 1
            if alive(self):  # Settings may have been closed while it awaited
                self._update_buttons()

    def _show_error(self, error: Exception) -> None:
        """Inline; logged instead when Settings was closed while it awaited."""
        show_or_log(self, error, self.status.show_error, error)

    def _update_buttons(self) -> None:
        idle = self._busy_depth == 0
        has_original = self.form.original() is not None
        for button in (self.save_button, self.test_button, self.fetch_button, self.add_button):
            button.setEnabled(idle)
        self.remove_button.setEnabled(idle and has_original)
        self.confirm_remove_button.setEnabled(idle)
        self.empty_hint.setVisible(not self._providers)

    def _retranslate(self) -> None:
        self.add_button.setText(self.tr("Add"))
        self.remove_button.setText(self.tr("Remove"))
        self.save_button.setText(self.tr("Save"))
        self.test_button.setText(self.tr("Test connection"))
        self.fetch_button.setText(self.tr("Fetch models"))
        self.confirm_remove_button.setText(self.tr("Remove"))
        self.cancel_remove_button.setText(self.tr("Cancel"))
        self.empty_hint.setText(
            self.tr(
                "No providers yet. Fill in the form to add one — Ollama on this computer "
                "needs no API key."
            )
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
