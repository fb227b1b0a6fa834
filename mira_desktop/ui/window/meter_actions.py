"""``MeterActions``: keeps the composer's context ring up to date (PRODUCT.md §4).

The ring is measured by ``ContextMeterService.measure`` for the conversation
shown (a welcome draft by its id: the service then counts only the draft,
against the last chosen model's window) with the composer's text and ready
chips. Typing re-measures after a ~300 ms pause (the service counts only the
draft again, the thread's part is cached); a new conversation, a finished
answer, a saved message, a changed model or chip re-measure soon. Each
measurement runs as one task of the window's runner (a newer one cancels the
older), and the service counts long texts in a worker thread."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer

from ...core.errors import MiraError
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..composer.attachments_controller import AttachmentsController
    from ..controllers.chat_controller import ChatController
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

TYPING_DEBOUNCE_MS = 300
SOON_MS = 60
TASK_KEY = "context-meter"


class MeterActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        chat: ChatController,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
        attachments: AttachmentsController,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._attachments = attachments
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.measure_now)
        self.measured = 0  # how many measurements reached the ring (tests, benchmarks)
        window.composer.draft_changed.connect(lambda: self.schedule(TYPING_DEBOUNCE_MS))
        attachments.changed.connect(lambda: self.schedule(SOON_MS))
        presenter.current_changed.connect(lambda _key: self.schedule(SOON_MS))
        presenter.state_changed.connect(lambda: self.schedule(SOON_MS))
        chat.run_finished.connect(lambda *_: self.schedule(SOON_MS))
        chat.user_saved.connect(lambda *_: self.schedule(SOON_MS))
        chat.compacted.connect(lambda *_: self.schedule(SOON_MS))
        window.header.model_chosen.connect(lambda *_: self.schedule(TYPING_DEBOUNCE_MS))

    def schedule(self, delay_ms: int) -> None:
        """Measure after ``delay_ms`` (a pending longer wait is shortened, never lengthened)."""
        if self._timer.isActive() and self._timer.remainingTime() <= delay_ms:
            return
        self._timer.start(delay_ms)

    def measure_now(self) -> None:
        self._timer.stop()
        self._tasks.cancel(TASK_KEY)
        key = self._p.key
        text = self._w.composer.text()
        files = self._attachments.prepared()
        self._tasks.start(self._measure(key, text, files), key=TASK_KEY)

    async def _measure(self, key: str, text: str, files: tuple) -> None:  # type: ignore[type-arg]
        try:
            meter = await self._services.meter.measure(key, text, attachments=files)
        except MiraError as exc:
            log.debug("context meter not measured: %s", exc)
            meter = None
        if key == self._p.key:
            self._w.composer.meter.set_meter(meter)
            self.measured += 1
