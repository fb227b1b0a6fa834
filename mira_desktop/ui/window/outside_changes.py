"""``OutsideChanges``: what another process changed in the data folder while
the window is open — ``mira-desktop chat`` starting a thread, ``thread
rename`` / ``trash`` / ``pin`` — reaches the sidebar.

SQLite's ``PRAGMA data_version`` moves when another connection commits (never
for this window's own writes, which update the sidebar live): it is read on the
database thread, off the paint path, when the window becomes active and every
``CHECK_MS`` while it is open — one tiny read, no polling of the rows. When it
moved, the sidebar's list syncs (``ThreadListModel.sync``: the loaded rows read
again and the difference applied, the selection and the rows in sight kept)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer

from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

#: how often an open window looks for outside changes (activation looks at once)
CHECK_MS = 3000
_TASK = "outside-changes"


class OutsideChanges(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
        *,
        interval_ms: int = CHECK_MS,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._mark: int | None = None  # data_version when last looked
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        window.installEventFilter(self)

    async def start(self) -> None:
        """Take the mark the window starts from (before its first page), then
        look again now and then."""
        self._mark = await self._services.history.outside_change_mark()
        self._timer.start()

    def check(self) -> None:
        """Look for outside changes, unless a look is on its way, or the window
        was closed (the services close after it; so may the loop)."""
        if self._mark is None or self._tasks.get(_TASK) is not None or not self._w.isVisible():
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self._tasks.start(self._check(), key=_TASK)

    async def _check(self) -> None:
        try:
            mark = await self._services.history.outside_change_mark()
        except Exception as error:  # a look failing must not disturb: the next one retries
            log.warning("could not look for outside changes: %s", error)
            return
        if mark != self._mark:
            log.debug("the database changed elsewhere (data_version %s → %s)", self._mark, mark)
            self._mark = mark
            self._w.thread_model.sync()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self._w
            and event.type() == QEvent.Type.ActivationChange
            and self._w.isActiveWindow()
        ):
            self.check()
        return super().eventFilter(watched, event)
