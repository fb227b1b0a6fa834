"""``SearchActions``: the Ctrl+K search dialog of the window. Opens one
:class:`SearchDialog` (opened, never ``exec()``-ed), starting with the
workspace the sidebar shows; a chosen result opens its thread on the branch
that holds the message, scrolled to it and highlighted
(``ConversationPresenter.open_thread_at``), and the sidebar highlights the
thread. Ctrl+K works from the composer too."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..search.search_dialog import SearchDialog
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)


SEARCH_KEY = QKeySequence("Ctrl+K")


class _SearchKeyGuard(QObject):
    """Event filter of the composer's editor: Ctrl+K (delete to the end of the
    line in Qt's text editors on Linux) opens the search instead."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride:
            assert isinstance(event, QKeyEvent)
            if QKeySequence(event.keyCombination()) == SEARCH_KEY:
                event.ignore()
                return True
        return False


class SearchActions(QObject):
    def __init__(
        self, window: MainWindow, services: Services, presenter: ConversationPresenter
    ) -> None:
        super().__init__(window)
        self._w = window
        self._services = services
        self._p = presenter
        self.dialog: SearchDialog | None = None
        self._guard = _SearchKeyGuard(self)
        window.composer.editor.installEventFilter(self._guard)
        window.sidebar.search_requested.connect(self.open_search)

    def open_search(self) -> SearchDialog:
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.raise_()
            self.dialog.activateWindow()
            self.dialog.query_edit.setFocus()
            return self.dialog
        from ..search.search_dialog import SearchDialog  # imported when first opened

        sidebar = self._w.sidebar
        dialog = SearchDialog(
            self._services.search,
            sidebar.workspaces(),
            self._w,
            workspace_id=sidebar.workspace_id(),
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.result_chosen.connect(self.open_result)
        dialog.finished.connect(lambda _result, d=dialog: self._forget(d))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _forget(self, dialog: SearchDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None

    def open_result(self, thread_id: str, message_id: str | None) -> None:
        self._p.open_thread_at(thread_id, message_id)
        self._w.sidebar.select_thread(thread_id)
