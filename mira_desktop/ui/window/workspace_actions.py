"""``WorkspaceActions``: creating, editing and deleting workspaces from the
sidebar (PRODUCT.md §1, §8, §13) through ``WorkspaceService``. Creating and
editing open :class:`WorkspaceDialog` (opened, never ``exec()``-ed); deleting
first counts the workspace's conversations and asks, naming that number and
where they go (Mira BASE's trash, restorable). Mira BASE cannot be deleted."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from ...core.models import Workspace
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
        dialog.accepted.connect(lambda: self._tasks.start(self._create(dialog.values())))

    async def _create(self, values: WorkspaceValues) -> None:
        created = await self._services.workspaces.create(
            values.name, color=values.color, root_dir=values.root_dir
        )
        await self.reload()
        self._w.sidebar.workspace_list.select_workspace(created.id)

    def edit(self, workspace_id: str) -> None:
        workspace = self._find(workspace_id)
        if workspace is None:
            return
        dialog = self._open_dialog(workspace)
        dialog.accepted.connect(lambda: self._tasks.start(self._update(workspace, dialog.values())))

    async def _update(self, old: Workspace, values: WorkspaceValues) -> None:
        service = self._services.workspaces
        if values.name != old.name and not old.is_default:
            await service.rename(old.id, values.name)
        if values.color != old.color:
            await service.set_color(old.id, values.color)
        if values.root_dir != old.root_dir:
            await service.set_root_dir(old.id, values.root_dir)
        await self.reload()

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
        open_thread = self._p.thread
        await self.reload()  # selects "All" if the deleted one was chosen
        self._history.reload()
        if open_thread is not None and open_thread.workspace_id == workspace_id:
            self._p.new_chat()
        self._w.notice_bar.show_notice(
            self.tr("Workspace deleted; {n} conversation(s) moved to the trash.").format(n=moved)
        )
