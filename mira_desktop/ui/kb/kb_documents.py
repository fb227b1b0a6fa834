"""``DocumentsPane``: the documents of one knowledge base in the manager
(``kb_manager.py``) — the list (name, passages, size, status), Add files…,
Add folder… (``QFileDialog``), Remove, Re-index, and one long job at a time
with a progress bar and Cancel.

Jobs (adding, re-indexing, embedding) run in the window's task runner and
report through the service's ``progress`` callback; Cancel sets the service's
cancel event: the file in progress is not written and what was indexed before
stays, so the base is always consistent (``services/kb/ingest.py``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.audio_formats import AUDIO_SKIPPED
from ...core.errors import MiraError, error_from_dict
from ...core.knowledge import IngestProgress, IngestReport, KbDocument
from ..dialogs.async_guard import guarded, show_or_log
from ..error_texts import error_line, message_text

if TYPE_CHECKING:
    from ...services.kb import KnowledgeBaseService
    from ..controllers.tasks import TaskRunner

log = logging.getLogger(__name__)

_ID = Qt.ItemDataRole.UserRole + 1
Job = Callable[[Callable[[IngestProgress], None], threading.Event], Awaitable[Any]]


class DocumentsPane(QWidget):
    changed = Signal()  # documents or counts changed
    busy_changed = Signal(bool)
    progress_changed = Signal(object)  # IngestProgress
    job_finished = Signal(object)  # the job's result (IngestReport, a count) or None
    status = Signal(str, bool)  # text, is an error

    def __init__(
        self, knowledge: KnowledgeBaseService, tasks: TaskRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("KbDocumentsPane")
        self._service = knowledge
        self._tasks = tasks
        self._kb_id: str | None = None
        self._cancel: threading.Event | None = None
        self.loads = 0
        self.title = QLabel(self)
        self.title.setObjectName("KbDocumentsTitle")
        self.table = QTreeWidget(self)
        self.table.setObjectName("KbDocuments")
        self.table.setRootIsDecorated(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setColumnCount(4)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        header = self.table.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        self.add_files_button = QPushButton(self)
        self.add_folder_button = QPushButton(self)
        self.remove_button = QPushButton(self)
        self.reindex_button = QPushButton(self)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("KbProgress")
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("KbProgressLabel")
        self.cancel_button = QPushButton(self)
        self.cancel_button.setObjectName("KbCancel")
        self._build_layout()
        self._connect()
        self.retranslate()
        self._show_progress(False)
        self._update_buttons()

    def _build_layout(self) -> None:
        actions = QHBoxLayout()
        actions.setSpacing(6)
        for button in (self.add_files_button, self.add_folder_button):
            actions.addWidget(button)
        actions.addStretch(1)
        for button in (self.reindex_button, self.remove_button):
            actions.addWidget(button)
        progress = QHBoxLayout()
        progress.setSpacing(8)
        progress.addWidget(self.progress, 1)
        progress.addWidget(self.cancel_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        column.addWidget(self.title)
        column.addWidget(self.table, 1)
        column.addLayout(actions)
        column.addWidget(self.progress_label)
        column.addLayout(progress)

    def _connect(self) -> None:
        self.add_files_button.clicked.connect(self.add_files)
        self.add_folder_button.clicked.connect(self.add_folder)
        self.remove_button.clicked.connect(self.remove_selected)
        self.reindex_button.clicked.connect(self.reindex)
        self.cancel_button.clicked.connect(self.cancel)

    # ---- the base shown -------------------------------------------------------------
    @property
    def kb_id(self) -> str | None:
        return self._kb_id

    def set_kb(self, kb_id: str | None, name: str = "") -> None:
        self._kb_id = kb_id
        self.title.setText(
            self.tr("Documents of “{0}”").format(name) if kb_id else self.tr("Documents")
        )
        self._update_buttons()  # files can be added while the list loads
        self._tasks.start(self.reload())

    async def reload(self) -> None:
        kb_id = self._kb_id
        docs = await guarded(self, self._service.documents(kb_id)) if kb_id else []
        if docs is None or kb_id != self._kb_id:
            return
        self.table.clear()
        locale = QLocale()
        for doc in docs:
            item = QTreeWidgetItem(self.table, _row(doc, locale, self._status_text(doc)))
            item.setData(0, _ID, doc.id)
            item.setToolTip(0, _tooltip(doc))
            for column in (1, 2):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
        self._update_buttons()
        self.loads += 1

    def _status_text(self, doc: KbDocument) -> str:
        if doc.status == "indexed":
            return self.tr("Indexed")
        if doc.status == "failed":
            return self.tr("Could not read")
        return doc.status

    def document_names(self) -> list[str]:
        items = (self.table.topLevelItem(i) for i in range(self.table.topLevelItemCount()))
        return [item.text(0) for item in items if item is not None]

    # ---- actions --------------------------------------------------------------------
    def add_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, self.tr("Add files to the knowledge base"))
        if paths:
            self.add_paths(paths)

    def add_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a folder (with subfolders)"))
        if folder:
            self.add_paths([folder])

    def add_paths(self, paths: Sequence[str | Path]) -> None:
        kb_id = self._kb_id
        if kb_id is None:
            return
        chosen = list(paths)
        self.start_job(
            self.tr("Adding documents…"),
            lambda progress, cancel: self._service.add(
                kb_id, chosen, progress=progress, cancel=cancel
            ),
        )

    def reindex(self) -> None:
        kb_id = self._kb_id
        if kb_id is not None:
            self.start_job(
                self.tr("Re-indexing changed files…"),
                lambda progress, cancel: self._service.reindex(
                    kb_id, progress=progress, cancel=cancel
                ),
            )

    def remove_selected(self) -> None:
        kb_id = self._kb_id
        ids = [item.data(0, _ID) for item in self.table.selectedItems()]
        if kb_id is None or not ids or self.is_busy():
            return

        async def remove() -> None:
            for doc_id in ids:
                await self._service.remove_document(kb_id, doc_id)
            await self.reload()
            self.changed.emit()
            self.status.emit(self.tr("Removed {0} document(s).").format(len(ids)), False)

        self._tasks.start(self._reported(remove()))

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self.progress_label.setText(self.tr("Cancelling after the current file…"))
            self.cancel_button.setEnabled(False)

    def is_busy(self) -> bool:
        return self._cancel is not None

    # ---- jobs -----------------------------------------------------------------------
    def start_job(self, label: str, job: Job) -> bool:
        """Run one long job with progress and Cancel; False when one is running."""
        if self.is_busy():
            return False
        self._cancel = threading.Event()
        self._show_progress(True, label)
        self._tasks.start(self._run(job, self._cancel))
        return True

    async def _run(self, job: Job, cancel: threading.Event) -> None:
        result: Any = None
        try:
            result = await guarded(self, job(self._on_progress, cancel))
        except MiraError as exc:
            show_or_log(self, exc, self.status.emit, error_line(exc), True)
        finally:
            self._cancel = None
            if not self._deleted():
                self._show_progress(False)
        if self._deleted():
            return
        if isinstance(result, IngestReport):
            self.status.emit(self._summary(result), bool(result.failed))
        await self.reload()
        self.changed.emit()
        self.job_finished.emit(result)

    def _on_progress(self, step: IngestProgress) -> None:
        if self._deleted():
            return
        if step.total:
            self.progress.setRange(0, step.total)
            self.progress.setValue(step.done)
        name = Path(step.current).name or step.current
        if self._cancel is not None and not self._cancel.is_set():
            self.progress_label.setText(
                self.tr("{done} of {total}: {name}").format(
                    done=step.done, total=step.total, name=name
                )
            )
        self.progress_changed.emit(step)

    def _summary(self, report: IngestReport) -> str:
        text = self.tr("{added} added, {updated} updated, {unchanged} unchanged.").format(
            added=report.added, updated=report.updated, unchanged=report.unchanged
        )
        if report.removed:
            text += " " + self.tr("{0} removed.").format(report.removed)
        if report.failed:
            failed = "; ".join(
                f"{Path(f.path).name}: {message_text(f.cause) if f.cause else f.error}"
                for f in report.failed[:3]
            )
            text += " " + self.tr("Could not read: {0}").format(failed)
        audio = [Path(p).name for p, why in report.skipped if why == AUDIO_SKIPPED]
        if audio:
            text += " " + self.tr(
                "Audio files in folders are not written down: add each file itself ({0})."
            ).format(", ".join(audio[:3]) + (" …" if len(audio) > 3 else ""))
        if report.cancelled:
            text += " " + self.tr("Cancelled: what was indexed before stays.")
        return text

    async def _reported(self, work: Awaitable[None]) -> None:
        try:
            await guarded(self, work)
        except MiraError as exc:
            show_or_log(self, exc, self.status.emit, error_line(exc), True)

    def _deleted(self) -> bool:
        return not shiboken6.isValid(self)

    def _show_progress(self, on: bool, label: str = "") -> None:
        self.progress.setVisible(on)
        self.cancel_button.setVisible(on)
        self.cancel_button.setEnabled(on)
        self.progress_label.setVisible(on)
        self.progress_label.setText(label)
        if on:
            self.progress.setRange(0, 0)  # busy until the first step says how many
        self._update_buttons()
        self.busy_changed.emit(on)

    def _update_buttons(self) -> None:
        ready = self._kb_id is not None and not self.is_busy()
        for button in (self.add_files_button, self.add_folder_button, self.reindex_button):
            button.setEnabled(ready)
        self.remove_button.setEnabled(ready and bool(self.table.selectedItems()))

    def retranslate(self) -> None:
        self.table.setHeaderLabels(
            [self.tr("Document"), self.tr("Passages"), self.tr("Size"), self.tr("Status")]
        )
        for column in (1, 2):
            self.table.headerItem().setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
        self.add_files_button.setText(self.tr("Add files…"))
        self.add_folder_button.setText(self.tr("Add folder…"))
        self.remove_button.setText(self.tr("Remove"))
        self.reindex_button.setText(self.tr("Re-index"))
        self.reindex_button.setToolTip(
            self.tr("Re-read changed files, drop deleted ones, pick up new files in added folders")
        )
        self.cancel_button.setText(self.tr("Cancel"))


def _tooltip(doc: KbDocument) -> str:
    """The file's path, and why it could not be read (in the interface's
    language when the error was stored whole)."""
    if not doc.error:
        return doc.path
    detail = doc.error_detail
    reason = error_line(error_from_dict(dict(detail)), "\n") if detail else doc.error
    return f"{doc.path}\n{reason}"


def _row(doc: KbDocument, locale: QLocale, status: str) -> list[str]:
    return [doc.name, locale.toString(doc.chunks), locale.formattedDataSize(doc.size), status]
