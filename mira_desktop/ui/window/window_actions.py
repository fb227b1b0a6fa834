"""``WindowActions``: the base of the window's action groups (composer,
context, history, tree, meter, workspaces, knowledge bases): each is a QObject
owned by the window that reaches the window, the services, the task runner and
the presenter (groups that follow the runs keep the chat controller too)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow


class WindowActions(QObject):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window)
        self._w = window
        self._services = services
        self._tasks = tasks
        self._p = presenter
