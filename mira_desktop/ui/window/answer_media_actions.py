"""``AnswerMediaActions``: media made after an answer, in the window
(PRODUCT.md §10) — what reading aloud (``speech_actions.py``) and
illustrating (``image_actions.py``) share:

* a checkable switch in the header's ⋯ menu (``thread_switch.py``);
* an entry in an answer's ⋯ menu that makes the media now (any ended answer);
* the maker's news (being made, made, failed) shown on the answer's card
  (``MessageWidget.media_requested`` brings its buttons back here): Open /
  Play hands a copy (in the data folder's cache) to the system's program,
  Save… writes it where people choose, Try again makes it again. Files are
  copied off the Qt thread (``AnswerMediaMaker.copy_made``)."""

from __future__ import annotations

import logging
from abc import abstractmethod
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from ...core.errors import MiraError
from ...core.media_keys import SPEECH_KEY
from ...core.models import Message, MessageRole, MessageStatus, Thread
from ...core.opened_files import cache_name
from ..error_texts import error_line
from ..export.feedback import ask_save_path
from .thread_switch import ThreadSwitch
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...services.answer_media import AnswerMediaMaker
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)


class AnswerMediaActions(WindowActions):
    #: the answer's ``data`` key, the service's name in ``Services``
    key: ClassVar[str]
    service_name: ClassVar[str]
    #: the thread's switch (``Thread`` field) and the draft's (presenter attribute)
    thread_flag: ClassVar[str]
    draft_flag: ClassVar[str]
    #: object names: the header's switch and the answer menu's entry
    switch_name: ClassVar[str]
    menu_name: ClassVar[str]

    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._switch = ThreadSwitch(
            window,
            tasks,
            presenter,
            name=self.switch_name,
            thread_flag=self.thread_flag,
            draft_flag=self.draft_flag,
            set_on_thread=self._set_thread_switch,
            after=self._after_switch,
        )
        self.switch_action: QAction = self._switch.action
        window.timeline.message_menu_requested.connect(self._fill_message_menu)
        window.timeline.media_requested.connect(self._on_media_requested)
        services.on_built(self.service_name, lambda s: s.add_listener(self.show_news))
        window.installEventFilter(self)
        self._retranslate()

    # ---- what each kind says and does -------------------------------------------------
    @abstractmethod
    def _retranslate(self) -> None:
        """The switch's text and tooltip."""

    @abstractmethod
    def _menu_text(self, made: bool) -> str:
        """The answer menu's entry (``made``: the answer has its media)."""

    @abstractmethod
    def _save_texts(self) -> tuple[str, str]:
        """The save dialog's title and file filter."""

    @abstractmethod
    async def _set_thread_switch(self, thread_id: str, on: bool) -> Thread:
        """Set the thread's switch through its service."""

    def _no_program_text(self) -> str:
        return self.tr("No program to open this file was found. Use Save… to keep it.")

    def _after_switch(self, on: bool) -> None:
        """A hook after the switch changed (the image's needs a role)."""

    @property
    def _maker(self) -> AnswerMediaMaker:
        maker: AnswerMediaMaker = getattr(self._services, self.service_name)
        return maker

    # ---- the switch -------------------------------------------------------------------
    def is_on(self) -> bool:
        """The switch of the conversation shown (a draft's, or the thread's)."""
        return self._switch.is_on()

    def set_switch(self, on: bool) -> None:
        self._switch.set_switch(on)

    # ---- an answer --------------------------------------------------------------------
    def _fill_message_menu(self, message_id: str, menu: QMenu) -> None:
        message = self._w.timeline.message(message_id)
        if message is None or not _ended_answer(message):
            return
        status = _summary(message, self.key).get("status")
        action = menu.addAction(self._menu_text(status == "ready"))
        action.setObjectName(self.menu_name)
        action.setEnabled(status != "pending")
        action.triggered.connect(lambda: self.make_now(message_id))

    def make_now(self, message_id: str) -> None:
        async def make() -> None:
            try:
                await self._maker.make_now(message_id)
            except MiraError as exc:
                self._notice(error_line(exc))

        self._tasks.start(make())

    def show_news(self, message: Message) -> None:
        """The maker's news of an answer: shown when it is on screen."""
        timeline = self._w.timeline
        shown = timeline.message(message.id)
        summary = (message.data or {}).get(self.key)
        if shown is None or summary is None:
            return
        timeline.upsert_message(replace(shown, data={**(shown.data or {}), self.key: summary}))

    def _on_media_requested(self, message_id: str, key: str, action: str) -> None:
        if key != self.key:
            return
        if action == "retry":
            self.make_now(message_id)
            return
        message = self._w.timeline.message(message_id)
        summary = _summary(message, self.key) if message else {}
        if summary.get("status") != "ready":
            return
        if action == "open":
            self._tasks.start(self._open(summary))
        elif action == "save":
            self._save(summary)

    async def _open(self, summary: dict[str, Any], folder: str = "") -> None:
        """A copy of the file (``sha256``, ``name``, ``size``) in the data
        folder's cache, handed to the system's program for it."""
        from PySide6.QtCore import QUrl  # where it is used: not at start-up
        from PySide6.QtGui import QDesktopServices

        cache = self._services.data_dir / "cache" / (folder or self.key)
        # the name comes from the data (an imported file's too): a plain name
        # in the cache, its ending from the stored type — never a path, never
        # a program
        target = cache / cache_name(str(summary.get("name") or ""), self._mime(summary))
        try:
            path = await self._maker.copy_made(summary["sha256"], int(summary["size"]), target)
        except MiraError as exc:
            self._notice(error_line(exc))
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self._notice(self._no_program_text())

    def _mime(self, summary: dict[str, Any]) -> str:
        """The stored type (spoken answers are always WAV)."""
        return str(summary.get("mime") or ("audio/wav" if self.key == SPEECH_KEY else ""))

    def _save(self, summary: dict[str, Any]) -> None:
        title, filters = self._save_texts()
        suggested = cache_name(str(summary.get("name") or ""), self._mime(summary))
        target = ask_save_path(self._w, title, suggested, filters)
        if target is None:
            return

        async def save() -> None:
            try:
                await self._maker.copy_made(summary["sha256"], int(summary["size"]), target)
            except MiraError as exc:
                self._notice(error_line(exc))
                return
            self._notice(self.tr("Saved {0}").format(target.name))

        self._tasks.start(save())

    def _notice(self, text: str) -> None:
        self._w.notice_bar.show_notice(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False


def _summary(message: Message, key: str) -> dict[str, Any]:
    value = (message.data or {}).get(key)
    return value if isinstance(value, dict) else {}


def _ended_answer(message: Message) -> bool:
    return (
        message.role is MessageRole.ASSISTANT
        and message.status is not MessageStatus.STREAMING
        and bool(message.text.strip())
    )
