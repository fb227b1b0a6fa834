"""File → Import conversations…: pick a Mira JSON export or a ChatGPT
``conversations.json`` (or a ZIP holding one; the service detects which),
import it behind a progress dialog, refresh the sidebar and say how many
threads came in, how many imported before got new messages (and how many
messages: the conversation went on in ChatGPT) and why any were skipped. The
open thread is shown again when it got new messages. A malformed file shows
its error and imports nothing."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from ..error_texts import known_text
from .feedback import default_folder, later, show_error

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...services.importers import ImportService
    from ...services.importers.service import ImportProgress, ImportReport
    from ..controllers.tasks import TaskRunner
    from ..window.main_window import MainWindow

log = logging.getLogger(__name__)


class ImportConversations(QObject):
    """The Import conversations… action and the import it runs."""

    def __init__(self, window: MainWindow, services: Services, tasks: TaskRunner) -> None:
        super().__init__(window)
        self._w = window
        self._services = services
        self._tasks = tasks
        self.action = QAction(window)
        self.action.setObjectName("ImportConversationsAction")
        self.action.triggered.connect(lambda: later(self._w, self.ask_and_import))
        self.last_report: ImportReport | None = None

    @property
    def _imports(self) -> ImportService:
        """The import service, built (and the importers imported) on first use."""
        return self._services.imports

    def install(self) -> None:
        """Put the action into the File menu, before its last separator (Quit)."""
        menu = self._w.file_menu
        separators = [a for a in menu.actions() if a.isSeparator()]
        if separators:
            menu.insertAction(separators[-1], self.action)
        else:  # what Qt's insertAction(None, …) does
            menu.addAction(self.action)

    def retranslate(self) -> None:
        self.action.setText(self.tr("Import conversations…"))
        self.action.setToolTip(self.tr("Import a Mira JSON export or a ChatGPT conversations.json"))

    def ask_and_import(self) -> None:
        """Ask for the file (outside any task), then import it."""
        from PySide6.QtWidgets import QFileDialog

        chosen, _selected = QFileDialog.getOpenFileName(
            self._w,
            self.tr("Import conversations"),
            str(default_folder()),
            self.tr("Conversation exports (*.json *.zip);;All files (*)"),
        )
        if chosen:
            self.import_file(Path(chosen))

    def import_file(self, path: Path) -> None:
        """Import ``path`` with a progress dialog; report the outcome."""
        from .progress_dialog import progress_dialog, set_progress

        dialog = progress_dialog(
            self._w, self.tr("Importing conversations"), path.name, cancel=False
        )

        def progress(step: ImportProgress) -> None:
            set_progress(dialog, step.done, step.total)

        async def run() -> None:
            try:
                report = await self._imports.import_file(path, progress=progress)
            except Exception as exc:  # shown to the user
                show_error(self._w, self.tr("Import failed"), exc)
                return
            finally:
                dialog.close()
                dialog.deleteLater()
            self._done(report)

        self._tasks.start(run())

    def _done(self, report: ImportReport) -> None:
        self.last_report = report
        self._w.thread_model.refresh()
        n, m = len(report.imported), len(report.skipped)
        if report.skipped:
            text = self.tr("Imported {n} conversations, skipped {m}: {reasons}").format(
                n=n, m=m, reasons=self._reasons(report)
            )
        else:
            text = self.tr("Imported {n} conversations, skipped {m}").format(n=n, m=m)
        if report.updated:
            text += " " + self.tr(
                "Added {k} new messages to {t} conversations imported before."
            ).format(k=report.new_messages, t=len(report.updated))
            presenter = self._w.presenter
            if not presenter.is_draft and presenter.key in {t.id for t in report.updated}:
                presenter.reload()
        if report.files_missing:
            text += " " + self.tr(
                "Attached files not in the export: {k} (their names are kept)."
            ).format(k=report.files_missing)
        self._w.notice_bar.show_notice(text)

    def _reasons(self, report: ImportReport) -> str:
        """Why threads were skipped, each reason once (with how many when
        several), in the order they came."""
        counts = Counter(skip.reason for skip in report.skipped)
        return self.tr("; ").join(
            known_text(reason)
            if count == 1
            else self.tr("{reason} ({count})").format(reason=known_text(reason), count=count)
            for reason, count in counts.items()
        )
