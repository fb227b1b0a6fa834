"""``ThreadSwitch``: a checkable entry of the header's ⋯ menu that is one of
the conversation's switches (read aloud, illustrate, the agent). For a saved
thread it is set at once (through ``set_on_thread``); in a welcome draft it is
kept on the presenter (``draft_flag``) and set by the first send
(``SendRequest``). A new chat starts with it off."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from ...core.errors import MiraError
from ...core.models import Thread
from ..error_texts import error_line

if TYPE_CHECKING:
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow


class ThreadSwitch(QObject):
    def __init__(
        self,
        window: MainWindow,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
        *,
        name: str,
        thread_flag: str,
        draft_flag: str,
        set_on_thread: Callable[[str, bool], Awaitable[Thread]],
        after: Callable[[bool], None] | None = None,
        thread_on: Callable[[Thread], bool] | None = None,
    ) -> None:
        """``thread_flag``: the ``Thread`` field that is the switch, unless
        ``thread_on`` reads it another way (plan mode is ``Thread.mode``)."""
        super().__init__(window)
        self._w, self._tasks, self._p = window, tasks, presenter
        self._thread_flag, self._draft_flag = thread_flag, draft_flag
        self._set_on_thread = set_on_thread
        self._thread_on = thread_on or (lambda thread: bool(getattr(thread, thread_flag)))
        self._after = after
        self._draft_key: str | None = None
        self.action = QAction(window)
        self.action.setObjectName(name)
        self.action.setCheckable(True)
        window.header.menu.insertAction(window.undo_turn_action, self.action)
        self.action.triggered.connect(self.set_switch)
        presenter.state_changed.connect(self.sync)
        presenter.current_changed.connect(self._on_current_changed)

    def is_on(self) -> bool:
        """The switch of the conversation shown (a draft's, or the thread's)."""
        thread = self._p.current_thread
        if self._p.is_draft or thread is None or thread.id != self._p.key:
            return bool(getattr(self._p, self._draft_flag))
        return self._thread_on(thread)

    def set_switch(self, on: bool) -> None:
        if self._p.is_draft:
            setattr(self._p, self._draft_flag, on)
            if self._after is not None:
                self._after(on)
            return
        key = self._p.key

        async def switch() -> None:
            try:
                await self._set_on_thread(key, on)
            except MiraError as exc:
                self._w.notice_bar.show_notice(error_line(exc))
            await self._p.refresh_sidebar_row(key)
            self.sync()
            if self._after is not None:
                self._after(on)

        self._tasks.start(switch())

    def _on_current_changed(self, key: str) -> None:
        if self._p.is_draft and key != self._draft_key:
            setattr(self._p, self._draft_flag, False)  # a new chat starts with it off
        self._draft_key = key if self._p.is_draft else None
        self.sync()

    def sync(self) -> None:
        self.action.setChecked(self.is_on())
