"""Settings → Models: per-model settings of every saved model (PRODUCT.md §12) —
context window, vision flag, tier (fast / standard / reasoning, used when a retry
escalates), the pre-turn compaction threshold (a share of the window, 0–1; empty
means off) and how hard the model reasons (the server's default, off, low, medium,
high, with what this kind of server is sent). The list comes from the provider
service; saving goes back through it. A reload of the list (a provider added,
a model list fetched) keeps the model being edited and what was typed into
its form; choosing another model, or closing the dialog, asks first whether
to save such edits (:meth:`ModelsTab.leave_form`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import qasync
from PySide6.QtCore import QEvent, QLocale, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.models import ModelInfo, ModelTier, ProviderKind, Reasoning
from mira_desktop.ui.dialogs.async_guard import alive, guarded, show_or_log
from mira_desktop.ui.dialogs.form_rows import add_row, hint_label
from mira_desktop.ui.dialogs.status_label import StatusLabel
from mira_desktop.ui.dialogs.unsaved import Choice, ask_to_save, soon

if TYPE_CHECKING:
    from mira_desktop.services.providers import ProviderService

log = logging.getLogger(__name__)

_KEY_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_CONTEXT_WINDOW = 10_000_000


def parse_threshold(text: str) -> float | None:
    """ "" → None (off); "0.8" / "0,8" / "80%" → 0.8. Raises ValueError outside 0–1."""
    text = text.strip().replace(",", ".")
    if not text:
        return None
    value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    if not 0 <= value <= 1:
        raise ValueError(text)
    return value


class ModelsTab(QWidget):
    """Signal ``models_changed()`` after a model's settings were saved."""

    models_changed = Signal()

    def __init__(self, service: ProviderService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._models: list[ModelInfo] = []
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setClearButtonEnabled(True)
        self.model_list = QListWidget(self)
        self.model_list.setMinimumWidth(240)
        self.model_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.model_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.title_label = QLabel(self)
        self.title_label.setObjectName("ThreadTitle")
        self.title_label.setWordWrap(True)
        self.window_spin = QSpinBox(self)
        self.window_spin.setRange(0, MAX_CONTEXT_WINDOW)
        self.window_spin.setSingleStep(1024)
        self.window_spin.setGroupSeparatorShown(True)
        self.vision_check = QCheckBox(self)
        self.tier_combo = QComboBox(self)
        for value in ("", *(str(t) for t in ModelTier)):
            self.tier_combo.addItem("", value)
        self.threshold_edit = QLineEdit(self)
        validator = QDoubleValidator(0.0, 1.0, 3, self.threshold_edit)
        validator.setLocale(QLocale.c())  # "0.8" in every UI language
        self.threshold_edit.setValidator(validator)
        self.threshold_hint = hint_label(self)
        self.reasoning_combo = QComboBox(self)
        for value in ("", *(str(level) for level in Reasoning)):
            self.reasoning_combo.addItem("", value)
        self.reasoning_hint = hint_label(self)
        self._kinds: dict[str, ProviderKind] = {}
        #: the form's values as last shown or saved (unsaved edits differ)
        self._baseline: tuple[object, ...] | None = None
        self._shown_key: tuple[str, str] | None = None  # the model in the form
        self.save_button = QPushButton(self)
        self.save_button.setProperty("primary", True)
        self.status = StatusLabel(self)
        self.empty_label = QLabel(self)
        self.empty_label.setProperty("muted", True)
        self.empty_label.setWordWrap(True)
        self._build_layout()
        self.filter_edit.textChanged.connect(self._apply_filter)
        self.model_list.currentItemChanged.connect(self._on_current_changed)
        self.save_button.clicked.connect(self._on_save_clicked)
        self._retranslate()
        self._show_model(None)

    def _build_layout(self) -> None:
        left = QVBoxLayout()
        left.addWidget(self.filter_edit)
        left.addWidget(self.model_list, 1)
        self.form_layout = QFormLayout()
        self.form_layout.setVerticalSpacing(10)
        self._labels = [QLabel(self) for _ in range(5)]
        add_row(self.form_layout, self._labels[0], self.window_spin)
        add_row(self.form_layout, self._labels[1], self.vision_check)
        add_row(self.form_layout, self._labels[2], self.tier_combo)
        add_row(self.form_layout, self._labels[3], self.threshold_edit, self.threshold_hint)
        add_row(self.form_layout, self._labels[4], self.reasoning_combo, self.reasoning_hint)
        right = QVBoxLayout()
        right.addWidget(self.empty_label)
        right.addWidget(self.title_label)
        right.addLayout(self.form_layout)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addStretch(1)
        right.addLayout(buttons)
        right.addWidget(self.status)
        right.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.setSpacing(16)
        layout.addLayout(left)
        layout.addLayout(right, 1)

    # ---- public API ---------------------------------------------------------
    def models(self) -> list[ModelInfo]:
        return list(self._models)

    def has_unsaved_changes(self) -> bool:
        """Whether the form holds edits of the shown model not saved yet."""
        return self._baseline is not None and self._form_values() != self._baseline

    async def load(self) -> None:
        current = self._current_key()
        keep_form = self.has_unsaved_changes()
        self._models = await self._service.list_models(None)
        self._kinds = {p.name: p.kind for p in await self._service.list_providers()}
        if not alive(self):  # Settings closed while the lists were read
            return
        self.model_list.blockSignals(True)
        self.model_list.clear()
        for info in self._models:
            text = self.tr("{provider} · {model}").format(
                provider=info.provider_name, model=info.display_name or info.name
            )
            item = QListWidgetItem(text, self.model_list)
            item.setData(_KEY_ROLE, (info.provider_name, info.name))
        self.model_list.blockSignals(False)
        self._apply_filter(self.filter_edit.text())
        if keep_form and self._current_model_of(current) is not None:
            self._select_quietly(current)  # the form keeps what was typed
        else:
            self._select(current)

    def select_model(self, provider: str, model: str) -> None:
        self._select((provider, model))

    async def save_current(self) -> ModelInfo | None:
        info = self._current_model()
        if info is None:
            return None
        try:
            threshold = parse_threshold(self.threshold_edit.text())
        except ValueError:
            self.status.show_error(
                self.tr("The compaction threshold is a number from 0 to 1, e.g. 0.8 (or empty).")
            )
            return None
        self.save_button.setEnabled(False)
        self.status.show_busy(self.tr("Saving…"))
        try:
            saved = await self._service.update_model_settings(
                info.provider_name,
                info.name,
                context_window=self.window_spin.value() or None,
                vision=self.vision_check.isChecked(),
                tier=self.tier_combo.currentData() or None,
                compaction_threshold=threshold,
                reasoning=self.reasoning_combo.currentData() or None,
            )
        except Exception as exc:
            show_or_log(self, exc, self.status.show_error, exc)
            return None
        finally:
            if alive(self):  # Settings may have been closed while it saved
                self.save_button.setEnabled(True)
        if not alive(self):  # saved; nothing left to show it in
            return None
        self._models = [saved if self._key(m) == self._key(info) else m for m in self._models]
        self._baseline = self._form_values()
        self.status.show_ok(self.tr("Saved settings of {model}.").format(model=info.name))
        self.models_changed.emit()
        return saved

    @qasync.asyncSlot()
    async def _on_save_clicked(self) -> None:
        await guarded(self, self.save_current())

    def leave_form(self, then: Callable[[], None]) -> None:
        """Call ``then()`` once the form may be left: at once when nothing is
        unsaved, else after asking — Save (then only if saving worked),
        Discard (the saved settings are shown again), Cancel (never)."""
        info = self._current_model_of(self._shown_key)
        if info is None or not self.has_unsaved_changes():
            then()
            return
        what = f"“{info.provider_name} · {info.display_name or info.name}”"
        choice = ask_to_save(self, what)
        if choice is Choice.DISCARD:
            self._show_model(info)
            then()
        elif choice is Choice.SAVE:
            self._save_then(then)

    @qasync.asyncSlot(object)
    async def _save_then(self, then: Callable[[], None]) -> None:
        if await guarded(self, self.save_current()) is not None:
            then()

    # ---- helpers ------------------------------------------------------------
    @staticmethod
    def _key(info: ModelInfo) -> tuple[str, str]:
        return (info.provider_name, info.name)

    def _current_key(self) -> tuple[str, str] | None:
        item = self.model_list.currentItem()
        return tuple(item.data(_KEY_ROLE)) if item is not None else None  # type: ignore[return-value]

    def _current_model(self) -> ModelInfo | None:
        return self._current_model_of(self._current_key())

    def _current_model_of(self, key: tuple[str, str] | None) -> ModelInfo | None:
        return next((m for m in self._models if self._key(m) == key), None)

    def _select_quietly(self, key: tuple[str, str] | None) -> None:
        """Select ``key`` in the list without showing it again in the form."""
        item = next(
            (
                self.model_list.item(r)
                for r in range(self.model_list.count())
                if tuple(self.model_list.item(r).data(_KEY_ROLE)) == key
            ),
            None,
        )
        with QSignalBlocker(self.model_list):
            # Qt's setCurrentItem(item) is setCurrentRow(row(item)); -1: none
            self.model_list.setCurrentRow(-1 if item is None else self.model_list.row(item))
        self.empty_label.setVisible(not self._models)

    def _form_values(self) -> tuple[object, ...]:
        return (
            self.window_spin.value(),
            self.vision_check.isChecked(),
            self.tier_combo.currentData(),
            self.threshold_edit.text().strip(),
            self.reasoning_combo.currentData(),
        )

    def _select(self, key: tuple[str, str] | None) -> None:
        rows = range(self.model_list.count())
        items = [self.model_list.item(r) for r in rows]
        visible = [i for i in items if not i.isHidden()]
        chosen = next((i for i in items if tuple(i.data(_KEY_ROLE)) == key), None)
        chosen = chosen or (visible[0] if visible else None)
        with QSignalBlocker(self.model_list):
            self.model_list.setCurrentRow(-1 if chosen is None else self.model_list.row(chosen))
        self._show_model(self._current_model())

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.model_list.count()):
            item = self.model_list.item(row)
            item.setHidden(bool(needle) and needle not in item.text().lower())

    def _on_current_changed(self, _current: object, _previous: object) -> None:
        key = self._current_key()
        if self.has_unsaved_changes() and key != self._shown_key:
            soon(self, lambda: self._leave_for(key))  # asked once the click is handled
            return
        self.status.clear_status()
        self._show_model(self._current_model())

    def _leave_for(self, key: tuple[str, str] | None) -> None:
        self._select_quietly(self._shown_key)
        self.leave_form(lambda: self._select(key))

    def _show_model(self, info: ModelInfo | None) -> None:
        self._shown_key = self._key(info) if info is not None else None
        editable = info is not None
        widgets = (
            self.window_spin,
            self.vision_check,
            self.tier_combo,
            self.threshold_edit,
            self.reasoning_combo,
        )
        for widget in widgets:
            widget.setEnabled(editable)
        self.save_button.setEnabled(editable)
        self.empty_label.setVisible(not self._models)
        self.title_label.setText(
            f"{info.provider_name} · {info.display_name or info.name}" if info else ""
        )
        if info is None:
            self._baseline = None
            return
        self.window_spin.setValue(info.context_window or 0)
        self.vision_check.setChecked(info.vision)
        self.tier_combo.setCurrentIndex(max(0, self.tier_combo.findData(str(info.tier or ""))))
        threshold = info.compaction_threshold
        self.threshold_edit.setText("" if threshold is None else f"{threshold:g}")
        self._show_reasoning(info)
        self._baseline = self._form_values()

    def _kind(self, info: ModelInfo | None) -> ProviderKind | None:
        return self._kinds.get(info.provider_name) if info is not None else None

    def _show_reasoning(self, info: ModelInfo) -> None:
        """The model's level and what the levels mean for this kind of server."""
        level = str(info.reasoning or "")
        self.reasoning_combo.setCurrentIndex(max(0, self.reasoning_combo.findData(level)))
        self.reasoning_hint.setText(self._reasoning_hint(self._kind(info)))

    def _reasoning_hint(self, kind: ProviderKind | None) -> str:
        if kind is ProviderKind.ANTHROPIC:
            return self.tr(
                "Extended thinking with a budget of 2,048 / 8,192 / 16,384 tokens, added to "
                "the answer's room (Claude 4.6 and later: adaptive thinking at that effort). "
                "Off, or the default: no thinking."
            )
        if kind is ProviderKind.OLLAMA:
            return self.tr(
                "Sent as “think”: off turns a thinking model's reasoning off, a level turns "
                "it on (gpt-oss takes the level itself; it cannot stop, off is low)."
            )
        if kind is ProviderKind.OPENAI:
            return self.tr(
                "Sent as “reasoning_effort” (reasoning models, gpt-oss). These servers share "
                "no way to turn reasoning off: off is sent as low."
            )
        return ""

    def _retranslate(self) -> None:
        self.filter_edit.setPlaceholderText(self.tr("Filter models"))
        labels = (
            self.tr("Context window"),
            self.tr("Vision"),
            self.tr("Tier"),
            self.tr("Compact before sending at"),
            self.tr("Reasoning effort"),
        )
        for label, text in zip(self._labels, labels, strict=True):
            label.setText(text)
        self.window_spin.setSpecialValueText(self.tr("Unknown"))
        self.window_spin.setSuffix(self.tr(" tokens"))
        self.vision_check.setText(self.tr("Understands images"))
        tiers = (self.tr("Not set"), self.tr("Fast"), self.tr("Standard"), self.tr("Reasoning"))
        for row, text in enumerate(tiers):
            self.tier_combo.setItemText(row, text)
        self.threshold_edit.setPlaceholderText(self.tr("Off"))
        levels = (
            self.tr("Server's default"),
            self.tr("Off"),
            self.tr("Low"),
            self.tr("Medium"),
            self.tr("High"),
        )
        for row, text in enumerate(levels):
            self.reasoning_combo.setItemText(row, text)
        info = self._current_model()
        self.reasoning_hint.setText(self._reasoning_hint(self._kind(info)))
        self.threshold_hint.setText(
            self.tr(
                "Share of the context window (0–1, e.g. 0.8). When a message would go past "
                "it, older turns are summarised first. Empty: off."
            )
        )
        self.save_button.setText(self.tr("Save"))
        self.empty_label.setText(
            self.tr("No models yet. Add a provider, then press “Fetch models”.")
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
