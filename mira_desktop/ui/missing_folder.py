"""The window's start when the data folder chosen in Settings is not there
(``paths.ChosenFolderMissing``: a drive not connected, a share down). People
who double-clicked Mira see why, and choose: try again once the drive is
back, use the default folder for this time (the choice stays for the next
start), or quit. Nothing is created in the missing folder's place."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QMessageBox

Answer = Literal["retry", "default", "quit"]
CONTEXT = "MissingFolder"


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def ask_missing_folder(path: Path) -> Answer:
    """Ask what to do about ``path`` (modal; builds the application when
    there is none yet, in the system's language)."""
    app = QApplication.instance()
    if app is None:
        from .i18n import install_translator

        app = QApplication(sys.argv[:1])
        install_translator(app, "system")  # the settings are in the folder that is missing
    box = QMessageBox()
    box.setObjectName("MissingFolderBox")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(_tr("Mira's data folder is not there"))
    box.setText(_tr("The data folder chosen in Settings is not there:\n{0}").format(path))
    box.setInformativeText(
        _tr(
            "If it is on a drive or a network share, connect it and choose Try again. "
            "The default folder can be used this time instead; your choice stays for the "
            "next start."
        )
    )
    retry = box.addButton(_tr("Try again"), QMessageBox.ButtonRole.AcceptRole)
    default = box.addButton(
        _tr("Use the default folder this time"), QMessageBox.ButtonRole.ActionRole
    )
    box.addButton(_tr("Quit"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(retry)
    box.exec()
    clicked = box.clickedButton()
    if clicked is retry:
        return "retry"
    if clicked is default:
        return "default"
    return "quit"
