"""Dialogs: Settings (providers, models, appearance), workspaces, roles, the
context summary, data checks. Each module is imported when its dialog first
opens; ``SettingsDialog`` is re-exported here on first access (PEP 562), so
importing one dialog does not import the others."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog

__all__ = ["SettingsDialog"]


def __getattr__(name: str) -> Any:
    if name == "SettingsDialog":
        from mira_desktop.ui.dialogs.settings_dialog import SettingsDialog

        return SettingsDialog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
