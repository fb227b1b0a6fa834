"""Where a provider's saved API key goes when its base URL moves to another
host: a key given to one server should not silently be sent to another. Before
such a form is saved (and unless a new key is typed or removal chosen), the
user is asked — Yes keeps sending the key, No (the default) removes it, Cancel
saves nothing. Asked from a click, never from a task (a nested event loop)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from mira_desktop.ui.dialogs.provider_form import ProviderForm

log = logging.getLogger(__name__)

TR_CONTEXT = "ProvidersTab"  # worded for the providers tab (its catalogue context)


def host_of(url: str) -> str:
    """The host a base URL sends to (lower case; "" when it has none)."""
    try:
        return (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        return ""


def settle_saved_key(parent: QWidget, form: ProviderForm) -> bool:
    """Ask, when needed, whether the key saved for the provider in ``form``
    follows its new host; No ticks the form's "Remove the saved key". False:
    the user cancelled the save."""
    original = form.original()
    if original is None or not original.has_key or not form.is_dirty():
        return True
    values = form.values()
    new_host = host_of(values.base_url)
    if values.api_key is not None or new_host == host_of(original.base_url):
        return True
    from PySide6.QtWidgets import QMessageBox  # its type and enums: on first use

    buttons = (
        QMessageBox.StandardButton.Yes
        | QMessageBox.StandardButton.No
        | QMessageBox.StandardButton.Cancel
    )
    text = QCoreApplication.translate(
        TR_CONTEXT,
        "The base URL now points to another server ({host}). Keep sending the API key "
        "saved for “{name}” there?\n\nYes keeps the key; No removes it (type the new "
        "server's key if it needs one).",
    ).format(host=new_host or values.base_url, name=original.name)
    title = QCoreApplication.translate(TR_CONTEXT, "Keep the API key?")
    answer = QMessageBox.question(parent, title, text, buttons, QMessageBox.StandardButton.No)
    if answer == QMessageBox.StandardButton.Cancel:
        return False
    if answer != QMessageBox.StandardButton.Yes:
        log.info("the saved key of %s is removed with its move to %s", original.name, new_host)
        form.remove_saved_key()
    return True
