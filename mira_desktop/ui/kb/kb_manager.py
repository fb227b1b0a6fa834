"""``KnowledgeBaseDialog``: the knowledge-base manager (File → Knowledge
bases…; PRODUCT.md §1, §3 path 2, §13).

At the top, every base with its document and passage counts and index size;
create (type a name, Create), rename (Rename…, or double-click the name) and
delete — after a confirmation that says threads bound to it keep their history
(they are unbound, never deleted). Below, the selected base's documents
(``kb_documents.DocumentsPane``: add files and folders with progress and
Cancel, remove, re-index) and its optional embedding model
(``kb_embedding.EmbeddingRow``). Closing the dialog cancels a running job
after its current file; what was indexed stays. Every change is announced
by ``KnowledgeBaseService`` to its listeners, so the header's picker follows
even a change that ends after the dialog was closed."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QLocale, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import MiraError
from ...core.knowledge import KnowledgeBaseStats
from ..dialogs.async_guard import guarded, show_or_log
from ..error_texts import error_line
from ..window.confirm import ask_then
from .kb_documents import DocumentsPane
from .kb_embedding import EmbeddingRow

if TYPE_CHECKING:
    from ...services.kb import KnowledgeBaseService
    from ...services.providers import ProviderService
    from ..controllers.tasks import TaskRunner

log = logging.getLogger(__name__)

_ID = Qt.ItemDataRole.UserRole + 1


class KnowledgeBaseDialog(QDialog):
    def __init__(
        self,
        knowledge: KnowledgeBaseService,
        providers: ProviderService,
        tasks: TaskRunner,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("KnowledgeBaseDialog")
        self._service = knowledge
        self._providers = providers
        self._tasks = tasks
        self._bases: list[KnowledgeBaseStats] = []
        self._selected: str | None = None
        self.loads = 0
        self.base_list = QTreeWidget(self)
        self.base_list.setObjectName("KbList")
        self.base_list.setRootIsDecorated(False)
        self.base_list.setColumnCount(4)
        self.base_list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.base_list.itemDoubleClicked.connect(
            lambda item, _col: self.base_list.editItem(item, 0)
        )
        self.base_list.currentItemChanged.connect(self._on_selected)
        self.base_list.itemChanged.connect(self._on_item_edited)
        self.base_list.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.base_list.header().setStretchLastSection(False)
        self.name_edit = QLineEdit(self)
        self.name_edit.setObjectName("KbNameEdit")
        self.name_edit.returnPressed.connect(self.create_base)
        self.create_button = QPushButton(self)
        self.create_button.setProperty("primary", True)
        self.rename_button = QPushButton(self)
        self.delete_button = QPushButton(self)
        self.documents = DocumentsPane(knowledge, tasks, self)
        self.embedding = EmbeddingRow(self)
        self.status = QLabel(self)
        self.status.setObjectName("KbStatus")
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        self._build_layout()
        self._connect()
        self._retranslate()
        self._update_buttons()
        self.resize(820, 660)

    def _build_layout(self) -> None:
        top = QWidget(self)
        upper = QVBoxLayout(top)
        upper.setContentsMargins(0, 0, 0, 0)
        upper.addWidget(self.base_list, 1)
        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.name_edit, 1)
        for button in (self.create_button, self.rename_button, self.delete_button):
            row.addWidget(button)
        upper.addLayout(row)
        lower = QWidget(self)
        below = QVBoxLayout(lower)
        below.setContentsMargins(0, 6, 0, 0)
        below.addWidget(self.documents, 1)
        below.addWidget(self.embedding)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(top)
        splitter.addWidget(lower)
        splitter.setSizes([220, 380])
        outer = QVBoxLayout(self)
        outer.addWidget(splitter, 1)
        outer.addWidget(self.status)
        outer.addWidget(self.buttons)

    def _connect(self) -> None:
        self.create_button.clicked.connect(self.create_base)
        self.rename_button.clicked.connect(self.rename_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.documents.changed.connect(lambda: self._tasks.start(self.reload()))
        self.documents.status.connect(self._set_status)
        self.documents.busy_changed.connect(lambda _busy: self._update_buttons())
        self.embedding.apply_requested.connect(self.use_embeddings)
        self.embedding.off_requested.connect(self.embeddings_off)

    # ---- loading --------------------------------------------------------------------
    def load(self, select: str | None = None) -> None:
        self._selected = select or self._selected
        self._tasks.start(self._load_models())
        self._tasks.start(self.reload())

    async def _load_models(self) -> None:
        models = await guarded(self, self._providers.list_models())
        if models is not None:
            self.embedding.set_models(models)

    async def reload(self) -> None:
        bases = await guarded(self, self._service.list_all())
        if bases is None:
            return
        self._bases = bases
        self.base_list.blockSignals(True)
        self.base_list.clear()
        locale = QLocale()
        for stats in bases:
            item = QTreeWidgetItem(self.base_list, _columns(stats, locale))
            item.setData(0, _ID, stats.kb.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            for column in (1, 2, 3):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
        self.base_list.blockSignals(False)
        row = next((i for i, b in enumerate(bases) if b.kb.id == self._selected), 0)
        current = self.base_list.topLevelItem(row)
        if current is not None:
            self.base_list.setCurrentItem(current)
        self._show_selected()
        self.loads += 1

    def base_names(self) -> list[str]:
        return [b.kb.name for b in self._bases]

    def selected(self) -> KnowledgeBaseStats | None:
        return next((b for b in self._bases if b.kb.id == self._selected), None)

    def select(self, kb_id: str) -> None:
        for row in range(self.base_list.topLevelItemCount()):
            item = self.base_list.topLevelItem(row)
            if item is not None and item.data(0, _ID) == kb_id:
                self.base_list.setCurrentItem(item)

    def _on_selected(self, item: QTreeWidgetItem | None) -> None:
        kb_id = item.data(0, _ID) if item is not None else None
        if kb_id != self._selected:
            self._selected = kb_id
            self._show_selected(documents=True)

    def _show_selected(self, *, documents: bool = False) -> None:
        stats = self.selected()
        if stats is None:
            self._selected = None
        kb_id = stats.kb.id if stats else None
        if documents or kb_id != self.documents.kb_id or self.documents.loads == 0:
            self.documents.set_kb(kb_id, stats.kb.name if stats else "")
        self.embedding.set_stats(stats)
        self._update_buttons()

    # ---- create, rename, delete -----------------------------------------------------
    def create_base(self) -> None:
        name = self.name_edit.text()

        async def create() -> None:
            kb = await self._service.create(name)
            self.name_edit.clear()
            self._changed(
                kb.id, self.tr("Created “{0}”. Add files or a folder below.").format(kb.name)
            )

        self._run(create())

    def rename_selected(self) -> None:
        item = self.base_list.currentItem()
        if item is not None:
            self.base_list.editItem(item, 0)

    def _on_item_edited(self, item: QTreeWidgetItem, column: int) -> None:
        kb_id = item.data(0, _ID)
        if column == 0 and kb_id:
            self.rename(kb_id, item.text(0))

    def rename(self, kb_id: str, name: str) -> None:
        async def rename() -> None:
            try:
                kb = await self._service.rename(kb_id, name)
            finally:
                await self.reload()  # shows the stored name even when refused
            self._changed(kb.id, self.tr("Renamed to “{0}”.").format(kb.name))

        self._run(rename())

    def delete_selected(self) -> None:
        stats = self.selected()
        if stats is None:
            return
        text = self.tr(
            "Delete the knowledge base “{name}” and its {count} documents from Mira? "
            "The files themselves stay where they are. Threads that use it keep their "
            "whole history; they just stop answering from it."
        ).format(name=stats.kb.name, count=stats.documents)
        ask_then(self, self.tr("Delete knowledge base"), text, lambda: self._delete(stats))

    def _delete(self, stats: KnowledgeBaseStats) -> None:
        async def delete() -> None:
            if self.documents.is_busy() and self._selected == stats.kb.id:
                self.documents.cancel()
            unbound = await self._service.delete(stats.kb.id)
            self._selected = None
            self._changed(
                None,
                self.tr("Deleted “{name}”. {count} thread(s) keep their history.").format(
                    name=stats.kb.name, count=unbound
                ),
            )

        self._run(delete())

    # ---- embeddings -----------------------------------------------------------------
    def use_embeddings(self, provider: str, model: str) -> None:
        stats = self.selected()
        if stats is None:
            return
        kb_id = stats.kb.id

        async def configure() -> None:
            await self._service.configure_embeddings(kb_id, provider, model)
            await self.reload()
            self.documents.start_job(
                self.tr("Embedding passages…"),
                lambda progress, cancel: self._service.embed_pending(
                    kb_id, progress=progress, cancel=cancel
                ),
            )

        self._run(configure())

    def embeddings_off(self) -> None:
        stats = self.selected()
        if stats is not None:
            kb_id = stats.kb.id
            self._run(self._off(kb_id))

    async def _off(self, kb_id: str) -> None:
        await self._service.disable_embeddings(kb_id)
        self._changed(kb_id, self.tr("Keyword search only for this knowledge base."))

    # ---- helpers --------------------------------------------------------------------
    def _changed(self, select: str | None, text: str) -> None:
        if select is not None:
            self._selected = select
        self._set_status(text)
        self._tasks.start(self.reload())

    def _run(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            try:
                await guarded(self, work)
            except MiraError as exc:
                show_or_log(self, exc, self._set_status, error_line(exc), True)

        self._tasks.start(run())

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setProperty("status", "error" if error else "")
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)

    def _update_buttons(self) -> None:
        chosen = self.selected() is not None
        self.rename_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen and not self.documents.is_busy())

    def done(self, result: int) -> None:
        self.documents.cancel()  # a running job stops after its current file
        super().done(result)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Knowledge bases"))
        self.base_list.setHeaderLabels(
            [self.tr("Name"), self.tr("Documents"), self.tr("Passages"), self.tr("Index size")]
        )
        for column in (1, 2, 3):
            self.base_list.headerItem().setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
        self.name_edit.setPlaceholderText(self.tr("Name of a new knowledge base"))
        self.create_button.setText(self.tr("Create"))
        self.rename_button.setText(self.tr("Rename…"))
        self.delete_button.setText(self.tr("Delete…"))
        self.documents.retranslate()
        self.embedding.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()


def _columns(stats: KnowledgeBaseStats, locale: QLocale) -> list[str]:
    return [
        stats.kb.name,
        locale.toString(stats.documents),
        locale.toString(stats.chunks),
        locale.formattedDataSize(stats.index_bytes),
    ]
