"""``ImageActions``: illustrated answers in the window (PRODUCT.md §10) — the
header menu's "Illustrate answers" switch (it works with a role and without
a knowledge base: turned on otherwise, a notice says what is missing),
"Illustrate" in an answer's menu, and the answer's ``ImageCard``: the picture
(scaled off the Qt thread by ``Thumbnails``), Open in the system's viewer,
Save…, Try again. What this shares with spoken answers is in
``answer_media_actions.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.media_keys import IMAGE_KEY
from ...core.models import Thread
from ..timeline.thumbnails import Thumbnails
from .answer_media_actions import AnswerMediaActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow


class ImageActions(AnswerMediaActions):
    key = IMAGE_KEY
    service_name = "images"
    thread_flag = "image_enabled"
    draft_flag = "draft_image"
    switch_name = "IllustrateAction"
    menu_name = "message:illustrate"

    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self.thumbnails = Thumbnails(lambda sha256: services.media.path(sha256), self)
        window.timeline.set_thumbnails(self.thumbnails)

    def _on_media_requested(self, message_id: str, key: str, action: str) -> None:
        """Also a click on a picture someone attached: opened like an answer's."""
        if key == "attachment" and action.startswith("open:"):
            message = self._w.timeline.message(message_id)
            sha256 = action.removeprefix("open:")
            for item in (message.data or {}).get("attachments") or [] if message else []:
                if isinstance(item, dict) and item.get("sha256") == sha256:
                    self._tasks.start(self._open(item, folder="attachments"))
                    return
            return
        super()._on_media_requested(message_id, key, action)

    def _after_switch(self, on: bool) -> None:
        """Say what an illustration still needs (a role, no knowledge base)."""
        if not on:
            return
        w = self._w
        role = w.context_actions.current_role_id()
        kb = w.kb_actions.current_kb_id()
        if not role:
            self._notice(
                self.tr(
                    "Answers are illustrated in a conversation with a role: choose one in the header."
                )
            )
        elif kb:
            self._notice(self.tr("Answers from a knowledge base are not illustrated."))

    def _retranslate(self) -> None:
        self.switch_action.setText(self.tr("Illustrate answers"))
        self.switch_action.setToolTip(
            self.tr(
                "Draw a picture for each new answer with the image model chosen in Settings"
                " (a conversation with a role, without a knowledge base)"
            )
        )

    def _menu_text(self, made: bool) -> str:
        return self.tr("Illustrate again") if made else self.tr("Illustrate")

    def _save_texts(self) -> tuple[str, str]:
        return self.tr("Save the picture"), self.tr("Images (*.png *.jpg *.webp *.gif)")

    def _no_program_text(self) -> str:
        return self.tr("No program to show pictures was found. Use Save… to keep the file.")

    async def _set_thread_switch(self, thread_id: str, on: bool) -> Thread:
        return await self._services.threads.set_image(thread_id, on)
