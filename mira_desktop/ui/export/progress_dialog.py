"""Batch export (the sidebar's batch bar → "Export…"): one save dialog whose
file type picks the inner format, then ``export_zip`` behind a progress
dialog. Cancel sets a ``threading.Event``; the service then stops between
threads and removes the partial archive."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QFileDialog, QProgressDialog, QWidget

from .feedback import default_folder, later, show_error, target_with_ending

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...services.export import ExportFormat, ExportProgress, ExportService
    from ..controllers.tasks import TaskRunner
    from ..window.main_window import MainWindow

log = logging.getLogger(__name__)


def progress_dialog(parent: QWidget, title: str, label: str, *, cancel: bool) -> QProgressDialog:
    """A window-modal progress dialog shown at once (busy until a total is known)."""
    dialog = QProgressDialog(parent)
    dialog.setObjectName("ExportProgressDialog")
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.setMinimumDuration(0)
    dialog.setRange(0, 0)
    if not cancel:
        dialog.setCancelButton(None)
    dialog.show()
    return dialog


def set_progress(dialog: QProgressDialog, done: int, total: int) -> None:
    """Show ``done`` of ``total`` (a busy bar while the total is unknown)."""
    dialog.setMaximum(max(total, 0))
    dialog.setValue(min(done, total) if total else 0)


class BatchExport(QObject):
    """Exports ticked threads to a ZIP with progress and Cancel."""

    def __init__(self, window: MainWindow, services: Services, tasks: TaskRunner) -> None:
        super().__init__(window)
        self._w = window
        self._services = services
        self._tasks = tasks
        self.dialog: QProgressDialog | None = None
        self.cancel_event: threading.Event | None = None

    @property
    def _exports(self) -> ExportService:
        """The export service, built (and its renderers imported) on first use."""
        return self._services.exports

    def filters(self) -> dict[str, ExportFormat]:
        """The save dialog's file types, each naming the format inside the ZIP."""
        from ...services.export import ExportFormat

        return {
            self.tr("ZIP of Markdown files (*.zip)"): ExportFormat.MARKDOWN,
            self.tr("ZIP of HTML files (*.zip)"): ExportFormat.HTML,
            self.tr("ZIP of JSON files (*.zip)"): ExportFormat.JSON,
        }

    def start(self, thread_ids: list[str]) -> None:
        """Ask for the format and the archive's path, then export (soon)."""
        ids = [str(i) for i in thread_ids]
        if ids:
            later(self._w, lambda: self._ask_and_export(ids))

    def _ask_and_export(self, ids: list[str]) -> None:
        filters = self.filters()
        chosen, selected = QFileDialog.getSaveFileName(
            self._w,
            self.tr("Export {n} conversations").format(n=len(ids)),
            str(default_folder() / "mira-export.zip"),
            ";;".join(filters),
        )
        if not chosen:
            return
        path = target_with_ending(self._w, Path(chosen), ".zip")
        if path is None:
            return
        self._begin(ids, path, filters.get(selected) or next(iter(filters.values())))

    def _begin(self, ids: list[str], path: Path, fmt: ExportFormat) -> None:
        title = self.tr("Exporting conversations")
        dialog = progress_dialog(self._w, title, str(path.name), cancel=True)
        event = threading.Event()
        dialog.canceled.connect(event.set)
        self.dialog, self.cancel_event = dialog, event

        def progress(step: ExportProgress) -> None:
            set_progress(dialog, step.done, step.total)
            dialog.setLabelText(step.title or path.name)

        async def run() -> None:
            try:
                result = await self._exports.export_zip(
                    ids, path, inner=fmt, progress=progress, cancel=event
                )
            except Exception as exc:  # shown to the user
                show_error(self._w, self.tr("Export failed"), exc)
                return
            finally:
                dialog.close()
                dialog.deleteLater()
                self.dialog = None
            self._report(result.exported, result.cancelled, path)

        self._tasks.start(run())

    def _report(self, exported: int, cancelled: bool, path: Path) -> None:
        if cancelled:
            text = self.tr("Export cancelled; nothing was written.")
        else:
            text = self.tr("Exported {n} conversations to {path}").format(n=exported, path=path)
        self._w.notice_bar.show_notice(text)
