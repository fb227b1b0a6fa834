"""Small shared pieces of the export UI: running a modal dialog from a fresh
turn of the event loop (never from inside an asyncio task: its nested event
loop would stall the other tasks under qasync, see ``window/confirm.py``),
error dialogs for :class:`MiraError`, the save-file question and the file
type's ending added to a chosen name. The dialogs' classes are imported when
first shown (the window imports this module at start)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QWidget

from ..error_texts import error_line

log = logging.getLogger(__name__)

TR_CONTEXT = "ExportFeedback"


def later(parent: QWidget, call: Callable[[], None]) -> None:
    """Run ``call`` on the next turn of the Qt event loop (outside any task)."""
    QTimer.singleShot(0, parent, call)


def error_text(exc: BaseException) -> str:
    """The message of ``exc`` and, for a :class:`MiraError`, its hint."""
    return error_line(exc, "\n")


def show_error(parent: QWidget, title: str, exc: BaseException) -> None:
    """A warning dialog with the error's message and hint (soon, outside tasks)."""
    log.info("%s: %s", title, exc)

    def warn() -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(parent, title, error_text(exc))

    later(parent, warn)


def default_folder() -> Path:
    """Where save dialogs start: the Documents folder, else the home folder."""
    from PySide6.QtCore import QStandardPaths

    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(docs) if docs and Path(docs).is_dir() else Path.home()


def ask_save_path(parent: QWidget, title: str, name: str, filters: str) -> Path | None:
    """The file chosen in a save dialog proposing ``name``; ``None`` if cancelled."""
    from PySide6.QtWidgets import QFileDialog

    chosen, _selected = QFileDialog.getSaveFileName(
        parent, title, str(default_folder() / name), filters
    )
    return Path(chosen) if chosen else None


def with_ending(path: Path, suffix: str) -> Path:
    """``path`` ending in ``suffix`` (``".pdf"``, any case): added to the
    name, never put in place of what follows its last dot ("Report 1.5"
    becomes "Report 1.5.pdf", not "Report 1.pdf")."""
    if path.name.lower().endswith(suffix.lower()):
        return path
    return path.with_name(path.name + suffix)


def target_with_ending(parent: QWidget, path: Path, suffix: str) -> Path | None:
    """The file to write for ``path`` chosen in a save dialog: with the
    ``suffix`` ending (:func:`with_ending`). When the ending had to be added
    and a file of that name exists, the dialog asked about another name: ask
    before replacing it. ``None`` when the answer is no."""
    target = with_ending(path, suffix)
    if target == path or not target.exists():
        return target
    from PySide6.QtWidgets import QMessageBox

    title = QCoreApplication.translate(TR_CONTEXT, "Replace file")
    text = QCoreApplication.translate(TR_CONTEXT, "{name} already exists. Replace it?")
    buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
    answer = QMessageBox.question(
        parent, title, text.format(name=target.name), buttons, QMessageBox.StandardButton.No
    )
    return target if answer == QMessageBox.StandardButton.Yes else None
