"""``FindActions``: Edit → Find in this conversation (Ctrl+F). The bar
(``ui/timeline/find_bar.py``) is made on first use, above the timeline. The
places in the branch on screen that hold the words — in the messages' text
as written or as shown (Markdown marks left out), case-insensitive — are the
matches, counted as a browser counts them; ↑ / ↓ move from place to place:
another message comes into view a quarter down, a place further down the
same message is revealed where it is; every place of the message is tinted
and the current one stronger. The timeline builds widgets only near the
viewport, so the words are lit once the message's widget exists (the next
turn of the event loop after scrolling to it); the message's places are
then counted as shown, which corrects the count taken from its text. The
list is made again when the conversation changes under the bar: another
thread or branch, a new row, an answer that ended."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence

from ...core.models import MessageRole
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...core.models import Message
    from ..controllers.tasks import TaskRunner
    from ..timeline.find_bar import FindBar
    from ..timeline.rich_text import RichTextView
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

#: Markdown marks a rendered message does not show
_MARKS = re.compile(r"[*_`~#>]+")
SEARCH_DELAY_MS = 120
#: frames to wait for a message's widget after scrolling to it
LIGHT_TRIES = 30
FRAME_MS = 16
#: where a found message's top goes: a quarter down the view, with what led to it above
PLACE_AT = 0.25
#: most places counted in one message (as many as are tinted)
MAX_MARKS = 1000
#: messages to fold on the Qt thread at most; more go to a worker thread
FOLD_HERE = 200


def holds(message: Message, words: str) -> bool:
    """Whether ``message`` shows ``words`` (already case-folded): an answer
    is shown rendered from Markdown, a question as typed."""
    return places(message, words) > 0


def places(message: Message, words: str, forms: tuple[str, ...] | None = None) -> int:
    """How many times ``message`` shows ``words`` (already case-folded), as
    far as its text tells: an answer's Markdown marks are not shown.
    ``forms``: the message's :func:`searched_forms`, when kept."""
    forms = forms if forms is not None else searched_forms(message)
    return min(max(form.count(words) for form in forms), MAX_MARKS)


def searched_forms(message: Message) -> tuple[str, ...]:
    """The text ``places`` counts in: case-folded, and for an answer also
    without its Markdown marks."""
    text = message.text.casefold()
    if message.role is MessageRole.ASSISTANT:
        return text, _MARKS.sub("", text)
    return (text,)


class FindActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self.action = QAction(window)
        self.action.setObjectName("FindAction")
        self.action.setShortcut(QKeySequence.StandardKey.Find)
        self.action.triggered.connect(self.open)
        window.edit_menu.addAction(self.action)
        self.bar: FindBar | None = None
        #: (message id, its n-th place), in the branch's order
        self.matches: list[tuple[str, int]] = []
        self.current: int | None = None
        self._shown: str | None = None  # the message gone to last
        #: message id → (its text, the forms searched in), see ``_forms``
        self._folded: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._folded_thread: str | None = None  # whose messages they are
        self._generation = 0  # of the latest search (an older one's list is dropped)
        self._arrived = False  # ``current`` was picked, not yet gone to: Enter goes there
        self._lit: list[RichTextView] = []  # views whose words are tinted
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(lambda: self._search(keep=False))
        self._again = QTimer(self)  # the list made again when the conversation changes
        self._again.setSingleShot(True)
        self._again.setInterval(SEARCH_DELAY_MS)
        self._again.timeout.connect(self._on_rows_changed)
        window.timeline.rows_changed.connect(self._again.start)
        window.timeline.row_added.connect(lambda _id: self._again.start())
        window.chat.run_finished.connect(lambda _key, _event: self._again.start())
        presenter.current_changed.connect(lambda _key: self._again.start())
        window.installEventFilter(self)
        self.retranslate()

    def retranslate(self) -> None:
        self.action.setText(self.tr("Find in this conversation…"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        return False

    # ---- the bar -----------------------------------------------------------------
    def open(self) -> None:
        """Show the bar (made on first use) with its words selected."""
        if self.bar is None:
            from ..timeline.find_bar import FindBar  # with the first Ctrl+F

            self.bar = FindBar(self._w.conversation_pane())
            self.bar.query_changed.connect(lambda _text: self._timer.start())
            self.bar.next_requested.connect(lambda: self.step(+1))
            self.bar.previous_requested.connect(lambda: self.step(-1))
            self.bar.closed.connect(self.close)
            self._w.insert_above_timeline(self.bar)
        self.bar.show()
        self.bar.field.setFocus()
        self.bar.field.selectAll()
        if self.bar.text().strip():
            self._search(keep=True)

    def close(self) -> None:
        self._timer.stop()
        self._generation += 1  # a search folding in the background is dropped
        self._unlight()
        self.matches, self.current, self._shown = [], None, None
        self._folded.clear()
        if self.bar is not None:
            self.bar.hide()
        self._w.composer.editor.setFocus()

    def is_open(self) -> bool:
        return self.bar is not None and self.bar.isVisible()

    # ---- finding -----------------------------------------------------------------
    def _words(self) -> str:
        return self.bar.text().strip().casefold() if self.bar is not None else ""

    def _search(self, *, keep: bool) -> None:
        """Make the list of matches; ``keep``: stay on the message shown if it
        still matches, else go to the first match from the top of the view.
        Messages not folded yet (the first search of a long branch) are
        folded in a worker thread first, off the paint path."""
        self._generation += 1
        shown = self._w.timeline.shown_messages()
        self._keep_only(shown)
        missing = [m for m in shown if not self._is_folded(m)] if self._words() else []
        if len(missing) < FOLD_HERE:
            self._make_list(shown, keep)
            return
        self._tasks.start(self._fold_then_list(missing, keep, self._generation))

    async def _fold_then_list(self, missing: list[Message], keep: bool, generation: int) -> None:
        folded = await asyncio.to_thread(lambda: [(m, searched_forms(m)) for m in missing])
        if generation != self._generation or not self.is_open():
            return  # a newer search runs, or the bar closed (its cache went with it)
        for message, forms in folded:
            self._folded[message.id] = (message.text, forms)
        self._make_list(self._w.timeline.shown_messages(), keep)

    def _keep_only(self, shown: list[Message]) -> None:
        """Keep the folded forms of the thread shown only: the bar stays open
        while other threads are opened, and each of them added all of its
        messages (their text, twice over) for as long as it stayed open."""
        thread_id = shown[0].thread_id if shown else None
        if thread_id != self._folded_thread:
            self._folded.clear()
            self._folded_thread = thread_id

    def folded_count(self) -> int:
        """Messages whose folded forms are kept (for tests and benchmarks)."""
        return len(self._folded)

    def _is_folded(self, message: Message) -> bool:
        kept = self._folded.get(message.id)
        return kept is not None and kept[0] == message.text

    def _make_list(self, shown: list[Message], keep: bool) -> None:
        words = self._words()
        before = self.matches[self.current] if self.current is not None and self.matches else None
        self.matches = (
            [(m.id, n) for m in shown for n in range(places(m, words, self._forms(m)))]
            if words
            else []
        )
        if not self.matches:
            self.current = None
            self._unlight()
        elif keep and before in self.matches:
            self.current = self.matches.index(before)
        else:
            self.current = self._first_in_view()
            self._arrived = not keep  # kept still: the next Enter goes to it first
        if self.bar is not None:
            self.bar.set_count(self.current, len(self.matches))
        if self.current is not None and not keep:
            self._go()

    def _forms(self, message: Message) -> tuple[str, ...]:
        """The message's searched forms, kept while its text stays the same
        (the next words typed count in them at once: a long thread is
        folded once, not at every key)."""
        kept = self._folded.get(message.id)
        if kept is None or kept[0] != message.text:
            kept = (message.text, searched_forms(message))
            self._folded[message.id] = kept
        return kept[1]

    def _first_in_view(self) -> int:
        timeline = self._w.timeline
        for index, (message_id, _) in enumerate(self.matches):
            y = timeline.message_view_y(message_id)
            if y is not None and y >= 0:
                return index
        return len(self.matches) - 1

    def step(self, delta: int) -> None:
        """The next (+1) or previous (-1) message holding the words, round."""
        if not self.matches:
            self._search(keep=False)
            return
        if self.current is None:
            self.current = 0 if delta > 0 else len(self.matches) - 1
        elif self._arrived:
            self.current = (self.current + delta) % len(self.matches)
        self._arrived = True
        if self.bar is not None:
            self.bar.set_count(self.current, len(self.matches))
        self._go()

    def _go(self) -> None:
        """Bring the current place into view: another message a quarter down
        the view, a place of the message already shown where it is."""
        if self.current is None:
            return
        match = self.matches[self.current]
        if match[0] != self._shown or self._w.timeline.message_widget(match[0]) is None:
            self._w.timeline.scroll_to_message(match[0], at=PLACE_AT)
            self._unlight()
            self._shown = match[0]
            QTimer.singleShot(0, self, lambda: self._light(match, LIGHT_TRIES))
        else:
            self._light(match, 0)

    def _light(self, match: tuple[str, int], tries: int) -> None:
        """Tint the words in the message's widget, the current place stronger,
        and reveal it; the widget is made when the timeline lays out the rows
        scrolled to, so wait for it a little (``tries`` more frames)."""
        from ..timeline.find_bar import mark_matches

        if not self.is_open() or self.current is None or self.matches[self.current] != match:
            return  # moved on meanwhile
        message_id, nth = match
        timeline = self._w.timeline
        widget = timeline.message_widget(message_id)
        if widget is None:
            if tries > 0:
                QTimer.singleShot(FRAME_MS, self, lambda: self._light(match, tries - 1))
            return
        self._unlight()
        words = self.bar.text().strip() if self.bar is not None else ""
        found = 0
        for view in widget.text_views():
            where = mark_matches(view, words, nth - found)
            self._lit.append(view)
            if 0 <= nth - found < len(where):
                place = where[nth - found]
                top = view.mapTo(widget, place.topLeft()).y()
                timeline.reveal_in_message(message_id, top, top + place.height())
            found += len(where)
        if found:
            self._recount(message_id, found)

    def _recount(self, message_id: str, shown: int) -> None:
        """The message's places as its widget shows them (its text's count can
        differ: a word inside a link's address, a code fence); the current
        place stays the one lit."""
        block = [i for i, (found, _) in enumerate(self.matches) if found == message_id]
        if not block or len(block) == shown or self.current is None:
            return
        start = block[0]
        nth = min(self.matches[self.current][1], shown - 1)
        lit = self.matches[self.current]
        self.matches[start : block[-1] + 1] = [(message_id, n) for n in range(shown)]
        if self.current >= start:
            moved = self.current > block[-1]
            self.current = self.current + shown - len(block) if moved else start + nth
        if self.bar is not None:
            self.bar.set_count(self.current, len(self.matches))
        if self.matches[self.current] != lit:  # the place named moved: light it
            self._light(self.matches[self.current], 0)

    def _unlight(self) -> None:
        from ..timeline.find_bar import mark_matches

        for view in self._lit:
            if shiboken6.isValid(view):  # a row scrolled far away loses its widget
                mark_matches(view, "")
        self._lit = []

    def _on_rows_changed(self) -> None:
        if self.is_open() and self._words():
            self._search(keep=True)
