"""The agent's tool cards in an answer (PRODUCT.md §11): one collapsible card
per tool call, in call order, above the answer's words.

A card's line says what the call does ("Edit src/app.py: 1 replacement") and
where it stands (waiting for approval, running, done, failed, denied,
expired, rolled back). Its details — the diff of a write or an edit, the
tool's output — open with the arrow, their first lines at once and all of
them with "Show all N lines" (``ToolTextDialog``); when the card could not
keep all of a diff it says so plainly, open or not. A card waiting for
approval opens by itself and shows Approve and Deny; a finished change
shows Roll back. Built only for answers that called tools
(``core/agent.answer_cards``)."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from mira_desktop.core.agent import (
    QUESTIONS_TOOL,
    ApprovalState,
    ToolCard,
    ToolStatus,
    card_questions,
)

from ..plain_text import plain_tooltip
from .answer_meta import apply_tone
from .rich_text import RichTextView
from .timeline_style import error_colour, muted_colour
from .tool_text_dialog import shown_text

if TYPE_CHECKING:
    from .question_form import QuestionForm
    from .tool_text_dialog import ToolTextDialog

#: lines of a diff or an output shown in a card (the rest is counted)
SHOWN_LINES = 40

#: the answers typed to a call's questions and not sent yet (by call id)
DraftFn = Callable[[str], "list[str] | None"]


class ToolCardView(QFrame):
    decided = Signal(str, bool)  # call id, approved
    answered = Signal(str, object)  # call id, the answers (None: dismissed)
    rollback_requested = Signal(str)  # call id
    toggled = Signal()
    draft_changed = Signal(str, object)  # call id, the answers typed so far

    def __init__(self, parent: QWidget | None = None, draft_for: DraftFn | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self._draft_for = draft_for
        self._card: ToolCard | None = None
        self._open: bool | None = None  # the user's choice; None: by the card's state
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 4, 8, 4)
        box.setSpacing(2)
        line = QHBoxLayout()
        line.setSpacing(6)
        self.toggle = QToolButton(self)
        self.toggle.setObjectName("toolCardToggle")
        self.toggle.setAutoRaise(True)
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle.clicked.connect(self._on_toggle)
        self.title = QLabel(self)
        self.title.setObjectName("toolCardTitle")
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.state = QLabel(self)
        self.state.setObjectName("toolCardState")
        self.approve = self._button("toolApprove", lambda: self._decide(True))
        self.deny = self._button("toolDeny", lambda: self._decide(False))
        self.rollback = self._button("toolRollback", self._on_rollback)
        line.addWidget(self.toggle)
        line.addWidget(self.title, 1)
        line.addWidget(self.state)
        for button in (self.approve, self.deny, self.rollback):
            line.addWidget(button)
        box.addLayout(line)
        self.details = QLabel(self)
        self.details.setObjectName("toolCardDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        box.addWidget(self.details)
        self.show_all = self._button("toolShowAll", self._on_show_all)
        self.show_all.setAutoRaise(True)
        box.addWidget(self.show_all)
        self.cut_note = QLabel(self)
        self.cut_note.setObjectName("toolCardCut")
        self.cut_note.setWordWrap(True)
        box.addWidget(self.cut_note)
        self._box = box
        self.form: QuestionForm | None = None  # the questions' form, while they wait
        self.full_view: ToolTextDialog | None = None  # all of the details, made when asked
        self._retranslate()

    def _button(self, name: str, slot: object) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(slot)
        return button

    def _retranslate(self) -> None:
        self.approve.setText(self.tr("Approve"))
        self.deny.setText(self.tr("Deny"))
        self.rollback.setText(self.tr("Roll back"))
        self.rollback.setToolTip(self.tr("Put back the files this step changed"))

    @property
    def card(self) -> ToolCard | None:
        return self._card

    def is_open(self) -> bool:
        card = self._card
        if self._open is not None:
            return self._open
        return card is not None and card.status is ToolStatus.WAITING

    def show_card(self, card: ToolCard) -> None:
        if self._card is not None and self._card.status != card.status:
            self._open = None  # a new state: open or closed as it says
        self._card = card
        if card.name == QUESTIONS_TOOL:  # the form or the answers say the rest
            self.title.setText(self.tr("The agent's questions"))
        else:
            self.title.setText(self.summary_text(card))
        self.title.setToolTip(plain_tooltip(card.name))
        self.state.setText(self._state_text(card))
        apply_tone(self.state, "error" if card.status is ToolStatus.FAILED else "muted")
        waiting = card.status is ToolStatus.WAITING
        asking = waiting and card.name == QUESTIONS_TOOL
        self.approve.setVisible(waiting and not asking)
        self.deny.setVisible(waiting and not asking)
        self._show_form(card if asking else None)
        self.rollback.setVisible(card.can_roll_back)
        has_details = bool(card.diff or card.output)
        self.toggle.setVisible(has_details)
        opened = self.is_open() and has_details
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if opened else Qt.ArrowType.RightArrow)
        self.details.setVisible(opened)
        if opened:
            self.details.setText(self._details_html(card))
        lines = _line_count(shown_text(card))
        self.show_all.setVisible(opened and lines > SHOWN_LINES)
        self.show_all.setText(self.tr("Show all {0} lines").format(lines))
        self.cut_note.setVisible(bool(card.diff and card.diff_cut))
        self.cut_note.setText(self.cut_text(card))
        apply_tone(self.cut_note, "error")

    def cut_text(self, card: ToolCard) -> str:
        """What the card says when it could not keep all of the diff."""
        if not card.diff_cut:
            return ""
        return self.tr(
            "The change is longer than shown: {0} more lines were not kept, so not all of it"
            " can be seen before approving."
        ).format(card.diff_cut)

    def summary_text(self, card: ToolCard) -> str:
        """The card's line in the interface's language (a command as it is)."""
        translated = self.templates().get(card.template)
        if translated is None:
            return card.summary or card.name
        try:
            return translated.format(**card.params)
        except (KeyError, IndexError, ValueError):  # a translation that lost a field
            return card.summary

    def templates(self) -> dict[str, str]:
        """The previews' templates (``services/agent/previews.py``), translated."""
        return {
            "Create {path} (1 line)": self.tr("Create {path} (1 line)"),
            "Create {path} ({n} lines)": self.tr("Create {path} ({n} lines)"),
            "Overwrite {path} (1 line)": self.tr("Overwrite {path} (1 line)"),
            "Overwrite {path} ({n} lines)": self.tr("Overwrite {path} ({n} lines)"),
            "Edit {path}: 1 replacement": self.tr("Edit {path}: 1 replacement"),
            "Edit {path}: {n} replacements": self.tr("Edit {path}: {n} replacements"),
            "Read {path}": self.tr("Read {path}"),
            "Read {path} from line {n}": self.tr("Read {path} from line {n}"),
            "List {path}": self.tr("List {path}"),
            "Find {pattern} in {path}": self.tr("Find {pattern} in {path}"),
            "Search {path} for {pattern}": self.tr("Search {path} for {pattern}"),
            "Search {path} ({glob}) for {pattern}": self.tr("Search {path} ({glob}) for {pattern}"),
            "Search the web for {query}": self.tr("Search the web for {query}"),
            "Search the knowledge base for {query}": self.tr(
                "Search the knowledge base for {query}"
            ),
            "Sub-agent: {description}": self.tr("Sub-agent: {description}"),
        }

    def _show_form(self, card: ToolCard | None) -> None:
        """The questions' form while they wait for answers (made once)."""
        if card is None:
            if self.form is not None:
                self.form.setVisible(False)
            return
        if self.form is None:
            from .question_form import QuestionForm  # only when the agent asks

            draft = self._draft_for(card.call_id) if self._draft_for is not None else None
            self.form = QuestionForm(card_questions(card), self, draft)
            self.form.answered.connect(self._on_answered)
            self.form.edited.connect(self._on_edited)
            self._box.addWidget(self.form)
        self.form.setVisible(True)

    def _on_answered(self, answers: object) -> None:
        if self._card is not None:
            self.answered.emit(self._card.call_id, answers)

    def _on_edited(self, answers: object) -> None:
        if self._card is not None:
            self.draft_changed.emit(self._card.call_id, answers)

    def drop_form(self) -> None:
        """Forget the questions' form (the view shows another call now)."""
        if self.form is not None:
            self.form.hide()
            self.form.deleteLater()
            self.form = None

    def _state_text(self, card: ToolCard) -> str:
        if card.rolled_back:
            return self.tr("Rolled back")
        if card.name == QUESTIONS_TOOL:
            questions = {
                ToolStatus.WAITING: self.tr("Waiting for your answer"),
                ToolStatus.DONE: self.tr("Answered"),
                ToolStatus.DENIED: self.tr("Dismissed"),
            }
            if card.status in questions:
                return questions[card.status]
        texts = {
            ToolStatus.WAITING: self.tr("Waiting for your approval"),
            ToolStatus.RUNNING: self.tr("Running…"),
            ToolStatus.DONE: self.tr("Done"),
            ToolStatus.FAILED: self.tr("Failed"),
            ToolStatus.DENIED: self.tr("Denied"),
            ToolStatus.EXPIRED: self.tr("Not run"),
        }
        text = texts[card.status]
        if card.status is ToolStatus.DONE and card.approval is ApprovalState.EXECUTED:
            text = self.tr("Approved · done")
        return text

    def _details_html(self, card: ToolCard) -> str:
        """The diff (coloured) before a change runs or after it ran, else the output."""
        added = "#2e7d32" if self.palette().window().color().lightness() >= 128 else "#7ee787"
        removed = error_colour(self).name()
        muted = muted_colour(self).name()
        lines = shown_text(card).splitlines()
        rows = []
        for line in lines[:SHOWN_LINES]:
            colour = ""
            if line.startswith(("+++", "---", "@@")):
                colour = muted
            elif line.startswith("+"):
                colour = added
            elif line.startswith("-"):
                colour = removed
            escaped = html.escape(line) or "&nbsp;"
            rows.append(f'<span style="color:{colour}">{escaped}</span>' if colour else escaped)
        if len(lines) > SHOWN_LINES:
            more = self.tr("… {0} more lines").format(len(lines) - SHOWN_LINES)
            rows.append(f'<span style="color:{muted}">{html.escape(more)}</span>')
        return '<div style="white-space:pre-wrap">' + "<br>".join(rows) + "</div>"

    def _on_show_all(self) -> None:
        card = self._card
        if card is None:
            return
        if self.full_view is None:
            from .tool_text_dialog import ToolTextDialog  # only when asked

            # a window of the main window, which outlives this row: it goes
            # once closed (it holds all of the text), not with the window
            self.full_view = ToolTextDialog(self.window())
            self.full_view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.full_view.destroyed.connect(self._forget_full_view)
        self.full_view.show_text(self.summary_text(card), shown_text(card), self.cut_text(card))

    def _forget_full_view(self) -> None:
        self.full_view = None

    def _on_toggle(self) -> None:
        self._open = not self.is_open()
        if self._card is not None:
            self.show_card(self._card)
        self.toggled.emit()

    def _decide(self, approved: bool) -> None:
        if self._card is not None:
            self.approve.setEnabled(False)
            self.deny.setEnabled(False)
            self.decided.emit(self._card.call_id, approved)

    def _on_rollback(self) -> None:
        if self._card is not None:
            self.rollback_requested.emit(self._card.call_id)


class ToolCardsBox(QWidget):
    """The cards of one answer, each group of calls after the words the agent
    said before it (``ToolCard.at``); the words after the last group are the
    answer's own text view."""

    decided = Signal(str, bool)
    answered = Signal(str, object)
    rollback_requested = Signal(str)
    size_changed = Signal()
    draft_changed = Signal(str, object)  # call id, the answers typed so far

    def __init__(self, parent: QWidget | None = None, draft_for: DraftFn | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCards")
        self._draft_for = draft_for
        self._owner = ""  # the message shown (a row widget is reused for others)
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(4)
        self._views: list[ToolCardView] = []
        #: the words before card i, when a group of calls starts there (made when needed)
        self._words: dict[int, RichTextView] = {}

    @property
    def views(self) -> list[ToolCardView]:
        return list(self._views)

    @property
    def word_views(self) -> list[RichTextView]:
        """The shown text views between the cards, in order."""
        return [self._words[i] for i in sorted(self._words) if not self._words[i].isHidden()]

    def show_cards(
        self, cards: list[ToolCard], text: str = "", *, dark: bool = False, owner: str = ""
    ) -> None:
        """Show ``cards`` of the message ``owner`` and, before each group of
        them, the part of ``text`` (the answer's words so far) said before it."""
        if owner != self._owner:  # another message's calls: nothing of the last one stays
            self._owner = owner
            for view in self._views:
                _reset(view)
        while len(self._views) < len(cards):
            view = ToolCardView(self, self._draft_for)
            view.decided.connect(self.decided)
            view.answered.connect(self.answered)
            view.draft_changed.connect(self.draft_changed)
            view.rollback_requested.connect(self.rollback_requested)
            view.toggled.connect(self.size_changed)
            self._box.addWidget(view)
            self._views.append(view)
        for view, card in zip(self._views, cards, strict=False):
            if view.card != card:
                if view.card is not None and view.card.call_id != card.call_id:
                    view = _reset(view)
                view.show_card(card)
            view.setVisible(True)
        for view in self._views[len(cards) :]:
            view.setVisible(False)
        self._show_words(cards, text, dark)

    def _show_words(self, cards: list[ToolCard], text: str, dark: bool) -> None:
        start = 0
        for index, card in enumerate(cards):
            words = ""
            if index == 0 or card.at != cards[index - 1].at:
                words = text[start : card.at].strip("\n")
                start = max(start, card.at)
            view = self._words.get(index)
            if words and view is None:
                view = self._words[index] = RichTextView(self)
                view.setObjectName("messageText")
                self._box.insertWidget(self._box.indexOf(self._views[index]), view)
            if view is None:
                continue
            if words and not view.is_live_showing(words, dark=dark):
                view.set_markdown_live(words, dark=dark)
            view.setVisible(bool(words))
        for index, view in self._words.items():
            if index >= len(cards):
                view.setVisible(False)


def _line_count(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n")) if text else 0


def words_end(cards: list[ToolCard], text: str) -> int:
    """Where the answer's own text view starts: after the words said before
    the last group of calls (0 without cards)."""
    return min(max((card.at for card in cards), default=0), len(text))


def _reset(view: ToolCardView) -> ToolCardView:
    """A view reused for another call (the widget was bound to another answer)."""
    view._open = None
    view._card = None
    view.approve.setEnabled(True)
    view.deny.setEnabled(True)
    view.drop_form()
    return view
