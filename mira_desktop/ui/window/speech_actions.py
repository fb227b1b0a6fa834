"""``SpeechActions``: answers read aloud in the window (PRODUCT.md §10).

* The header menu's "Read answers aloud" is the conversation's TTS switch: for
  a saved thread it is set at once (``ThreadService.set_tts``); in a welcome
  draft it is kept on the presenter (``draft_tts``) and set by the first send.
  A new chat starts with it off.
* An answer's "⋯" menu has "Read aloud" (any ended answer, switch or not).
* The speech service's news (reading, read, failed) reach the answer's
  ``SpeechBar``; its Play hands a ``.wav`` copy (in the data folder's cache) to
  the system's audio player, Save… writes the file where people choose, Try
  again reads the answer once more. Files are copied off the Qt thread
  (``SpeechService.copy_audio``)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from ...core.errors import MiraError
from ...core.models import Message, MessageRole, MessageStatus
from ...core.speech import SPEECH_KEY, SpeechInfo
from ..error_texts import error_line
from ..export.feedback import ask_save_path
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)


class SpeechActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._draft_key: str | None = None
        self.read_aloud_action = QAction(window)
        self.read_aloud_action.setObjectName("ReadAloudAction")
        self.read_aloud_action.setCheckable(True)
        menu = window.header.menu
        menu.insertAction(window.undo_turn_action, self.read_aloud_action)
        menu.insertSeparator(window.undo_turn_action)
        self._connect()
        services.on_built("speech", lambda s: s.add_listener(self.show_speech))
        window.installEventFilter(self)
        self._retranslate()

    def _connect(self) -> None:
        w = self._w
        self.read_aloud_action.triggered.connect(self.set_read_aloud)
        self._p.state_changed.connect(self._sync)
        self._p.current_changed.connect(self._on_current_changed)
        w.timeline.message_menu_requested.connect(self._fill_message_menu)
        w.timeline.speech_requested.connect(self._on_speech_requested)

    # ---- the switch -------------------------------------------------------------------
    def is_on(self) -> bool:
        """The switch of the conversation shown (a draft's, or the thread's)."""
        thread = self._p.thread
        if self._p.is_draft or thread is None or thread.id != self._p.key:
            return self._p.draft_tts
        return thread.tts_enabled

    def set_read_aloud(self, on: bool) -> None:
        if self._p.is_draft:
            self._p.draft_tts = on
            return
        key = self._p.key

        async def switch() -> None:
            try:
                await self._services.threads.set_tts(key, on)
            except MiraError as exc:
                self._notice(error_line(exc))
            await self._p.refresh_sidebar_row(key)
            self._sync()

        self._tasks.start(switch())

    def _on_current_changed(self, key: str) -> None:
        if self._p.is_draft and key != self._draft_key:
            self._p.draft_tts = False  # a new chat starts with the switch off
        self._draft_key = key if self._p.is_draft else None
        self._sync()

    def _sync(self) -> None:
        self.read_aloud_action.setChecked(self.is_on())

    # ---- an answer --------------------------------------------------------------------
    def _fill_message_menu(self, message_id: str, menu: QMenu) -> None:
        message = self._w.timeline.message(message_id)
        if message is None or not _can_speak(message):
            return
        info = SpeechInfo.from_data(message.data)
        text = (
            self.tr("Read aloud again")
            if info and info.status == "ready"
            else self.tr("Read aloud")
        )
        action = menu.addAction(text)
        action.setObjectName("message:speak")
        action.setEnabled(info is None or info.status != "pending")
        action.triggered.connect(lambda: self.speak(message_id))

    def speak(self, message_id: str) -> None:
        async def speak() -> None:
            try:
                await self._services.speech.speak(message_id)
            except MiraError as exc:
                self._notice(error_line(exc))

        self._tasks.start(speak())

    def show_speech(self, message: Message) -> None:
        """The speech service's news of an answer: shown when it is on screen."""
        timeline = self._w.timeline
        shown = timeline.message(message.id)
        speech = (message.data or {}).get(SPEECH_KEY)
        if shown is None or speech is None:
            return
        timeline.upsert_message(replace(shown, data={**(shown.data or {}), SPEECH_KEY: speech}))

    def _on_speech_requested(self, message_id: str, action: str) -> None:
        if action == "retry":
            self.speak(message_id)
            return
        message = self._w.timeline.message(message_id)
        info = SpeechInfo.from_data(message.data if message else None)
        if info is None or info.status != "ready":
            return
        if action == "play":
            self._tasks.start(self._play(info))
        elif action == "save":
            self._save(info)

    async def _play(self, info: SpeechInfo) -> None:
        from PySide6.QtCore import QUrl  # where it is used: not at start-up
        from PySide6.QtGui import QDesktopServices

        folder = self._services.data_dir / "cache" / "speech"
        try:
            path = await self._services.speech.copy_audio(info, folder / info.name)
        except MiraError as exc:
            self._notice(error_line(exc))
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self._notice(self.tr("No program to play audio was found. Use Save… to keep the file."))

    def _save(self, info: SpeechInfo) -> None:
        target = ask_save_path(
            self._w, self.tr("Save the spoken answer"), info.name, self.tr("WAV audio (*.wav)")
        )
        if target is None:
            return

        async def save() -> None:
            try:
                await self._services.speech.copy_audio(info, target)
            except MiraError as exc:
                self._notice(error_line(exc))
                return
            self._notice(self.tr("Saved {0}").format(target.name))

        self._tasks.start(save())

    def _notice(self, text: str) -> None:
        self._w.notice_bar.show_notice(text)

    # ---- language ---------------------------------------------------------------------
    def _retranslate(self) -> None:
        self.read_aloud_action.setText(self.tr("Read answers aloud"))
        self.read_aloud_action.setToolTip(
            self.tr("Speak each new answer of this conversation with the system voice")
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False


def _can_speak(message: Message) -> bool:
    return (
        message.role is MessageRole.ASSISTANT
        and message.status is not MessageStatus.STREAMING
        and bool(message.text.strip())
    )
