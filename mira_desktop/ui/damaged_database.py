"""Opening the data folder for the window, when its database cannot be opened.

A damaged database (``StorageError.damaged``) is not a dead end for people who
double-clicked Mira: they are asked whether to recover, and on Yes the damaged
file goes to ``backups/`` and what can still be read is saved into a new
database (``storage/salvage.py``, off the Qt thread, a busy dialog meanwhile),
whose dangling references the doctor then repairs. Any other error opening the
folder is shown in a message box instead of a traceback nobody sees. Headless
launches (``--screenshot``) ask nothing: the error goes to the log and stderr."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, QTimer

from ..core.errors import MiraError, StorageError
from .error_texts import error_line

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from ..bootstrap import Services
    from ..storage.salvage import SalvageReport

log = logging.getLogger(__name__)

CONTEXT = "DamagedDatabase"


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


async def open_services(data_dir: Path, *, interactive: bool) -> tuple[Services | None, str]:
    """The services of ``data_dir`` and a notice for the window ("" when none);
    ``(None, "")`` when the window cannot open (the user was told why)."""
    from ..bootstrap import build_services

    try:
        return build_services(data_dir), ""
    except MiraError as exc:
        error = exc
    log.error("cannot open the data folder %s: %s", data_dir, error)
    if not interactive:
        sys.stderr.write(f"{error.message}\n{error.hint}\n".replace("\n\n", "\n"))
        return None, ""
    from PySide6.QtWidgets import QMessageBox  # dialogs: only when one is shown

    if not (isinstance(error, StorageError) and error.damaged):
        await _ask(QMessageBox.Icon.Critical, _tr("Mira cannot open its data"), error_line(error, "\n\n"), False)  # fmt: skip
        return None, ""
    text = _tr(
        "Mira's database is damaged ({detail}).\n\n"
        "Recover now? The damaged file is kept in the backups folder, and what can still be "
        "read is saved into a new database. Choose No to quit and leave it as it is."
    ).format(detail=str(error.__cause__ or error))
    if not await _ask(QMessageBox.Icon.Warning, _tr("Damaged database"), text, True):
        return None, ""
    report = await _salvage_with_progress(data_dir)
    services = build_services(data_dir)
    await services.doctor.fix(salvaged=report)  # references the lost rows left dangling
    return services, recovered_notice(report)


def recovered_notice(report: SalvageReport) -> str:
    """What the window says after a recovery."""
    if not report.readable:
        return _tr(
            "The damaged database could not be read at all; Mira starts empty. It is kept as "
            "{path}; older backups are in {folder}."
        ).format(path=report.damaged_copy, folder=report.damaged_copy.parent)
    return _tr(
        "Recovered {threads} conversation(s) and {messages} message(s) from the damaged "
        "database; it is kept as {path}."
    ).format(threads=report.threads, messages=report.messages, path=report.damaged_copy)


async def _ask(icon: QMessageBox.Icon, title: str, text: str, question: bool) -> bool:
    """Show a message box from a fresh turn of the event loop (a nested loop
    inside a task stops the others stepping: ``window/confirm.py``); True
    when the answer is Yes."""
    answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    from PySide6.QtWidgets import QMessageBox

    def show() -> None:
        buttons = (
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
            if question
            else QMessageBox.StandardButton.Ok
        )
        box = QMessageBox(icon, title, text, buttons)
        if question:
            box.setDefaultButton(QMessageBox.StandardButton.Yes)
        chosen = box.exec()
        if not answer.done():
            answer.set_result(chosen == QMessageBox.StandardButton.Yes)

    QTimer.singleShot(0, show)
    return await answer


async def _salvage_with_progress(data_dir: Path) -> SalvageReport:
    from PySide6.QtWidgets import QProgressDialog

    from ..storage.salvage import salvage_database

    busy = QProgressDialog(_tr("Recovering the database…"), "", 0, 0)
    busy.setWindowTitle(_tr("Damaged database"))
    busy.setCancelButton(None)  # type: ignore[arg-type]
    busy.setMinimumDuration(0)
    busy.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)  # the window comes next
    busy.show()
    try:
        return await asyncio.to_thread(salvage_database, data_dir)
    finally:
        busy.close()
        busy.deleteLater()
