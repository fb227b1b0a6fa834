"""Asking before destructive history actions (delete forever, empty the trash,
delete a workspace). ``QMessageBox.question`` runs a nested event loop; run
inside an asyncio task it would stop other tasks from stepping (qasync), so the
question is asked from a fresh turn of the event loop, never from a task, and
the answer is handed to a callback."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)


def ask_then(parent: QWidget, title: str, text: str, then: Callable[[], object]) -> None:
    """Ask a yes/no question soon; call ``then()`` if the answer is yes."""

    def ask() -> None:
        from PySide6.QtWidgets import QMessageBox  # its type and enums: on first use

        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        answer = QMessageBox.question(parent, title, text, buttons, QMessageBox.StandardButton.No)
        if answer == QMessageBox.StandardButton.Yes:
            then()
        else:
            log.debug("declined: %s", title)

    QTimer.singleShot(0, parent, ask)
