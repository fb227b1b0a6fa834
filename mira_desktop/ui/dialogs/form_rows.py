"""Small layout helpers for the settings forms: a field with its explanation right
under it, as one form row. (A word-wrapped hint in a row of its own makes
``QFormLayout`` reserve far too much height, leaving gaps in the form.)"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QVBoxLayout, QWidget

log = logging.getLogger(__name__)


def hint_label(parent: QWidget) -> QLabel:
    """A muted, word-wrapped explanation label."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setProperty("muted", True)
    return label


def field_with_hint(field: QWidget, hint: QLabel) -> QWidget:
    """``field`` with ``hint`` under it, as one widget for a form row."""
    box = QWidget(field.parentWidget())
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(4)
    column.addWidget(field)
    column.addWidget(hint)
    return box


def add_row(form: QFormLayout, label: QLabel, field: QWidget, hint: QLabel | None = None) -> None:
    """Add ``label``/``field`` (plus ``hint`` under the field); the label lines up with
    the field's first line even when a hint makes the row taller."""
    form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    label.setFixedHeight(field.sizeHint().height())
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    form.addRow(label, field_with_hint(field, hint) if hint is not None else field)
