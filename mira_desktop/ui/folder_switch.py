"""The window's start making the data folder switch chosen in Settings
(``services/data_folder.py``), and the notice that says what happened.

The switch is made once this start holds the old folder's window lock — no
other window writes that folder, so the copy is complete — and before
anything opens a database; the start then takes the new folder's lock (a
window already open there gets this launch's hand-over instead)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from ..bootstrap import switch_data_folder
from .error_texts import error_line

if TYPE_CHECKING:
    from ..services.data_folder import FolderSwitch
    from .single_instance import SingleInstance

log = logging.getLogger(__name__)

CONTEXT = "FolderSwitch"


def switch_at_start(
    instance: SingleInstance, data_dir: Path
) -> tuple[SingleInstance, Path, FolderSwitch | None]:
    """The instance and folder this start uses, and the switch made (None:
    none was waiting). ``instance`` holds ``data_dir``'s lock; for another
    folder it is released and the instance returned is the new folder's,
    its lock not yet taken. Called with the QApplication made: a copy shows
    its progress (``folder_copy_dialog``), in the language the switch was
    chosen in."""
    switch = _make_switch(data_dir)
    if switch is None or switch.folder == data_dir:
        return instance, data_dir, switch
    from .single_instance import SingleInstance

    instance.release()
    return SingleInstance(switch.folder), switch.folder, switch


def _make_switch(data_dir: Path) -> FolderSwitch | None:
    from ..paths import switch_file

    if not switch_file().exists():  # the usual start: one stat
        return None
    from ..services.data_folder import read_switch, switch_language

    record = read_switch()
    if record is None or not record[2]:  # nothing to copy: at once
        return switch_data_folder(data_dir)
    from PySide6.QtWidgets import QApplication

    from .folder_copy_dialog import copy_with_progress
    from .i18n import install_translator

    app = QApplication.instance()
    if isinstance(app, QApplication):
        install_translator(app, switch_language())  # the window installs its own later
    return copy_with_progress(record[1], lambda progress: switch_data_folder(data_dir, progress))


def switch_notice(switch: FolderSwitch) -> str:
    """What the window says about the switch made at its start."""
    if switch.error is not None:
        return QCoreApplication.translate(
            CONTEXT, "Mira could not move to {folder} and still uses {previous}. {error}"
        ).format(folder=switch.target, previous=switch.previous, error=error_line(switch.error))
    if switch.copied:
        text = QCoreApplication.translate(
            CONTEXT,
            "Your data were copied to {folder}, which Mira uses from now on. The previous "
            "folder {previous} is kept as it was: delete it yourself once you are sure.",
        )
    else:
        text = QCoreApplication.translate(
            CONTEXT,
            "Mira now uses the data in {folder}. The previous folder {previous} is kept as it was.",
        )
    return text.format(folder=switch.folder, previous=switch.previous)
