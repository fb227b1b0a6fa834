"""``EmbeddingRow``: the optional embedding model of a knowledge base in the
manager (``kb_manager.py``) — a provider picker and a model picker filled from
the configured providers' models (the model box is editable: embedding models
are often not in a chat model list), Use and Turn off, and what the base uses
now. Without a model the base is searched by keywords only, which always works.

It only emits intents (``apply_requested(provider, model)``,
``off_requested()``); the dialog calls the service."""

from __future__ import annotations

import logging

from PySide6.QtCore import QLocale, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...core.knowledge import KnowledgeBaseStats
from ...core.models import ModelInfo

log = logging.getLogger(__name__)


class EmbeddingRow(QWidget):
    apply_requested = Signal(str, str)
    off_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("KbEmbeddingRow")
        self._models: list[ModelInfo] = []
        self._stats: KnowledgeBaseStats | None = None
        self.label = QLabel(self)
        self.provider_box = QComboBox(self)
        self.provider_box.setObjectName("KbEmbeddingProvider")
        self.model_box = QComboBox(self)
        self.model_box.setObjectName("KbEmbeddingModel")
        self.model_box.setEditable(True)
        self.model_box.setMinimumContentsLength(18)
        self.use_button = QPushButton(self)
        self.off_button = QPushButton(self)
        self.state = QLabel(self)
        self.state.setObjectName("KbEmbeddingState")
        self.state.setWordWrap(True)
        self.state.setProperty("muted", True)
        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.label)
        row.addWidget(self.provider_box)
        row.addWidget(self.model_box, 1)
        row.addWidget(self.use_button)
        row.addWidget(self.off_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.state)
        self.provider_box.currentIndexChanged.connect(self._fill_models)
        self.use_button.clicked.connect(self._use)
        self.off_button.clicked.connect(self.off_requested)
        self.retranslate()
        self.set_stats(None)

    def set_models(self, models: list[ModelInfo]) -> None:
        """The configured providers' models (the pickers' choices)."""
        self._models = list(models)
        current = self.provider_box.currentText()
        providers = list(dict.fromkeys(m.provider_name for m in self._models))
        self.provider_box.blockSignals(True)
        self.provider_box.clear()
        self.provider_box.addItems(providers)
        if current in providers:
            self.provider_box.setCurrentText(current)
        self.provider_box.blockSignals(False)
        self._fill_models()

    def set_stats(self, stats: KnowledgeBaseStats | None) -> None:
        """Show what the selected base uses (None: no base selected)."""
        self._stats = stats
        ref = stats.kb.embedding if stats else None
        if ref is not None:
            self.provider_box.setCurrentText(ref.provider)
            self.model_box.setCurrentText(ref.model)
        for widget in (self.provider_box, self.model_box, self.use_button):
            widget.setEnabled(stats is not None)
        self.off_button.setEnabled(ref is not None)
        self._show_state()

    def _fill_models(self) -> None:
        provider = self.provider_box.currentText()
        box = self.model_box
        listed = {box.itemText(i) for i in range(box.count())}
        typed = box.currentText()
        if typed in listed and "embed" not in typed.lower():
            typed = ""  # the box's own first entry (a chat model), not a choice
        box.clear()
        box.addItems([m.name for m in self._models if m.provider_name == provider])
        embed = next((i for i in range(box.count()) if "embed" in box.itemText(i).lower()), -1)
        if typed:
            box.setCurrentText(typed)
        elif embed >= 0:
            box.setCurrentIndex(embed)
        else:  # no embedding model listed: nothing proposed (a chat model cannot embed)
            box.setCurrentIndex(-1)
            box.setEditText("")

    def _use(self) -> None:
        provider, model = self.provider_box.currentText(), self.model_box.currentText().strip()
        if provider and model:
            self.apply_requested.emit(provider, model)

    def _show_state(self) -> None:
        stats = self._stats
        ref = stats.kb.embedding if stats else None
        if stats is None:
            self.state.setText("")
        elif ref is None:
            self.state.setText(
                self.tr("Keyword search only. An embedding model adds search by meaning.")
            )
        else:
            locale = QLocale()
            self.state.setText(
                self.tr("{model} by {provider}: {done} of {total} passages have vectors.").format(
                    model=ref.model,
                    provider=ref.provider,
                    done=locale.toString(stats.embedded_chunks),
                    total=locale.toString(stats.chunks),
                )
            )

    def retranslate(self) -> None:
        self.label.setText(self.tr("Embeddings:"))
        self.use_button.setText(self.tr("Use"))
        self.use_button.setToolTip(self.tr("Use this model for vectors and embed the passages"))
        self.off_button.setText(self.tr("Turn off"))
        editor = self.model_box.lineEdit()
        if editor is not None:
            editor.setPlaceholderText(self.tr("Embedding model"))
        self._show_state()
