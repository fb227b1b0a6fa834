"""User settings, stored as JSON values in the database's settings table, with
the defaults the product ships. Injected wherever a setting is read; never global."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .listeners import Listeners

if TYPE_CHECKING:
    from ..storage.store import Store

DEFAULTS: dict[str, Any] = {
    "ui.theme": "system",
    "ui.language": "system",
    # reasoning streams open and closes a second after the answer begins
    # (PRODUCT.md §6); a mode the user chose is stored and wins
    "ui.thinking_display": "expanded",
    "chat.last_model": None,
    "chat.auto_title": True,
    "attachments.max_mb": 8,
    "trash.purge_days": 30,
    "summary.auto_refresh_turns": 0,
    "sidebar.collapsed_groups": [],
}


class SettingsService(Listeners):
    """Listeners (``add_listener``) are called with ``(key, value)`` after
    each value stored."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store

    async def get(self, key: str, default: Any = None) -> Any:
        value = await self._store.get_setting(key)
        if value is None:
            return DEFAULTS.get(key, default) if default is None else default
        return value

    async def model_choice(self, key: str) -> tuple[str, str] | None:
        """A ``{"provider": …, "model": …}`` setting (the image model, the
        speech-to-text model) as a pair; None until both are chosen."""
        value = await self.get(key)
        if isinstance(value, dict) and value.get("provider") and value.get("model"):
            return str(value["provider"]), str(value["model"])
        return None

    async def set(self, key: str, value: Any) -> None:
        await self._store.set_setting(key, value)
        self.announce(key, value)
