"""Asking about unsaved edits before a form moves away from them — another
entry chosen in its list, New, Duplicate, or the dialog closed: "Save changes
to …?" with Save, Discard and Cancel (the same question for the provider, model
and role forms).

``QMessageBox.question`` runs a nested event loop: it is asked from a click or
from a fresh turn of the event loop (a list's current item changes while the
mouse press is still handled: :func:`soon`), never from an asyncio task."""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import Enum

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)

TR_CONTEXT = "UnsavedChanges"


class Choice(Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def ask_to_save(parent: QWidget, what: str) -> Choice:
    """Ask whether to save the edits of ``what`` (a name, already quoted, or
    "the new provider"…) before moving on; Save is the default."""
    from PySide6.QtWidgets import QMessageBox  # its type and enums: on first use

    buttons = (
        QMessageBox.StandardButton.Save
        | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel
    )
    answer = QMessageBox.question(
        parent,
        QCoreApplication.translate(TR_CONTEXT, "Unsaved changes"),
        QCoreApplication.translate(TR_CONTEXT, "Save changes to {what}?").format(what=what),
        buttons,
        QMessageBox.StandardButton.Save,
    )
    if answer == QMessageBox.StandardButton.Save:
        return Choice.SAVE
    if answer == QMessageBox.StandardButton.Discard:
        return Choice.DISCARD
    log.debug("kept editing %s", what)
    return Choice.CANCEL


def soon(owner: QWidget, call: Callable[[], None]) -> None:
    """Run ``call`` on the next turn of the event loop (if ``owner`` lives)."""
    QTimer.singleShot(0, owner, call)
