"""``ContextActions``: the conversation's model context in the window
(PRODUCT.md §1, §4) — its role, its context summary and its compaction.

* Role: the header's role picker shows the thread's role; picking one binds it
  (``ThreadService.set_role``); in a welcome draft the choice is kept here and
  sent with the first message (``SendRequest.role_id``). "Manage roles…" and
  the header menu's "Roles…" open the role library.
* Summary: the header menu's "Context summary…" opens the summary dialog of
  the saved thread shown; automatic refreshes reach an open dialog.
* Compaction: ``/compact [instructions]`` from the composer runs
  ``ChatService.compact`` and shows the "Context compressed" card, or the
  notice "Nothing to compact yet."; the automatic compaction of a send shows a
  transient "Compressing context…" notice, then its card."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction

from ...core.errors import MiraError
from ..error_texts import error_line
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...core.context import ContextSummary
    from ...core.events import Compacted
    from ..controllers.chat_controller import ChatController
    from ..controllers.tasks import TaskRunner
    from ..dialogs.role_dialog import RoleDialog
    from ..dialogs.summary_dialog import SummaryDialog
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

NOTICE_MS = 6000


class ContextActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        chat: ChatController,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._chat = chat
        self._draft_role: str | None = None
        self._draft_key: str | None = None
        self._compacting: set[str] = set()
        self.role_dialog: RoleDialog | None = None
        self.summary_dialog: SummaryDialog | None = None
        self._build_actions()
        self._connect()
        # the summary service (and the compaction stack) is built on first use
        services.on_built("summaries", lambda s: s.add_listener(self._on_summary_refreshed))
        window.listeners.listen("roles", self._after_roles_changed)
        window.installEventFilter(self)
        self._retranslate()
        tasks.start(self.reload_roles())

    def _build_actions(self) -> None:
        w = self._w
        self.summary_action = QAction(w)
        self.summary_action.setObjectName("ContextSummaryAction")
        self.roles_action = QAction(w)
        self.roles_action.setObjectName("RolesAction")
        menu = w.header.menu
        menu.insertActions(w.undo_turn_action, [self.summary_action, self.roles_action])
        menu.insertSeparator(w.undo_turn_action)

    def _connect(self) -> None:
        picker = self._w.header.role_picker
        picker.role_chosen.connect(self.choose_role)
        picker.manage_requested.connect(self.open_roles)
        self.roles_action.triggered.connect(self.open_roles)
        self.summary_action.triggered.connect(self.open_summary)
        self._p.state_changed.connect(self._sync)
        self._p.current_changed.connect(self._on_current_changed)
        self._chat.compacting.connect(self._on_compacting)
        self._chat.compacted.connect(self._on_compacted)

    # ---- roles -----------------------------------------------------------------------
    async def reload_roles(self) -> None:
        roles = await self._services.roles.list()
        if self._draft_role not in {r.id for r in roles}:
            self._draft_role = None  # deleted: a new chat does not send to it
        self._w.header.role_picker.set_roles(roles)
        self._sync()

    def _after_roles_changed(self) -> None:
        """A role created, edited or deleted (``RoleService`` listeners)."""
        self._tasks.start(self.reload_roles())

    def draft_role_id(self) -> str | None:
        return self._draft_role

    def current_role_id(self) -> str | None:
        thread = self._p.current_thread
        if self._p.is_draft or thread is None or thread.id != self._p.key:
            return self._draft_role
        return thread.role_id

    def choose_role(self, role_id: str) -> None:
        if self._p.is_draft:
            self._draft_role = role_id or None
            return
        key = self._p.key

        async def bind() -> None:
            await self._services.threads.set_role(key, role_id or None)
            await self._p.refresh_sidebar_row(key)
            self._role_changed()

        self._tasks.start(bind())

    def _role_changed(self) -> None:
        self._sync()
        self._p.state_changed.emit()  # the meter counts the new role's prompt

    def _on_current_changed(self, key: str) -> None:
        if self._p.is_draft and key != self._draft_key:
            self._draft_role = None  # a new chat starts without a role
        self._draft_key = key if self._p.is_draft else None
        self._sync()

    def _sync(self) -> None:
        self._w.header.role_picker.set_current(self.current_role_id())
        saved = not self._p.is_draft and self._p.current_thread is not None
        self.summary_action.setEnabled(saved)

    def open_roles(self) -> None:
        from ..dialogs.role_dialog import RoleDialog

        current = self.role_dialog
        if current is not None and shiboken6.isValid(current) and current.isVisible():
            current.raise_()
            return
        dialog = RoleDialog(self._services.roles, self._tasks, self._w)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.role_dialog = dialog
        dialog.load(self.current_role_id())
        dialog.open()

    # ---- summary ---------------------------------------------------------------------
    def open_summary(self) -> None:
        from ..dialogs.summary_dialog import SummaryDialog

        if self._p.is_draft or self._p.current_thread is None:
            return
        dialog = SummaryDialog(self._services.summaries, self._tasks, self._p.key, self._w)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.summary_dialog = dialog
        dialog.load()
        dialog.open()

    def _on_summary_refreshed(self, summary: ContextSummary) -> None:
        dialog = self.summary_dialog
        if dialog is None or not shiboken6.isValid(dialog) or not dialog.isVisible():
            return
        if dialog.thread_id == summary.thread_id and not dialog.is_busy():
            dialog.show_summary(summary)

    # ---- compaction ------------------------------------------------------------------
    def is_compacting(self, key: str) -> bool:
        return key in self._compacting

    def compact(self, instructions: str | None, typed: str) -> None:
        """``/compact [instructions]`` sent from the composer (``typed``: its text)."""
        key = self._p.key
        if self._p.is_draft or self._p.current_thread is None:
            self._w.composer.take_text(typed)  # done: there is nothing to compact
            self.notify(self.tr("Nothing to compact yet."))
            return
        if self._chat.is_running(key) or key in self._compacting:  # the command stays typed
            self.notify(self.tr("This thread is still answering. Stop it first, then compact."))
            return
        self._w.composer.take_text(typed)
        self._compacting.add(key)
        self.notify(self.tr("Compressing context…"), transient=False)
        self._tasks.start(self._compact(key, instructions, typed))

    async def _compact(self, key: str, instructions: str | None, typed: str) -> None:
        try:
            result = await self._services.chat.compact(key, instructions)
        except MiraError as exc:
            if key == self._p.key:
                self._give_back(typed)
            self.notify(error_line(exc), transient=False)
            return
        finally:
            self._compacting.discard(key)
        if result.card is None:
            self.notify(self.tr("Nothing to compact yet."))
            return
        if key == self._p.key:
            self._w.timeline.upsert_message(result.card)
            self._w.timeline.scroll_to_message(result.card.id)
        self.notify(self.tr("Context compressed: later messages build on its summary."))
        self._p.state_changed.emit()

    def _on_compacting(self, key: str, _event: object) -> None:
        if key == self._p.key:
            self.notify(self.tr("Compressing context…"))

    def _on_compacted(self, key: str, event: Compacted) -> None:
        if key != self._p.key:
            return
        self._w.timeline.upsert_message(event.card)
        self.notify(self.tr("Context compressed to fit the model's window."))

    def _give_back(self, text: str) -> None:
        self._w.composer.give_back(text)

    def notify(self, text: str, *, transient: bool = True) -> None:
        """A notice in the banner; a transient one goes away by itself."""
        self._p.notice.emit(text)
        if transient:
            bar = self._w.notice_bar

            def hide_if_still_shown() -> None:  # a newer notice stays
                if bar.text() == text:
                    bar.show_notice("")

            QTimer.singleShot(NOTICE_MS, bar, hide_if_still_shown)

    # ---- language ----------------------------------------------------------------------
    def _retranslate(self) -> None:
        self.summary_action.setText(self.tr("Context summary…"))
        self.summary_action.setToolTip(
            self.tr("The hidden summary sent with every message of this thread")
        )
        self.roles_action.setText(self.tr("Roles…"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False
