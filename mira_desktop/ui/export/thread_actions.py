"""``ThreadActions``: the export part of a thread's menu (sidebar right-click
and the header's "⋯" for the open thread) — Export as Markdown/HTML/JSON,
Copy to clipboard, Print…, Save as PDF… — and the per-answer actions
(Download as .md, Save to workspace). Rendering and file writes go through
the export service (off the event loop); only the PDF's painting runs here."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu

from .feedback import ask_save_path, later, show_error, target_with_ending
from .import_dialog import ImportConversations

if TYPE_CHECKING:
    from PySide6.QtPrintSupport import QPrintPreviewDialog

    from ...bootstrap import Services
    from ...services.export import ExportFormat, ExportService
    from ..controllers.tasks import TaskRunner
    from ..window.main_window import MainWindow
    from .progress_dialog import BatchExport

log = logging.getLogger(__name__)

#: the values of ``ExportFormat`` (a ``StrEnum``) the thread menu offers: plain
#: strings, so building the window does not import the export service.
FORMATS = ("md", "html", "json")


class ThreadActions(QObject):
    """Builds the export actions of thread and message menus and runs them."""

    def __init__(self, window: MainWindow, services: Services, tasks: TaskRunner) -> None:
        super().__init__(window)
        self._w = window
        self._services = services
        self._tasks = tasks
        self.preview: QPrintPreviewDialog | None = None
        self._header_actions: list[QAction] = []
        self._batch: BatchExport | None = None
        self.importer = ImportConversations(window, services, tasks)

    @property
    def batch(self) -> BatchExport:
        """The batch export (its progress dialog module loads on first use)."""
        if self._batch is None:
            from .progress_dialog import BatchExport

            self._batch = BatchExport(self._w, self._services, self._tasks)
        return self._batch

    @property
    def _exports(self) -> ExportService:
        """The export service, built (and its renderers imported) on first use."""
        return self._services.exports

    def connect_window(self) -> None:
        """Hook into the sidebar (thread menu, batch export), the header menu,
        the timeline's answer menus and the File menu (import)."""
        w = self._w
        w.sidebar.thread_menu_opening.connect(self._on_sidebar_menu)
        w.sidebar.batch_export_requested.connect(lambda ids: self.batch.start(ids))
        w.header.menu.aboutToShow.connect(self._fill_header_menu)
        w.timeline.message_menu_requested.connect(self.build_message_menu)
        self.importer.install()
        self.importer.retranslate()
        w.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Retranslate the File menu's import action on a language change."""
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self.importer.retranslate()
        return False

    # ---- menus -------------------------------------------------------------------
    def build_thread_menu(self, menu: QMenu, thread_id: str) -> list[QAction]:
        """Add the export actions of ``thread_id`` to ``menu``; returns them."""
        labels = {
            "md": self.tr("Export as Markdown…"),
            "html": self.tr("Export as HTML…"),
            "json": self.tr("Export as JSON…"),
        }
        entries: list[tuple[str, str, Callable[[], None]]] = [
            (f"export:{fmt}", labels[fmt], partial(self.export_thread, thread_id, fmt))
            for fmt in FORMATS
        ]
        entries += [
            ("export:copy", self.tr("Copy to clipboard"), lambda: self.copy_thread(thread_id)),
            ("export:print", self.tr("Print…"), lambda: self.print_thread(thread_id)),
            ("export:pdf", self.tr("Save as PDF…"), lambda: self.save_pdf(thread_id)),
        ]
        actions = []
        for name, text, slot in entries:
            action = QAction(text, menu)
            action.setObjectName(name)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            actions.append(action)
        return actions

    def _on_sidebar_menu(self, thread_id: str, menu: QMenu) -> None:
        if self._w.sidebar.view() == "trash":
            return
        menu.addSeparator()
        menu.addActions(self.build_thread_menu(menu, thread_id))

    def _fill_header_menu(self) -> None:
        """Put the open thread's export actions at the top of the "⋯" menu."""
        menu = self._w.header.menu
        for action in self._header_actions:
            menu.removeAction(action)
            action.deleteLater()
        self._header_actions = []
        presenter = self._w.presenter
        if presenter.is_draft:
            return
        actions = self.build_thread_menu(menu, presenter.key)
        separator = QAction(menu)
        separator.setSeparator(True)
        actions.append(separator)
        if menu.actions():
            menu.insertActions(menu.actions()[0], actions)
        else:  # what Qt's insertActions(None, …) does
            menu.addActions(actions)
        self._header_actions = actions

    def build_message_menu(self, message_id: str, menu: QMenu) -> None:
        """Add Download as .md and Save to workspace to an answer's menu."""
        download = menu.addAction(self.tr("Download as .md…"))
        download.setObjectName("message:download")
        download.triggered.connect(lambda: self.download_message(message_id))
        save = menu.addAction(self.tr("Save to workspace"))
        save.setObjectName("message:workspace")
        save.triggered.connect(lambda: self.save_message_to_workspace(message_id))

    # ---- running -----------------------------------------------------------------
    def _run(self, coro: Coroutine[Any, Any, None], failure: str) -> None:
        async def guarded() -> None:
            try:
                await coro
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # shown to the user
                show_error(self._w, failure, exc)

        self._tasks.start(guarded())

    def _notice(self, text: str) -> None:
        self._w.notice_bar.show_notice(text)

    def export_thread(self, thread_id: str, fmt: ExportFormat | str) -> None:
        """Ask where to save, then write ``thread_id`` in ``fmt`` (an
        ``ExportFormat`` or its value) there."""
        from ...services.export import ExportFormat

        chosen = ExportFormat(fmt)

        async def prepare() -> None:
            name = await self._exports.suggested_filename(thread_id, chosen)
            later(self._w, lambda: self._ask_and_export(thread_id, chosen, name))

        self._run(prepare(), self.tr("Export failed"))

    def _ask_and_export(self, thread_id: str, fmt: ExportFormat, name: str) -> None:
        filters = {
            "md": self.tr("Markdown (*.md)"),
            "html": self.tr("HTML (*.html)"),
            "json": self.tr("JSON (*.json)"),
        }[fmt.value]
        path = ask_save_path(self._w, self.tr("Export conversation"), name, filters)
        if path is None:
            return

        async def write() -> None:
            written = await self._exports.export_thread(thread_id, fmt, path)
            self._notice(self.tr("Exported to {path}").format(path=written))

        self._run(write(), self.tr("Export failed"))

    def copy_thread(self, thread_id: str) -> None:
        """Put the thread as Markdown on the clipboard."""

        async def copy() -> None:
            text = await self._exports.clipboard_text(thread_id)
            QGuiApplication.clipboard().setText(text)
            self._notice(self.tr("Conversation copied as Markdown"))

        self._run(copy(), self.tr("Copy failed"))

    def print_thread(self, thread_id: str) -> None:
        """Open a print preview of the thread (its Print button prints)."""

        async def render() -> None:
            html = await self._exports.thread_html(thread_id, for_print=True)
            later(self._w, lambda: self._open_preview(html))

        self._run(render(), self.tr("Print failed"))

    def _open_preview(self, html: str) -> None:
        from .print_preview import preview_dialog  # QtPrintSupport: on first print

        dialog = preview_dialog(html, self.tr("Print preview"), self._w)
        dialog.finished.connect(dialog.deleteLater)
        self.preview = dialog
        dialog.open()

    def save_pdf(self, thread_id: str) -> None:
        """Ask for a ``.pdf`` path, then print the thread into it."""

        async def prepare() -> None:
            name = await self._exports.suggested_filename(thread_id, "html")
            html = await self._exports.thread_html(thread_id, for_print=True)
            pdf_name = str(Path(name).with_suffix(".pdf"))
            later(self._w, lambda: self._ask_and_write_pdf(html, pdf_name))

        self._run(prepare(), self.tr("Saving the PDF failed"))

    def _ask_and_write_pdf(self, html: str, name: str) -> None:
        chosen = ask_save_path(self._w, self.tr("Save as PDF"), name, self.tr("PDF (*.pdf)"))
        path = target_with_ending(self._w, chosen, ".pdf") if chosen else None
        if path is None:
            return
        from .print_preview import pdf_bytes

        data = pdf_bytes(html, Path(name).stem)

        async def write() -> None:
            await asyncio.to_thread(path.write_bytes, data)
            self._notice(self.tr("Saved to {path}").format(path=path))

        self._run(write(), self.tr("Saving the PDF failed"))

    def download_message(self, message_id: str) -> None:
        """Ask where to save one answer as Markdown, then write it."""

        async def prepare() -> None:
            name = await self._exports.message_filename(message_id)
            text = await self._exports.message_markdown(message_id)
            later(self._w, lambda: self._ask_and_write_message(name, text))

        self._run(prepare(), self.tr("Download failed"))

    def _ask_and_write_message(self, name: str, text: str) -> None:
        title = self.tr("Download message")
        chosen = ask_save_path(self._w, title, name, self.tr("Markdown (*.md)"))
        path = target_with_ending(self._w, chosen, ".md") if chosen else None  # "notes" too
        if path is None:
            return

        async def write() -> None:
            await self._exports.write_text(path, text)
            self._notice(self.tr("Saved to {path}").format(path=path))

        self._run(write(), self.tr("Download failed"))

    def save_message_to_workspace(self, message_id: str) -> None:
        """Write the answer into its workspace's root folder and show where."""

        async def save() -> None:
            path = await self._exports.save_message_to_workspace(message_id)
            self._notice(self.tr("Saved to {path}").format(path=path))

        self._run(save(), self.tr("Could not save to the workspace"))
