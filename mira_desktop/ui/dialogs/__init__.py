"""Dialogs: Settings (providers, models, appearance)."""

from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog

__all__ = ["SettingsDialog"]
