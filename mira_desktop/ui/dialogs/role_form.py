"""``RoleForm``: the fields of one role (PRODUCT.md §1) — name, description,
persona, world view, scenario, examples, style, constraints, and the numeric
parameters temperature, top-p and max tokens, each of which can be left to
the model's default. It only shows and collects values; ``RoleService``
validates and saves them (the role dialog does that)."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from mira_desktop.core.models import Role
from mira_desktop.services.roles import MAX_NAME_LENGTH, TEXT_FIELDS

log = logging.getLogger(__name__)

#: text fields with several lines, and how many lines each shows
_AREAS = {
    "persona": 3,
    "world_view": 2,
    "scenario": 2,
    "examples": 3,
    "style": 2,
    "constraints": 2,
}
MAX_TOKENS_LIMIT = 1_000_000


class RoleForm(QWidget):
    """Signal: ``edited()`` whenever a field changes."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RoleForm")
        self.name_edit = QLineEdit(self)
        self.name_edit.setObjectName("RoleName")
        self.name_edit.setMaxLength(MAX_NAME_LENGTH)
        self.description_edit = QLineEdit(self)
        self.description_edit.setObjectName("RoleDescription")
        self.areas: dict[str, QPlainTextEdit] = {}
        for field, lines in _AREAS.items():
            area = QPlainTextEdit(self)
            area.setObjectName(f"Role_{field}")
            area.setTabChangesFocus(True)
            area.setFixedHeight(area.fontMetrics().lineSpacing() * lines + 18)
            area.textChanged.connect(self.edited)
            self.areas[field] = area
        self.temperature = self._double_spin("RoleTemperature", 2.0, 0.1)
        self.top_p = self._double_spin("RoleTopP", 1.0, 0.05)
        self.max_tokens = QSpinBox(self)
        self.max_tokens.setObjectName("RoleMaxTokens")
        self.max_tokens.setRange(0, MAX_TOKENS_LIMIT)
        self.max_tokens.setSingleStep(256)
        self.max_tokens.valueChanged.connect(self.edited)
        self.name_edit.textChanged.connect(self.edited)
        self.description_edit.textChanged.connect(self.edited)
        self._labels: dict[str, QLabel] = {}
        self._build_layout()
        self._retranslate()

    def _double_spin(self, name: str, high: float, step: float) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(self)
        spin.setObjectName(name)
        spin.setDecimals(2)
        spin.setRange(-step, high)  # the minimum means "the model's default"
        spin.setSingleStep(step)
        spin.setValue(-step)
        spin.valueChanged.connect(self.edited)
        return spin

    def _build_layout(self) -> None:
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setVerticalSpacing(8)
        rows: dict[str, QWidget] = {"name": self.name_edit, "description": self.description_edit}
        numbers: dict[str, QWidget] = {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
        }
        for key, widget in {**rows, **self.areas, **numbers}.items():
            label = QLabel(self)
            label.setBuddy(widget)
            self._labels[key] = label
        for key, widget in rows.items():
            form.addRow(self._labels[key], widget)
        # The numeric parameters share one row (labels above), near the top where they are seen.
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(2)
        for column, (key, widget) in enumerate(numbers.items()):
            self._labels[key].setProperty("muted", True)
            grid.addWidget(self._labels[key], 0, column, Qt.AlignmentFlag.AlignBottom)
            grid.addWidget(widget, 1, column)
            grid.setColumnStretch(column, 1)
        self._labels["parameters"] = QLabel(self)
        form.addRow(self._labels["parameters"], grid)
        for key, widget in self.areas.items():
            form.addRow(self._labels[key], widget)

    # ---- values --------------------------------------------------------------------
    def set_role(self, role: Role | None) -> None:
        """Show ``role`` (``None``: an empty form for a new role)."""
        blocked = self.blockSignals(True)
        try:
            self.name_edit.setText(role.name if role else "")
            self.description_edit.setText(role.description if role else "")
            for field, area in self.areas.items():
                area.setPlainText(str(getattr(role, field)) if role else "")
            _set_optional(self.temperature, role.temperature if role else None)
            _set_optional(self.top_p, role.top_p if role else None)
            self.max_tokens.setValue(role.max_tokens or 0 if role else 0)
        finally:
            self.blockSignals(blocked)

    def values(self) -> dict[str, Any]:
        """The fields as ``RoleService.create/edit`` take them."""
        values: dict[str, Any] = {
            "name": self.name_edit.text(),
            "description": self.description_edit.text(),
        }
        for field in TEXT_FIELDS:
            if field in self.areas:
                values[field] = self.areas[field].toPlainText()
        values["temperature"] = _optional(self.temperature)
        values["top_p"] = _optional(self.top_p)
        values["max_tokens"] = self.max_tokens.value() or None
        return values

    def _retranslate(self) -> None:
        texts = {
            "name": self.tr("Name"),
            "description": self.tr("Description"),
            "persona": self.tr("Persona"),
            "world_view": self.tr("World view"),
            "scenario": self.tr("Scenario"),
            "examples": self.tr("Examples"),
            "style": self.tr("Style"),
            "constraints": self.tr("Constraints"),
            "temperature": self.tr("Temperature"),
            "top_p": self.tr("Top-p"),
            "max_tokens": self.tr("Max tokens"),
            "parameters": self.tr("Parameters"),
        }
        for key, text in texts.items():
            self._labels[key].setText(text)
        default = self.tr("Model default")
        for spin in (self.temperature, self.top_p, self.max_tokens):
            spin.setSpecialValueText(default)
        self.name_edit.setPlaceholderText(self.tr("e.g. Patient tutor"))
        self.description_edit.setPlaceholderText(self.tr("What this role is for (shown in lists)"))
        self.areas["persona"].setPlaceholderText(self.tr("Who the assistant is, in a few lines"))
        self.areas["examples"].setPlaceholderText(self.tr("Sample exchanges showing the tone"))
        self.areas["constraints"].setPlaceholderText(self.tr("What it must or must not do"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()


def _optional(spin: QDoubleSpinBox) -> float | None:
    return None if spin.value() <= spin.minimum() else round(spin.value(), 2)


def _set_optional(spin: QDoubleSpinBox, value: float | None) -> None:
    spin.setValue(spin.minimum() if value is None else value)
