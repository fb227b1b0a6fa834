"""Parts of an answer most answers do not have (``assistant_message.py``):
a proposed plan's title and buttons (PRODUCT.md §11), the answer's spoken
audio and its picture (§10). Each is built the first time an answer needs
it, its module imported then."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mira_desktop.core.media_keys import IMAGE_KEY, SPEECH_KEY
from mira_desktop.core.models import MessageStatus

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from .image_card import ImageCard
    from .message_state import MessageState, ViewOptions
    from .plan_card import PlanActions, PlanTitle
    from .rich_text import RichTextView
    from .speech_bar import SpeechBar

    _Host = QWidget  # what the checker sees: the parts are built with ``self`` as parent
else:
    _Host = object  # at run time a plain mixin: the widget comes from ``MessageWidget``


class AnswerExtras(_Host):
    """Mixed into ``AssistantMessageWidget`` (a QWidget with these members)."""

    _state: MessageState
    _options: ViewOptions
    _box: QVBoxLayout
    _body: RichTextView
    _plan: tuple[PlanTitle, PlanActions] | None
    _speech: SpeechBar | None
    _image: ImageCard | None
    plan_requested: SignalInstance
    media_requested: SignalInstance
    height_changed: SignalInstance
    if TYPE_CHECKING:

        @property
        def message_id(self) -> str: ...  # ``MessageWidget.message_id`` (read-only)

    def _apply_plan(self) -> None:
        """A proposed plan's title and, once it ended, its buttons (§11)."""
        data = self._state.message.data
        if self._plan is None and not (data and "agent" in data):
            return
        from mira_desktop.core.agent import is_plan

        shown = is_plan(data)
        if self._plan is None:
            if not shown:
                return
            from .plan_card import PlanActions, PlanTitle  # only plans need them

            title, actions = PlanTitle(self), PlanActions(self)
            actions.implement_clicked.connect(
                lambda: self.plan_requested.emit(self.message_id, "implement")
            )
            actions.keep_planning_clicked.connect(
                lambda: self.plan_requested.emit(self.message_id, "keep")
            )
            self._box.insertWidget(self._box.indexOf(self._body), title)
            self._box.insertWidget(self._box.indexOf(self._body) + 1, actions)
            self._plan = (title, actions)
        self._plan[0].setVisible(shown)

    def _apply_plan_actions(self) -> None:
        if self._plan is None:
            return
        from mira_desktop.core.agent import is_plan

        message, options = self._state.message, self._options
        ended = message.status is MessageStatus.COMPLETE
        latest = options.open_plan_id == message.id  # an older plan was answered since
        shown = is_plan(message.data) and ended and options.actions_enabled and latest
        self._plan[1].setVisible(shown)

    def _apply_speech(self) -> None:
        """The answer's spoken audio (PRODUCT.md §10), when it has some."""
        if self._speech is None and SPEECH_KEY not in (self._state.message.data or {}):
            return  # most answers: nothing to import or build
        from mira_desktop.core.speech import SpeechInfo

        info = SpeechInfo.from_data(self._state.message.data)
        if self._speech is None:
            from .speech_bar import SpeechBar  # only answers read aloud need it

            self._speech = SpeechBar(self)
            for signal, action in (
                (self._speech.open_clicked, "open"),
                (self._speech.save_clicked, "save"),
                (self._speech.retry_clicked, "retry"),
            ):
                signal.connect(
                    lambda a=action: self.media_requested.emit(self.message_id, SPEECH_KEY, a)
                )
            self._box.insertWidget(self._box.count() - 1, self._speech)  # above the meta line
        if info is not None:
            self._speech.show_info(info)
        self._speech.setVisible(info is not None)

    def _apply_image(self) -> None:
        """The answer's picture (PRODUCT.md §10), when it has one."""
        if self._image is None and IMAGE_KEY not in (self._state.message.data or {}):
            return  # most answers: nothing to import or build
        from mira_desktop.core.illustration import ImageInfo

        info = ImageInfo.from_data(self._state.message.data)
        if self._image is None:
            from .image_card import ImageCard  # only illustrated answers need it

            self._image = ImageCard(self._options.thumbnails, self)
            for signal, action in (
                (self._image.open_clicked, "open"),
                (self._image.save_clicked, "save"),
                (self._image.retry_clicked, "retry"),
            ):
                signal.connect(
                    lambda a=action: self.media_requested.emit(self.message_id, IMAGE_KEY, a)
                )
            self._image.size_changed.connect(lambda: self.height_changed.emit(self.message_id))
            self._box.insertWidget(self._box.count() - 1, self._image)  # above the meta line
        if info is not None:
            self._image.show_info(info)
        self._image.setVisible(info is not None)
