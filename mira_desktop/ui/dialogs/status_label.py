"""An inline status line for dialogs (busy / success / error). Errors are shown
where they happened, never as a traceback dialog, in the wording of
``ui/error_texts.py``."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from mira_desktop.ui.error_texts import describe_error
from mira_desktop.ui.theme import set_style_property

log = logging.getLogger(__name__)


class StatusLabel(QLabel):
    """Word-wrapped label styled by its ``status`` property (busy, ok, error)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def status(self) -> str:
        return str(self.property("status") or "")

    def show_busy(self, text: str) -> None:
        self._show(text, "busy")

    def show_ok(self, text: str) -> None:
        self._show(text, "ok")

    def show_error(self, error: BaseException | str) -> None:
        text = error if isinstance(error, str) else describe_error(error)
        self._show(text, "error")

    def clear_status(self) -> None:
        self._show("", "")

    def _show(self, text: str, status: str) -> None:
        self.setText(text)
        set_style_property(self, "status", status)
        self.setVisible(bool(text))
