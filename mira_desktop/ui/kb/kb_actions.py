"""``KbActions``: knowledge bases in the window (PRODUCT.md §3 path 2).

* File → Knowledge bases… (and the header picker's "Manage knowledge bases…")
  opens the manager (``kb_manager.KnowledgeBaseDialog``).
* The header's picker (``kb_picker.KbPickerButton``) shows the conversation's
  base. Picking one for a saved thread binds it at once
  (``KnowledgeBaseService.bind`` / ``unbind``). In a welcome draft the choice
  is kept on the presenter (``ConversationPresenter.draft_kb_id``) and sent
  with the first message as ``SendRequest.kb_id``, so the very first question
  already takes the knowledge-base path and the thread is bound when it is
  committed. A new chat starts without a knowledge base.
* After the manager changed the bases (renamed, deleted: bound threads are
  unbound and keep their history) the picker and the shown thread follow."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction

from ..window.window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...core.knowledge import KnowledgeBaseStats
    from ..controllers.tasks import TaskRunner
    from ..window.conversation import ConversationPresenter
    from ..window.main_window import MainWindow
    from .kb_manager import KnowledgeBaseDialog

log = logging.getLogger(__name__)


class KbActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._draft_key: str | None = None
        self.dialog: KnowledgeBaseDialog | None = None
        self.manage_action = QAction(window)
        self.manage_action.setObjectName("KnowledgeBasesAction")
        window.file_menu.insertAction(window.settings_action, self.manage_action)
        self._connect()
        window.installEventFilter(self)
        window.listeners.listen("knowledge", self._after_change)
        self._retranslate()
        # the bases are listed by ``MainWindow.start`` once the window is up (a new
        # chat has none; their value types are a dozen dataclasses to build)

    def _connect(self) -> None:
        picker = self._w.header.kb_picker
        picker.kb_chosen.connect(self.choose)
        picker.manage_requested.connect(self.open_manager)
        self.manage_action.triggered.connect(self.open_manager)
        self._p.state_changed.connect(self._sync)
        self._p.current_changed.connect(self._on_current_changed)

    # ---- the picker -------------------------------------------------------------------
    async def reload_bases(self) -> None:
        bases = await self._list_bases()
        if self._p.draft_kb_id not in {b.kb.id for b in bases}:
            self._p.draft_kb_id = None  # deleted: a new chat does not send to it
        self._w.header.kb_picker.set_bases(bases)
        self._sync()

    async def _list_bases(self) -> list[KnowledgeBaseStats]:
        """``KnowledgeBaseService.list_all()``. Until that service is built (the
        manager opened, a document added, a knowledge-base question asked) the
        same statistics come from its store: start-up shows the picker without
        importing the ingestion and retrieval stack behind the service."""
        services = self._services
        if "knowledge" in services.built:
            return await services.knowledge.list_all()
        return await services.kb_store.stats()

    def current_kb_id(self) -> str | None:
        """The base of the conversation shown (a draft's choice, or the thread's)."""
        thread = self._p.current_thread
        if self._p.is_draft or thread is None or thread.id != self._p.key:
            return self._p.draft_kb_id
        return thread.kb_id

    def choose(self, kb_id: str) -> None:
        """The user picked ``kb_id`` (``""``: none) for the conversation shown."""
        if self._p.is_draft:
            self._p.draft_kb_id = kb_id or None
            return
        key = self._p.key

        async def bind() -> None:
            if kb_id:
                await self._services.knowledge.bind(key, kb_id)
            else:
                await self._services.knowledge.unbind(key)
            await self._p.refresh_sidebar_row(key)
            self._sync()

        self._tasks.start(bind())

    def _on_current_changed(self, key: str) -> None:
        if self._p.is_draft and key != self._draft_key:
            self._p.draft_kb_id = None  # a new chat starts without a knowledge base
        self._draft_key = key if self._p.is_draft else None
        self._sync()

    def _sync(self) -> None:
        self._w.header.kb_picker.set_current(self.current_kb_id())

    # ---- the manager ------------------------------------------------------------------
    def open_manager(self) -> None:
        from .kb_manager import KnowledgeBaseDialog

        current = self.dialog
        if current is not None and shiboken6.isValid(current) and current.isVisible():
            current.raise_()
            current.activateWindow()
            return
        services = self._services
        dialog = KnowledgeBaseDialog(services.knowledge, services.providers, self._tasks, self._w)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.load(self.current_kb_id())
        dialog.open()

    def _after_change(self) -> None:
        """Bases were created, renamed or deleted: the picker and the thread
        shown (a deleted base unbinds it) follow."""
        self._tasks.start(self.reload_bases())
        if not self._p.is_draft and self._p.current_thread is not None:
            self._tasks.start(self._reload_thread(self._p.key))

    async def _reload_thread(self, key: str) -> None:
        await self._p.refresh_sidebar_row(key)
        self._sync()

    # ---- language ---------------------------------------------------------------------
    def _retranslate(self) -> None:
        self.manage_action.setText(self.tr("Knowledge bases…"))
        self.manage_action.setToolTip(
            self.tr("Create knowledge bases, add documents, and answer from them with sources")
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False
