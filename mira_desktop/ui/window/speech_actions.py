"""``SpeechActions``: answers read aloud in the window (PRODUCT.md §10) — the
header menu's "Read answers aloud" switch, "Read aloud" in an answer's menu,
and the answer's ``SpeechBar``: Play hands a ``.wav`` copy to the system's
audio player, Save… keeps the file, Try again reads it once more. What this
shares with illustrated answers is in ``answer_media_actions.py``."""

from __future__ import annotations

from PySide6.QtGui import QAction

from ...core.media_keys import SPEECH_KEY
from ...core.models import Thread
from .answer_media_actions import AnswerMediaActions


class SpeechActions(AnswerMediaActions):
    key = SPEECH_KEY
    service_name = "speech"
    thread_flag = "tts_enabled"
    draft_flag = "draft_tts"
    switch_name = "ReadAloudAction"
    menu_name = "message:speak"

    @property
    def read_aloud_action(self) -> QAction:
        """The header menu's switch."""
        return self.switch_action

    def speak(self, message_id: str) -> None:
        self.make_now(message_id)

    def _retranslate(self) -> None:
        self.switch_action.setText(self.tr("Read answers aloud"))
        self.switch_action.setToolTip(
            self.tr("Speak each new answer of this conversation with the system voice")
        )

    def _menu_text(self, made: bool) -> str:
        return self.tr("Read aloud again") if made else self.tr("Read aloud")

    def _save_texts(self) -> tuple[str, str]:
        return self.tr("Save the spoken answer"), self.tr("WAV audio (*.wav)")

    def _no_program_text(self) -> str:
        return self.tr("No program to play audio was found. Use Save… to keep the file.")

    async def _set_thread_switch(self, thread_id: str, on: bool) -> Thread:
        return await self._services.threads.set_tts(thread_id, on)
