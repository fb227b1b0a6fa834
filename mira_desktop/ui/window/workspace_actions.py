"""``WorkspaceActions``: creating, editing and deleting workspaces from the
sidebar (PRODUCT.md §1, §8, §13) through ``WorkspaceService``. Creating and
editing open :class:`WorkspaceDialog` (opened, never ``exec()``-ed), which
stays open until its values are saved — all of them in one call, or none,
with the reason shown in the dialog — and the sidebar is reloaded after any
attempt (another window or the command line may have changed it); deleting
first counts the workspace's conversations and asks, naming that number and
where they go (Mira BASE's trash, restorable). Mira BASE cannot be deleted."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt

from ...core.errors import MiraError
from ...core.models import Workspace
from ..error_texts import error_line
from .confirm import ask_then
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.tasks import TaskRunner
    from ..dialogs.workspace_dialog import WorkspaceDialog, WorkspaceValues
    from .conversation import ConversationPresenter
    from .history_actions import HistoryActions
    from .main_window import MainWindow

log = logging.getLogger(__name__)


class WorkspaceActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
        history: HistoryActions,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._history = history
        self.dialog: WorkspaceDialog | None = None
        sidebar = window.sidebar
        sidebar.workspace_create_requested.connect(self.create)
        sidebar.workspace_edit_requested.connect(self.edit)
        sidebar.workspace_delete_requested.connect(self.delete)

    def _find(self, workspace_id: str) -> Workspace | None:
        return next((w for w in self._w.sidebar.workspaces() if w.id == workspace_id), None)

    async def reload(self) -> None:
        self._w.sidebar.set_workspaces(await self._services.workspaces.list_workspaces())

    # ---- create and edit ----------------------------------------------------------
    def create(self) -> None:
        dialog = self._open_dialog(None)
        dialog.submitted.connect(lambda values: self._save(dialog, None, values))

    def edit(self, workspace_id: str) -> None:
        workspace = self._find(workspace_id)
        if workspace is None:
            return
        dialog = self._open_dialog(workspace)
        dialog.submitted.connect(lambda values: self._save(dialog, workspace, values))

    def _save(
        self, dialog: WorkspaceDialog, old: Workspace | None, values: WorkspaceValues
    ) -> None:
        dialog.set_busy(True)
        self._tasks.start(self._saved(dialog, old, values))

    async def _saved(
        self, dialog: WorkspaceDialog, old: Workspace | None, values: WorkspaceValues
    ) -> None:
        """Create or update from the dialog's values; on failure the dialog
        stays open with the reason and what was typed."""
        service = self._services.workspaces
        try:
            if old is None:
                saved = await service.create(
                    values.name, color=values.color, root_dir=values.root_dir
                )
            else:
                saved = await service.update(
                    old.id, name=values.name, color=values.color, root_dir=values.root_dir
                )
        except MiraError as exc:
            if shiboken6.isValid(dialog):
                dialog.set_busy(False)
                dialog.show_error(error_line(exc))
            return
        finally:
            await self.reload()
        if shiboken6.isValid(dialog):
            dialog.finish()
        if old is None:
            self._w.sidebar.workspace_list.select_workspace(saved.id)

    def _open_dialog(self, workspace: Workspace | None) -> WorkspaceDialog:
        from ..dialogs.workspace_dialog import WorkspaceDialog  # imported when first opened

        dialog = WorkspaceDialog(workspace, self._w)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()
        return dialog

    # ---- delete -------------------------------------------------------------------------
    def delete(self, workspace_id: str) -> None:
        workspace = self._find(workspace_id)
        if workspace is None or workspace.is_default:
            return

        async def count_then_ask() -> None:
            count = await self._services.workspaces.workspace_thread_count(workspace_id)
            text = self.tr(
                'Delete the workspace "{name}"? Its {n} conversation(s) will move to the '
                "trash, restorable into Mira BASE."
            ).format(name=workspace.name, n=count)
            ask_then(
                self._w,
                self.tr("Delete workspace"),
                text,
                lambda: self._tasks.start(self._delete(workspace_id)),
            )

        self._tasks.start(count_then_ask())

    async def _delete(self, workspace_id: str) -> None:
        moved = await self._services.workspaces.delete(workspace_id)
        open_thread = self._p.current_thread
        await self.reload()  # selects "All" if the deleted one was chosen
        self._history.reload()
        if open_thread is not None and open_thread.workspace_id == workspace_id:
            self._p.new_chat()
        self._w.notice_bar.show_notice(
            self.tr("Workspace deleted; {n} conversation(s) moved to the trash.").format(n=moved)
        )
