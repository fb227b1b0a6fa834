"""The layout of Settings → Providers (``providers_tab.ProvidersTab``): the
list with Add / Remove on the left; the form, its actions, the status line and
the bar confirming a removal on the right."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

if TYPE_CHECKING:
    from mira_desktop.ui.dialogs.providers_tab import ProvidersTab


def lay_out(tab: ProvidersTab) -> None:
    """Build the confirmation bar and lay out ``tab``'s widgets."""
    tab.confirm_bar = QFrame(tab)
    tab.confirm_label = QLabel(tab.confirm_bar)
    tab.confirm_label.setWordWrap(True)
    tab.confirm_remove_button = QPushButton(tab.confirm_bar)
    tab.cancel_remove_button = QPushButton(tab.confirm_bar)
    row = QHBoxLayout(tab.confirm_bar)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(tab.confirm_label, 1)
    row.addWidget(tab.confirm_remove_button)
    row.addWidget(tab.cancel_remove_button)
    tab.confirm_bar.hide()

    left = QVBoxLayout()
    left.addWidget(tab.provider_list, 1)
    list_buttons = QHBoxLayout()
    list_buttons.addWidget(tab.add_button)
    list_buttons.addWidget(tab.remove_button)
    left.addLayout(list_buttons)
    actions = QHBoxLayout()
    actions.addWidget(tab.save_button)
    actions.addWidget(tab.test_button)
    actions.addWidget(tab.fetch_button)
    actions.addStretch(1)
    right = QVBoxLayout()
    right.addWidget(tab.empty_hint)
    right.addWidget(tab.form)
    right.addLayout(actions)
    right.addWidget(tab.status)
    right.addWidget(tab.confirm_bar)
    right.addStretch(1)
    layout = QHBoxLayout(tab)
    layout.setContentsMargins(12, 12, 12, 12)
    layout.setSpacing(16)
    layout.addLayout(left)
    layout.addLayout(right, 1)
