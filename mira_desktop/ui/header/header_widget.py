"""The bar above the conversation: the thread's title (elided to fit), the role picker
(``role_picker.py``), the knowledge-base picker (``ui/kb/kb_picker.py``), the model
picker and a menu button whose menu the window fills.

``ModelPickerWidget`` lists every configured model as "provider · model" and emits
``model_chosen(provider, model)`` only when the *user* picks one; programmatic changes
(``set_models``, ``set_current``) are silent. A thread whose model is no longer
configured still shows it, marked unavailable, rather than a model that will not be used.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from mira_desktop.core.models import ModelInfo

from ..kb.kb_picker import KbPickerButton
from ..plain_text import plain_tooltip
from .role_picker import RolePickerButton

log = logging.getLogger(__name__)

_KEY_ROLE = Qt.ItemDataRole.UserRole + 1
TITLE_MIN_WIDTH = 96
MODEL_PICKER_MIN_WIDTH = 120


class ElidedLabel(QLabel):
    """A one-line label that elides its text on the right instead of growing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def full_text(self) -> str:
        return self._full_text

    def set_full_text(self, text: str) -> None:
        self._full_text = text
        self.setToolTip(plain_tooltip(text))
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(0, self.width() - 4)
        self.setText(
            self.fontMetrics().elidedText(self._full_text, Qt.TextElideMode.ElideRight, width)
        )


class ModelPickerWidget(QComboBox):
    """Combo box of all configured models. Signal: ``model_chosen(provider, model)``."""

    model_chosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ModelPicker")
        # as wide as about 24 characters, not as the longest model name of
        # all (it took ~490 px of the header, the thread's title ~120 px);
        # a longer name is elided, and the list opens as wide as it needs
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(24)
        self._models: list[ModelInfo] = []
        self._current: tuple[str, str] | None = None
        self._has_providers = False
        self.activated.connect(self._on_activated)
        self._rebuild()

    def minimumSizeHint(self) -> QSize:
        # the current name is elided below its ~24 characters when the
        # header is short of room (a narrow window)
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), MODEL_PICKER_MIN_WIDTH), hint.height())

    def set_models(self, models: list[ModelInfo], *, has_providers: bool = False) -> None:
        """Replace the list; the current choice is kept (or shown as unavailable).
        ``has_providers``: providers are set up (an empty list then means
        their models are still to be fetched, not that a provider is missing)."""
        self._models = list(models)
        self._has_providers = has_providers
        self._rebuild()

    def set_current(self, provider: str, model: str) -> None:
        """Select ``provider``/``model`` without emitting ``model_chosen``."""
        self._current = (provider, model) if provider and model else None
        self._rebuild()

    def current_choice(self) -> tuple[str, str] | None:
        return self._current

    def _rebuild(self) -> None:
        self.blockSignals(True)
        try:
            self.clear()
            for info in self._models:
                label = info.display_name or info.name
                self._add(
                    self.tr("{provider} · {model}").format(
                        provider=info.provider_name, model=label
                    ),
                    info.provider_name,
                    info.name,
                )
            self._select_current()
        finally:
            self.blockSignals(False)

    def _add(self, text: str, provider: str, model: str) -> None:
        self.addItem(text)
        self.setItemData(self.count() - 1, (provider, model), _KEY_ROLE)
        self.setItemData(self.count() - 1, plain_tooltip(text), Qt.ItemDataRole.ToolTipRole)

    def _select_current(self) -> None:
        if not self._models and self._current is None:
            if self._has_providers:
                self.addItem(self.tr("No models — fetch them in Settings → Providers"))
            else:
                self.addItem(self.tr("No models — add a provider in Settings"))
            self.setEnabled(False)
            return
        self.setEnabled(True)
        if self._current is None:
            self.insertItem(0, self.tr("Choose a model"))
            self.setCurrentIndex(0)
            return
        for row in range(self.count()):
            if self.itemData(row, _KEY_ROLE) == self._current:
                self.setCurrentIndex(row)
                return
        provider, model = self._current
        text = self.tr("{provider} · {model} (unavailable)").format(provider=provider, model=model)
        self.insertItem(0, text)
        self.setItemData(0, self._current, _KEY_ROLE)
        self.setCurrentIndex(0)

    def _on_activated(self, row: int) -> None:
        key = self.itemData(row, _KEY_ROLE)
        if not key:
            return
        provider, model = key
        if (provider, model) == self._current:
            return
        log.debug("model chosen: %s / %s", provider, model)
        self._current = (provider, model)
        self._rebuild()
        self.model_chosen.emit(provider, model)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._rebuild()


class HeaderWidget(QWidget):
    """Title, role picker, model picker and menu button. Re-exposes
    ``model_chosen(provider, model)``; the role picker is ``role_picker``."""

    model_chosen = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Header")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._untitled = True
        self.title_label = ElidedLabel(self)
        self.title_label.setObjectName("ThreadTitle")
        # the pickers beside it shrink first: the title never collapses to nothing
        self.title_label.setMinimumWidth(TITLE_MIN_WIDTH)
        self.model_picker = ModelPickerWidget(self)
        self.role_picker = RolePickerButton(self)
        self.kb_picker = KbPickerButton(self)
        self.menu = QMenu(self)
        self.menu_button = QToolButton(self)
        self.menu_button.setObjectName("HeaderMenuButton")
        self.menu_button.setText("⋯")
        self.menu_button.setMenu(self.menu)
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._build_layout()
        self.model_picker.model_chosen.connect(self.model_chosen)
        self._retranslate()

    def _build_layout(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 10, 8)
        layout.setSpacing(10)
        layout.addWidget(self.title_label, 1)
        layout.addWidget(self.role_picker, 0)
        layout.addWidget(self.kb_picker, 0)
        layout.addWidget(self.model_picker, 0)
        layout.addWidget(self.menu_button, 0)

    def set_title(self, title: str | None) -> None:
        """Show ``title``; an empty title shows "New chat"."""
        self._untitled = not title
        self.title_label.set_full_text(title or self.tr("New chat"))

    def title(self) -> str:
        return self.title_label.full_text()

    def set_models(self, models: list[ModelInfo], *, has_providers: bool = False) -> None:
        self.model_picker.set_models(models, has_providers=has_providers)

    def set_current_model(self, provider: str, model: str) -> None:
        self.model_picker.set_current(provider, model)

    def _retranslate(self) -> None:
        self.menu_button.setToolTip(self.tr("More actions"))
        if self._untitled:
            self.title_label.set_full_text(self.tr("New chat"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
