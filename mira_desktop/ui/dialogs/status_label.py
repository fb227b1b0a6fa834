"""An inline status line for dialogs (busy / success / error) and the translated
wording of Mira's errors.

Errors are shown where they happened, never as a traceback dialog: the error's own
message (it often quotes the server) plus what to do next. The standard hints of the
``core.errors`` tree are translated here by error code; a specific hint given by the
raiser is shown as is.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QLabel, QWidget

from mira_desktop.core.errors import MiraError
from mira_desktop.ui.theme import set_style_property

log = logging.getLogger(__name__)

TR_CONTEXT = "StatusLabel"  # translation context of this module's strings


def translated_hint(error: MiraError) -> str:
    """The error's hint, translated when it is the standard hint of its class."""
    if error.hint != type(error).default_hint:
        return error.hint
    hints = {
        "authentication": QCoreApplication.translate(
            TR_CONTEXT, "Check the provider's API key in Settings → Providers."
        ),
        "model_not_found": QCoreApplication.translate(
            TR_CONTEXT, "Pick another model, or pull it on the server (e.g. `ollama pull NAME`)."
        ),
        "context_overflow": QCoreApplication.translate(
            TR_CONTEXT, "Compact the conversation (/compact) or start a new thread."
        ),
        "server": QCoreApplication.translate(
            TR_CONTEXT, "The model server had a problem; retry, or check its logs."
        ),
        "bad_request": QCoreApplication.translate(
            TR_CONTEXT, "The server refused the request; check the model and settings."
        ),
        "network": QCoreApplication.translate(
            TR_CONTEXT,
            "Check that the server is running and the base URL is right (e.g. start Ollama).",
        ),
        "malformed_stream": QCoreApplication.translate(
            TR_CONTEXT, "The server sent an invalid or incomplete answer; retry."
        ),
        "storage": QCoreApplication.translate(
            TR_CONTEXT, "Check that the data folder is writable and the disk is not full."
        ),
    }
    return hints.get(error.code, error.hint)


def describe_error(error: BaseException) -> str:
    """One or two lines for people: the message, then what to do next."""
    if isinstance(error, MiraError):
        hint = translated_hint(error)
        return f"{error}\n{hint}" if hint else str(error)
    log.error("unexpected error shown to the user", exc_info=error)
    return QCoreApplication.translate(TR_CONTEXT, "Something went wrong: {error}").format(
        error=error or type(error).__name__
    )


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
