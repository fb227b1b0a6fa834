"""The full-width answer of the timeline (:class:`AssistantMessageWidget`):
its Thinking card, markdown answer, "Stopped" / error + hint with a Retry
button, meta line with the version switcher, model, local time and token
usage, the run's note, Regenerate and Copy; a knowledge-base answer's path and
Sources list (``ui/kb/sources_widget.py``, its ``[n]`` citations as links);
the agent's tool cards. The status box and the meta line with its lazily built
actions live in ``answer_meta.py``; a plan's buttons, the spoken audio and the
picture in ``answer_extras.py``."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QTimer, QUrl
from PySide6.QtWidgets import QLabel, QMenu, QToolButton, QVBoxLayout, QWidget

from mira_desktop.core.models import MessageRole, MessageStatus

from ..kb.citations import CitationRenderer, cite_number
from ..kb.sources_widget import SourcesWidget
from ..plain_text import plain_tooltip
from .answer_extras import AnswerExtras
from .answer_meta import AnswerMeta, StatusBox
from .message_actions import MoreButton, RegenerateButton, VersionSwitcher
from .message_state import MessageState, ViewOptions
from .message_widget import MessageWidget
from .meta_format import meta_text, note_text, status_texts
from .rich_text import STEP_CHARS, RichTextView
from .thinking_card import ThinkingCard

if TYPE_CHECKING:
    from .image_card import ImageCard
    from .plan_card import PlanActions, PlanTitle
    from .speech_bar import SpeechBar
    from .tool_cards import ToolCardsBox

__all__ = ["AssistantMessageWidget"]

#: a streaming answer builds its (hidden) action buttons this long after it
#: appeared, in a pass of its own, so the end of the run only shows them
PREPARE_MS = 60
_OBJECT_NAMES = {
    MessageRole.ASSISTANT: "assistantMessage",
    MessageRole.TOOL: "toolMessage",
    MessageRole.SYSTEM_CARD: "systemCard",
}


class AssistantMessageWidget(MessageWidget, AnswerExtras):
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
