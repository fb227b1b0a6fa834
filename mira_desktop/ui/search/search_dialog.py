"""``SearchDialog`` (Ctrl+K, PRODUCT.md §8): full-text search over thread titles
and message text, Chinese substrings and English words alike. Results come
while typing: each edit restarts a short debounce (``DEBOUNCE_MS``: a burst of
keys, a paste or a held Backspace is one search), then ``SearchService.search``
runs as an asyncio task (its SQL on the database thread). One search runs at a
time: an edit made meanwhile is searched when it ends (its SQL would have
waited for the database thread anyway), and an answer to an older query, or
to older filters, is dropped. Filters: today / this week / this month
/ this quarter (chips, none = any time), a workspace, archived threads on or off.

Keys stay in the query field: ↑/↓ (and Page Up/Down) move through the results,
Enter opens the chosen one, Esc closes. Enter pressed while the rows on screen
answer an older query (the newest waits on the debounce or runs) never opens
one of them: it is kept, and the first result of the newest query opens when
it arrives (nothing, when it has none). Choosing emits
``result_chosen(thread_id, message_id | None)`` and closes the dialog."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core.models import Workspace
from ...core.search import SearchHit
from .search_results import SearchResultDelegate, SearchResultsModel

if TYPE_CHECKING:
    from ...services.search import SearchService

log = logging.getLogger(__name__)

#: a search takes ~5 ms on a million messages (tests/benchmarks/RESULTS.md), so
#: the wait after a key is most of what the reader sees: 150 ms made results
#: come ~160 ms after the last key, and never while typing at a brisk pace
DEBOUNCE_MS = 40
#: "Searching…" only for a search still running after this long: shown for
#: every search, it would blink in the status line with each key
SEARCHING_NOTE_MS = 200
RESULT_LIMIT = 50
SINCE = ("today", "week", "month", "quarter")


class SearchDialog(QDialog):
    result_chosen = Signal(str, object)  # thread id, message id (None: a title hit)
    results_shown = Signal(str, int)  # query, number of hits (after each search)

    def __init__(
        self,
        search: SearchService,
        workspaces: list[Workspace],
        parent: QWidget | None = None,
        *,
        workspace_id: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("SearchDialog")
        self._search = search
        self._workspaces = list(workspaces)
        self._generation = 0
        self._task: asyncio.Task[None] | None = None
        self._queued = False  # an edit or a filter came while a search ran
        self._enter_waiting = False  # Enter came before the newest query's results
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._start_search)
        self._note_timer = QTimer(self)
        self._note_timer.setSingleShot(True)
        self._note_timer.setInterval(SEARCHING_NOTE_MS)
        self._note_timer.timeout.connect(self._note_searching)
        self._build_query()
        self._build_filters(workspace_id)
        self._build_results()
        self._build_layout()
        self._retranslate()
        self.resize(680, 520)

    def _build_query(self) -> None:
        self.query_edit = QLineEdit(self)
        self.query_edit.setObjectName("SearchQuery")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.textChanged.connect(self._schedule)
        self.query_edit.installEventFilter(self)

    def _build_filters(self, workspace_id: str | None) -> None:
        self.chips: dict[str, QToolButton] = {}
        self._chip_group = QButtonGroup(self)
        self._chip_group.setExclusive(False)  # a second click un-chooses (any time)
        for since in SINCE:
            chip = QToolButton(self)
            chip.setObjectName(f"Since_{since}")
            chip.setProperty("chip", True)
            chip.setCheckable(True)
            chip.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            chip.toggled.connect(lambda on, s=since: self._on_chip(s, on))
            self._chip_group.addButton(chip)
            self.chips[since] = chip
        self.workspace_combo = QComboBox(self)
        self.workspace_combo.setObjectName("SearchWorkspace")
        self.workspace_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.workspace_combo.addItem("", None)
        for workspace in self._workspaces:
            self.workspace_combo.addItem(workspace.name, workspace.id)
        if workspace_id is not None:
            self.workspace_combo.setCurrentIndex(
                max(0, self.workspace_combo.findData(workspace_id))
            )
        self.workspace_combo.currentIndexChanged.connect(self._restart)
        self.archived_box = QCheckBox(self)
        self.archived_box.setObjectName("IncludeArchived")
        self.archived_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.archived_box.toggled.connect(self._restart)

    def _build_results(self) -> None:
        self.model = SearchResultsModel(self)
        self.results = QListView(self)
        self.results.setObjectName("SearchResults")
        self.results.setModel(self.model)
        self.delegate = SearchResultDelegate(self.results)
        self.delegate.workspaces = {w.id: w for w in self._workspaces}
        self.results.setItemDelegate(self.delegate)
        self.results.setUniformItemSizes(True)
        self.results.setMouseTracking(True)
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay in the query field
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.clicked.connect(self._choose_index)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("SearchStatus")
        self.status_label.setProperty("muted", True)

    def _build_layout(self) -> None:
        filters = QHBoxLayout()
        filters.setSpacing(4)
        for chip in self.chips.values():
            filters.addWidget(chip)
        filters.addStretch(1)
        filters.addWidget(self.workspace_combo)
        filters.addWidget(self.archived_box)
        column = QVBoxLayout(self)
        column.setContentsMargins(14, 14, 14, 10)
        column.setSpacing(10)
        column.addWidget(self.query_edit)
        column.addLayout(filters)
        column.addWidget(self.results, 1)
        column.addWidget(self.status_label)

    # ---- state --------------------------------------------------------------------
    def since(self) -> str | None:
        return next((s for s, chip in self.chips.items() if chip.isChecked()), None)

    def workspace_id(self) -> str | None:
        value = self.workspace_combo.currentData()
        return str(value) if value else None

    def hits(self) -> list[SearchHit]:
        return [h for r in range(self.model.rowCount()) if (h := self.model.hit_at(r))]

    def current_row(self) -> int:
        index = self.results.currentIndex()
        return index.row() if index.isValid() else -1

    # ---- searching ------------------------------------------------------------------
    def _on_chip(self, since: str, on: bool) -> None:
        if on:  # one time filter at a time
            for other, chip in self.chips.items():
                if other != since and chip.isChecked():
                    chip.blockSignals(True)
                    chip.setChecked(False)
                    chip.blockSignals(False)
        self._restart()

    def _schedule(self, *_args: object) -> None:
        self._generation += 1  # whatever is running now answers an older query
        self._enter_waiting = False  # an edit after Enter: the reader goes on typing
        self._timer.start()

    def _restart(self, *_args: object) -> None:
        self._generation += 1
        self._enter_waiting = False
        self._timer.start(0)

    def is_searching(self) -> bool:
        """Whether the rows on screen may answer an older query or older filters:
        a search waits on the debounce, runs, or is queued behind one."""
        running = self._task is not None and not self._task.done()
        return self._timer.isActive() or self._queued or running

    def _start_search(self) -> None:
        if self._task is not None and not self._task.done():
            self._queued = True  # searched when the running one ends (_on_done)
            return
        self._queued = False
        query = self.query_edit.text().strip()
        self._generation += 1
        generation = self._generation
        if not query:
            self.model.set_hits([], "")
            self._set_status(self.tr("Type to search titles and messages."))
            self._enter_waiting = False  # nothing to open
            return
        self._note_timer.start()
        self._task = asyncio.ensure_future(self._search_now(generation, query))
        self._task.add_done_callback(self._on_done)

    def _note_searching(self) -> None:
        if self._task is not None and not self._task.done():
            self._set_status(self.tr("Searching…"))

    async def _search_now(self, generation: int, query: str) -> None:
        hits = await self._search.search(
            query,
            since=self.since(),
            workspace_id=self.workspace_id(),
            include_archived=self.archived_box.isChecked(),
            limit=RESULT_LIMIT,
        )
        if generation != self._generation:
            log.debug("dropped the results of an older query %r", query)
            return
        self._show(hits, query)

    def _on_done(self, task: asyncio.Task[None]) -> None:
        self._note_timer.stop()
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("search failed", exc_info=error)
            message = getattr(error, "message", None) or str(error)
            self._set_status(self.tr("Search failed: {reason}").format(reason=message))
        if self._queued:
            self._start_search()
        elif error is not None:
            self._enter_waiting = False  # the rows on screen answer another query

    def _show(self, hits: list[SearchHit], query: str) -> None:
        self.model.set_hits(hits, query)
        if hits:
            self.results.setCurrentIndex(self.model.index(0))
            self._set_status(
                self.tr("{n} result(s) · ↑↓ to move · Enter to open · Esc to close").format(
                    n=len(hits)
                )
            )
        else:
            self._set_status(self.tr("No conversation matches “{query}”.").format(query=query))
        self.results_shown.emit(query, len(hits))
        if self._enter_waiting:
            self._enter_waiting = False
            self._choose_index(self.results.currentIndex())  # the first hit, if any

    def _set_status(self, text: str) -> None:
        self.status_label.setText(text)

    # ---- choosing ------------------------------------------------------------------------
    def move_current(self, step: int) -> None:
        count = self.model.rowCount()
        if not count:
            return
        row = max(0, min(count - 1, self.current_row() + step))
        index = self.model.index(row)
        self.results.setCurrentIndex(index)
        self.results.scrollTo(index)

    def choose_current(self) -> None:
        if self.is_searching():
            self._enter_waiting = True  # opened by _show, with the newest results
            return
        self._choose_index(self.results.currentIndex())

    def _choose_index(self, index: QModelIndex) -> None:
        hit = self.model.hit_at(index.row()) if index.isValid() else None
        if hit is None:
            return
        self.result_chosen.emit(hit.thread_id, hit.message_id)
        self.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.query_edit and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            steps = {
                Qt.Key.Key_Down: 1,
                Qt.Key.Key_Up: -1,
                Qt.Key.Key_PageDown: 5,
                Qt.Key.Key_PageUp: -5,
            }
            if event.key() in steps:
                self.move_current(steps[Qt.Key(event.key())])
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.choose_current()
                return True
            if event.key() == Qt.Key.Key_Escape:
                self.reject()
                return True
        return super().eventFilter(watched, event)

    def done(self, result: int) -> None:
        self._timer.stop()
        self._generation += 1
        self._queued = False
        self._enter_waiting = False
        if self._task is not None and not self._task.done():
            self._task.cancel()
        super().done(result)

    # ---- language -------------------------------------------------------------------------
    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Search conversations"))
        self.query_edit.setPlaceholderText(self.tr("Search titles and messages…"))
        labels = {
            "today": self.tr("Today"),
            "week": self.tr("This week"),
            "month": self.tr("This month"),
            "quarter": self.tr("This quarter"),
        }
        for since, chip in self.chips.items():
            chip.setText(labels[since])
        self.workspace_combo.setItemText(0, self.tr("All workspaces"))
        self.archived_box.setText(self.tr("Include archived"))
        self.delegate.title_hit_text = self.tr("Match in the title")
        if not self.query_edit.text().strip():
            self._set_status(self.tr("Type to search titles and messages."))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.activateWindow()
        self.query_edit.setFocus()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
