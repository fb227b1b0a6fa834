"""``FindActions``: Edit → Find in this conversation (Ctrl+F). The bar
(``ui/timeline/find_bar.py``) is made on first use, above the timeline. The
messages of the branch on screen that hold the words — in their text as
written or as shown (Markdown marks left out), case-insensitive — are the
matches; ↑ / ↓ move between them, the message comes into view with its
words tinted and the first of them revealed. The timeline builds widgets
only near the viewport, so the words are lit once the message's widget
exists (the next turn of the event loop after scrolling to it). The list is
made again when the conversation changes under the bar: another thread or
branch, a new row, an answer that ended."""

from __future__ import annotations

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


def holds(message: Message, words: str) -> bool:
    """Whether ``message`` shows ``words`` (already case-folded): an answer
    is shown rendered from Markdown, a question as typed."""
    text = message.text.casefold()
    if words in text:
        return True
    return message.role is MessageRole.ASSISTANT and words in _MARKS.sub("", text)


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
        self.matches: list[str] = []  # message ids, in the branch's order
        self.current: int | None = None
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
        self._unlight()
        self.matches, self.current = [], None
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
        still matches, else go to the first match from the top of the view."""
        words = self._words()
        shown = self._w.timeline.shown_messages()
        before = self.matches[self.current] if self.current is not None and self.matches else None
        self.matches = [m.id for m in shown if words and holds(m, words)] if words else []
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

    def _first_in_view(self) -> int:
        timeline = self._w.timeline
        for index, message_id in enumerate(self.matches):
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
        if self.current is None:
            return
        message_id = self.matches[self.current]
        self._w.timeline.scroll_to_message(message_id, at=PLACE_AT)
        self._unlight()
        QTimer.singleShot(0, self, lambda: self._light(message_id, LIGHT_TRIES))

    def _light(self, message_id: str, tries: int) -> None:
        """Tint the words in the message's widget and reveal the first; the
        widget is made when the timeline lays out the rows scrolled to, so
        wait for it a little (``tries`` more frames)."""
        from ..timeline.find_bar import mark_matches

        if not self.is_open() or self.current is None or self.matches[self.current] != message_id:
            return  # moved on meanwhile
        timeline = self._w.timeline
        widget = timeline.message_widget(message_id)
        if widget is None:
            if tries > 0:
                QTimer.singleShot(FRAME_MS, self, lambda: self._light(message_id, tries - 1))
            return
        self._unlight()
        words = self.bar.text().strip() if self.bar is not None else ""
        revealed = False
        for view in widget.text_views():
            first = mark_matches(view, words)
            self._lit.append(view)
            if first is not None and not revealed:
                top = view.mapTo(widget, first.topLeft()).y()
                timeline.reveal_in_message(message_id, top, top + first.height())
                revealed = True

    def _unlight(self) -> None:
        from ..timeline.find_bar import mark_matches

        for view in self._lit:
            if shiboken6.isValid(view):  # a row scrolled far away loses its widget
                mark_matches(view, "")
        self._lit = []

    def _on_rows_changed(self) -> None:
        if self.is_open() and self._words():
            self._search(keep=True)
