"""One message of the timeline.

Owns the widgets that show a single :class:`MessageState`: the full-width
assistant message (Thinking card, markdown answer, "Stopped" / error + hint with
a Retry button, meta line with the version switcher, model, local time and token
usage, the run's note, Regenerate and Copy; a knowledge-base answer's path and
Sources list, ``ui/kb/sources_widget.py``, with its ``[n]`` citations as links)
and the base of the right-aligned user bubble (``user_bubble.py``). The status
box and the meta line with its lazily built actions live in ``answer_meta.py``.
Widgets are disposable views: the timeline creates them when a row scrolls into
view (or binds a skeleton it built while idle, :meth:`MessageWidget.bind`; see
``row_pool.py``), calls :meth:`MessageWidget.apply` whenever the state changed (and
:meth:`MessageWidget.apply_actions` when only the actions' availability did) and
destroys them when the row leaves. Object names
(``assistantMessage``, ``userMessage``, ``userBubble``, ``messageMeta``,
``messageError``, ``retryButton``…) are there for the window's QSS.
"""

from __future__ import annotations

import logging
from itertools import pairwise
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QCoreApplication, QRectF, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QFrame, QLabel, QMenu, QToolButton, QVBoxLayout, QWidget

from mira_desktop.core.media_keys import IMAGE_KEY, SPEECH_KEY
from mira_desktop.core.models import MessageRole, MessageStatus

from ..kb.citations import CitationRenderer, cite_number
from ..kb.sources_widget import SourcesWidget
from ..plain_text import plain_tooltip
from .answer_meta import AnswerMeta, StatusBox, apply_tone, muted_label
from .message_actions import MoreButton, RegenerateButton, VersionSwitcher
from .message_state import MessageState, ViewOptions
from .meta_format import meta_text, note_text, status_texts
from .rich_text import STEP_CHARS, RichTextView
from .thinking_card import ThinkingCard

if TYPE_CHECKING:
    from .image_card import ImageCard
    from .plan_card import PlanActions, PlanTitle
    from .speech_bar import SpeechBar
    from .tool_cards import ToolCardsBox

log = logging.getLogger(__name__)

__all__ = ["AssistantMessageWidget", "MessageWidget", "StatusBox", "apply_tone"]

#: a streaming answer builds its (hidden) action buttons this long after it
#: appeared, in a pass of its own, so the end of the run only shows them
PREPARE_MS = 60
_OBJECT_NAMES = {
    MessageRole.ASSISTANT: "assistantMessage",
    MessageRole.TOOL: "toolMessage",
    MessageRole.SYSTEM_CARD: "systemCard",
}


class MessageWidget(QFrame):
    """Common signals and behaviour of both kinds of message."""

    retry_requested = Signal(str)
    stop_thinking_requested = Signal(str)
    copy_requested = Signal(str)
    thinking_toggle_requested = Signal(str, bool)
    version_step_requested = Signal(str, int)  # message id, -1 | +1
    regenerate_requested = Signal(str, str)  # message id, preset
    edit_requested = Signal(str)
    edit_submitted = Signal(str, str)  # message id, new text
    edit_cancelled = Signal(str)
    height_changed = Signal(str)  # the widget wants to be measured again
    #: bring a part of the message into view: message id, top, bottom (widget y)
    reveal_requested = Signal(str, int, int)
    #: Hook for actions of an answer's "⋯" menu (export UI): the message id and the
    #: menu, emitted each time the menu is about to show (it is emptied first).
    menu_requested = Signal(str, object)
    #: media made after an answer: message id, its key ("speech", "image"),
    #: "open" | "save" | "retry"
    media_requested = Signal(str, str, str)
    #: the agent's tool cards: message id, call id, "approve" | "deny" | "rollback"
    tool_requested = Signal(str, str, str)
    #: the agent's questions answered: message id, call id, answers (None: dismissed)
    answer_requested = Signal(str, str, object)
    #: a proposed plan's buttons: message id, "implement" | "keep"
    plan_requested = Signal(str, str)

    def __init__(
        self, state: MessageState | None, options: ViewOptions, parent: QWidget | None = None
    ):
        """``state`` is None only for a spare built ahead of its row (see
        ``row_pool``): :meth:`bind` gives it one before anything reads it."""
        super().__init__(parent)
        self._state = cast(MessageState, state)
        self._options = options
        self._highlighted = False

    @property
    def message_id(self) -> str:
        return self._state.id

    @property
    def state(self) -> MessageState:
        return self._state

    def apply(self) -> None:
        """Bring the widget in line with its state and the view options."""
        raise NotImplementedError

    def bind(self, state: MessageState) -> None:
        """Show ``state`` in a widget built without one (a spare)."""
        self._state = state
        self.apply()

    def apply_actions(self) -> None:
        """Bring only the actions in line with the view options (Edit,
        Regenerate and the version switcher became (un)available)."""
        self.apply()

    def measure(self, width: int) -> int:
        layout = self.layout()
        height = self._height_for(width)
        if layout is not None and self.width() != width:
            # Laid out once at that width: before, a word-wrapped label beside
            # a button (a failed answer's error and Retry) was measured a
            # line short, and its last line was cut off.
            self.resize(width, max(height, 1))
            layout.activate()
            height = self._height_for(width)
        return height

    def _height_for(self, width: int) -> int:
        height = self.heightForWidth(width)
        if height < 0:  # nothing shown wraps (a collapsed thinking card alone)
            layout = self.layout()
            height = layout.totalSizeHint().height() if layout is not None else 0
        return height

    def refresh_colours(self) -> None:
        """Re-colour the text surfaces after a palette (theme) change."""
        for view in self.findChildren(RichTextView):
            view.refresh_colours()

    def text_views(self) -> list[RichTextView]:
        """The views showing the message's own text (what Find looks in)."""
        return []

    def set_highlighted(self, on: bool) -> None:
        if on != self._highlighted:
            self._highlighted = on
            self.update()

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self._state.text)
        self.copy_requested.emit(self.message_id)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._highlighted:
            colour = QColor(self.palette().color(QPalette.ColorRole.Highlight))
            colour.setAlpha(48)
            painter = QPainter(self)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(0, 1, 0, -1), 8, 8)
            painter.end()

    def _muted_label(self, object_name: str, *, small: bool = True) -> QLabel:
        return muted_label(self, object_name, small=small)

    def _version_switcher(self) -> VersionSwitcher:
        switcher = VersionSwitcher(self)
        switcher.step_requested.connect(
            lambda step: self.version_step_requested.emit(self.message_id, step)
        )
        return switcher

    def _apply_versions(self, switcher: VersionSwitcher) -> None:
        message = self._state.message
        switcher.set_versions(
            message.sibling_index,
            message.sibling_count,
            enabled=self._options.actions_enabled and not self._state.is_streaming,
        )

    def _copy_button(self) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName("copyMessageButton")
        button.setText(self.tr("Copy"))
        button.setToolTip(self.tr("Copy message"))
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(self.copy_to_clipboard)
        return button


class AssistantMessageWidget(MessageWidget):
    """Full-width answer with its Thinking card, status, meta line and actions."""

    def __init__(
        self, state: MessageState | None, options: ViewOptions, parent: QWidget | None = None
    ):
        super().__init__(state, options, parent)
        self.setObjectName("assistantMessage")
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 8, 0, 10)
        self._box.setSpacing(6)
        # The card and the status box are created only when there is something
        # to show: most rows of a long thread need neither.
        self._card: ThinkingCard | None = None
        self._status: StatusBox | None = None
        self._sources: SourcesWidget | None = None
        self._speech: SpeechBar | None = None
        self._image: ImageCard | None = None
        self._tools: ToolCardsBox | None = None
        #: where the body's words start: after the agent's last group of calls
        self._words_from = 0
        self._tab_order: tuple[int, ...] = ()  # the parts last chained for Tab
        self._plan: tuple[PlanTitle, PlanActions] | None = None
        self._cited = CitationRenderer()
        #: this widget showed the answer while it streamed (its end renders in steps)
        self._saw_streaming = False
        self._body = RichTextView(self, sizer=options.step_sizer)
        self._body.anchorClicked.connect(self._on_body_anchor)
        self._body.render_pending.connect(self._on_render_step)
        self._box.addWidget(self._body)
        self._box.addLayout(self._build_meta())
        if state is not None:
            self.bind(state)

    def bind(self, state: MessageState) -> None:
        self._state = state
        self.setObjectName(_OBJECT_NAMES.get(state.message.role, "assistantMessage"))
        self.apply()
        if state.is_streaming:  # its actions appear when it ends: make them meanwhile
            QTimer.singleShot(PREPARE_MS, self, self._meta.prepare)

    def _on_render_step(self) -> None:
        """The body asks for its next markdown step: only the body changes (the
        rest of ``apply`` — meta line, actions, status — cost a step ~1 ms)."""
        self._apply_body()
        self.height_changed.emit(self.message_id)

    def _build_card(self) -> ThinkingCard:
        card = ThinkingCard(self._options.clock, self)
        card.toggle_requested.connect(self._on_card_toggle)
        card.stop_requested.connect(self._on_stop_thinking)
        self._box.insertWidget(0, card)
        return card

    def _build_status(self) -> StatusBox:
        box = StatusBox(self)
        box.retry_clicked.connect(self._on_retry)
        self._box.insertWidget(self._box.indexOf(self._body) + 1, box)
        return box

    def _build_meta(self) -> AnswerMeta:
        self._meta = AnswerMeta(self)
        self._meta.step_requested.connect(self._request_version_step)
        self._meta.regenerate_requested.connect(self._request_regenerate)
        self._meta.copy_requested.connect(self.copy_to_clipboard)
        self._meta.menu_requested.connect(self._fill_more_menu)
        return self._meta

    def _request_version_step(self, step: int) -> None:
        self.version_step_requested.emit(self.message_id, step)

    def _request_regenerate(self, preset: str) -> None:
        self.regenerate_requested.emit(self.message_id, preset)

    def _fill_more_menu(self, menu: object) -> None:
        assert isinstance(menu, QMenu)
        menu.clear()
        self.menu_requested.emit(self.message_id, menu)

    # -- state --------------------------------------------------------------------

    def apply(self) -> None:
        state, options = self._state, self._options
        self._name_for_screen_readers()
        if state.thinking and self._card is None:
            self._card = self._build_card()
        if self._card is not None:
            self._card.apply(state, options.thinking_mode)
        self._apply_tools()
        self._apply_body()
        self._apply_plan()
        self._apply_status()
        self._apply_sources()
        self._apply_speech()
        self._apply_image()
        meta, tooltip = meta_text(state.message)
        self._meta.meta.setText(meta)
        self._meta.meta.setToolTip(plain_tooltip(tooltip))
        note = note_text(state.message)
        self._meta.note.setText(note)
        self._meta.note.setVisible(bool(note))
        self.apply_actions()
        self._order_tabs()

    def apply_actions(self) -> None:
        state, enabled = self._state, self._options.actions_enabled
        message, streaming = state.message, state.is_streaming
        is_answer = message.role == MessageRole.ASSISTANT
        self._meta.show_actions(
            versions=(message.sibling_index, message.sibling_count, enabled and not streaming),
            regenerate=enabled and is_answer and not streaming,
            copy=bool(state.text),
            more=bool(state.text) and is_answer and not streaming,
        )
        if self._status is not None:
            self._status.set_retry_enabled(enabled)
        self._apply_plan_actions()

    def _order_tabs(self) -> None:
        """Tab goes through the answer as it is drawn: the Thinking card, the
        words, Retry, then the buttons under them. Qt chains widgets in the
        order they were made, and the card and buttons are made when first
        needed (the card after the words and their buttons, shown above them)."""
        parts: list[QWidget] = [*(self._card.focus_parts() if self._card else ()), self._body]
        if self._status is not None:
            parts.append(self._status.retry)
        parts += self._meta.made_buttons()
        key = tuple(map(id, parts))
        if key == self._tab_order:
            return
        self._tab_order = key
        for first, second in pairwise(parts):  # each moved right after the one before
            QWidget.setTabOrder(first, second)

    def _name_for_screen_readers(self) -> None:
        """Who wrote the row, said before its words (a tool's output, or an
        answer with the model that gave it)."""
        message = self._state.message
        if message.role == MessageRole.TOOL:
            label = self.tr("Tool output")
        elif message.model:
            label = self.tr("Answer from {0}").format(message.model)
        else:
            label = self.tr("Answer")
        if label != self.accessibleName():
            self.setAccessibleName(label)
            self._body.setAccessibleName(label)

    def _apply_body(self) -> None:
        state, dark = self._state, self._options.dark
        self._saw_streaming = self._saw_streaming or state.is_streaming
        if self._words_from:  # an agent's words after its last calls (the rest is above)
            words = state.text[self._words_from :].lstrip("\n")
            self._body.setVisible(bool(words))
            if words:
                paced = state.is_streaming
                self._body.set_markdown_live(words, dark=dark, budget=STEP_CHARS, paced=paced)
            return
        self._body.setVisible(bool(state.text))
        if not state.text:
            return
        cited = self._cited.rendering(state, dark)  # a finished answer with sources
        if cited is not None:
            if not self._body.is_static_showing(cited):
                self._body.set_rendered(cited)
        elif (
            state.is_streaming
            or self._body.is_live_extending(state.text, dark=dark)
            # an answer that streamed faster than the timeline's first flush
            # ends with all its text at once: rendered in steps all the same,
            # not in one long pass (27 KB of markdown cost ~30 ms in one go)
            or self._saw_streaming
        ):
            streaming = state.is_streaming  # a finished long last block renders at once
            # (a last block longer than a step renders on its own once the answer
            # has ended: see ``RichTextView.set_markdown_live``)
            self._body.set_markdown_live(state.text, dark=dark, budget=STEP_CHARS, paced=streaming)
        elif not self._body.is_static_showing(state.rendered(dark)):
            self._body.set_rendered(state.rendered(dark))

    def _apply_status(self) -> None:
        state = self._state
        status, hint = status_texts(state.message)
        if state.is_streaming and not state.text and not state.thinking:
            status = self._waiting_text()
        if status and self._status is None:
            self._status = self._build_status()
        if self._status is None:
            return
        ended = state.message.status in (MessageStatus.STOPPED, MessageStatus.FAILED)
        failed = state.message.status == MessageStatus.FAILED
        self._status.show_status(status, hint, failed=failed, retry=ended)
        self._status.set_retry_enabled(self._options.actions_enabled)
        self._status.setVisible(bool(status))

    def _waiting_text(self) -> str:
        """What a streaming answer without words waits on: the model, or the
        user (a change to approve, questions to answer), or nothing to say
        while a tool runs (its card says "Running…")."""
        if self._tools is None or not self._state.message.data:
            return self.tr("Waiting for the model…")
        from mira_desktop.core.agent import QUESTIONS_TOOL, ToolStatus, answer_cards

        cards = answer_cards(self._state.message.data)
        waiting = [card for card in cards if card.status is ToolStatus.WAITING]
        if any(card.name == QUESTIONS_TOOL for card in waiting):
            return QCoreApplication.translate("ToolCardView", "Waiting for your answer")
        if waiting:
            return QCoreApplication.translate("ToolCardView", "Waiting for your approval")
        if any(card.status is ToolStatus.RUNNING for card in cards):
            return ""
        return self.tr("Waiting for the model…")

    def _apply_sources(self) -> None:
        """The knowledge-base path and Sources of a finished answer."""
        state = self._state
        shown = bool((state.message.data or {}).get("kb_path")) and not state.is_streaming
        if shown and self._sources is None:
            self._sources = SourcesWidget(self)
            self._sources.layout_changed.connect(lambda: self.height_changed.emit(self.message_id))
            self._sources.reveal_requested.connect(
                lambda top, bottom: self.reveal_requested.emit(self.message_id, top, bottom)
            )
            self._box.insertWidget(self._box.count() - 1, self._sources)  # above the meta line
        if self._sources is not None:
            if shown:
                self._sources.show_answer(state)
            self._sources.setVisible(shown)

    def _apply_tools(self) -> None:
        """The agent's tool cards (PRODUCT.md §11), above the answer's words."""
        data = self._state.message.data
        if self._tools is None and not (data and "agent" in data):
            return  # most answers: nothing to import or build
        from mira_desktop.core.agent import answer_cards, expired

        cards = answer_cards(data)
        if not self._state.is_streaming:  # a run that ended waits on nothing
            cards = [expired(card) for card in cards]
        from .tool_cards import ToolCardsBox, words_end  # only an agent's answers need it

        self._words_from = words_end(cards, self._state.text)
        if self._tools is None:
            self._tools = ToolCardsBox(self, self._answer_draft)
            self._tools.draft_changed.connect(self._keep_answer_draft)
            self._tools.decided.connect(
                lambda call, ok: self.tool_requested.emit(
                    self.message_id, call, "approve" if ok else "deny"
                )
            )
            self._tools.answered.connect(self._on_answered)
            self._tools.rollback_requested.connect(
                lambda call: self.tool_requested.emit(self.message_id, call, "rollback")
            )
            self._tools.size_changed.connect(lambda: self.height_changed.emit(self.message_id))
            self._box.insertWidget(self._box.indexOf(self._body), self._tools)
        self._tools.show_cards(
            cards, self._state.text, dark=self._options.dark, owner=self.message_id
        )
        self._tools.setVisible(bool(cards))

    def _answer_draft(self, call_id: str) -> list[str] | None:
        return self._options.answer_drafts.get((self.message_id, call_id))

    def _keep_answer_draft(self, call_id: str, answers: object) -> None:
        if isinstance(answers, list):
            self._options.answer_drafts[(self.message_id, call_id)] = answers

    def _on_answered(self, call_id: str, answers: object) -> None:
        self._options.answer_drafts.pop((self.message_id, call_id), None)  # sent or dismissed
        self.answer_requested.emit(self.message_id, call_id, answers)

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

    # -- actions ------------------------------------------------------------------

    def _on_body_anchor(self, url: QUrl) -> None:
        number = cite_number(url)
        if number is not None and self._sources is not None:
            self._sources.focus_source(number)

    def _on_card_toggle(self, open_: bool) -> None:
        self.thinking_toggle_requested.emit(self.message_id, open_)

    def _on_stop_thinking(self) -> None:
        self._state.stop_thinking_sent = True
        self.stop_thinking_requested.emit(self.message_id)

    def _on_retry(self) -> None:
        self.retry_requested.emit(self.message_id)

    # -- for tests and the timeline -----------------------------------------------

    @property
    def thinking_card(self) -> ThinkingCard | None:
        return self._card

    @property
    def status_box(self) -> StatusBox | None:
        return self._status

    @property
    def body(self) -> RichTextView:
        return self._body

    def text_views(self) -> list[RichTextView]:
        return [self._body]

    @property
    def version_switcher(self) -> VersionSwitcher:
        return self._meta.versions()

    @property
    def regenerate_button(self) -> RegenerateButton:
        return self._meta.regenerate()

    @property
    def copy_button(self) -> QToolButton:
        return self._meta.copy()

    @property
    def more_button(self) -> MoreButton:
        return self._meta.more()

    @property
    def note_label(self) -> QLabel:
        return self._meta.note

    @property
    def image_card(self) -> ImageCard | None:
        return self._image

    @property
    def speech_bar(self) -> SpeechBar | None:
        return self._speech

    @property
    def tool_cards(self) -> ToolCardsBox | None:
        return self._tools

    @property
    def plan_actions(self) -> PlanActions | None:
        return self._plan[1] if self._plan else None

    @property
    def sources(self) -> SourcesWidget | None:
        return self._sources
