"""Remembering the window between runs: geometry and splitter sizes, stored in
the settings table of the one database (not in a separate Qt settings file), so
a data folder carries the whole app state."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray

if TYPE_CHECKING:
    from ...bootstrap import Services
    from .main_window import MainWindow

log = logging.getLogger(__name__)

GEOMETRY_KEY = "ui.geometry"
SPLITTER_KEY = "ui.splitter"


class WindowState:
    def __init__(self, window: MainWindow, services: Services) -> None:
        self._window = window
        self._services = services

    async def restore(self) -> None:
        settings = self._services.settings
        geometry = await settings.get(GEOMETRY_KEY)
        if isinstance(geometry, str) and geometry:
            self._window.restoreGeometry(QByteArray.fromHex(geometry.encode("ascii")))
        sizes = await settings.get(SPLITTER_KEY)
        if isinstance(sizes, list) and len(sizes) == 2 and all(isinstance(s, int) for s in sizes):
            self._window.splitter.setSizes(sizes)

    def save(self) -> None:
        """Called from closeEvent: a short blocking write is fine while closing."""
        geometry = bytes(self._window.saveGeometry().toHex().data()).decode("ascii")
        sizes = self._window.splitter.sizes()
        try:
            self._services.store.set_settings_now({GEOMETRY_KEY: geometry, SPLITTER_KEY: sizes})
        except Exception:
            log.exception("could not save the window state")
