"""The left sidebar: a "New chat" button above the lazy list of threads.

Emits intents only: ``thread_selected(id)`` when the user picks a row (mouse or
keyboard) and ``new_thread_requested()``. ``select_thread(id)`` highlights a row
without emitting. While any thread streams in the background a timer advances the
delegate's spinner; it stops when nothing runs, so an idle sidebar costs nothing.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.ui.sidebar.thread_delegate import ThreadItemDelegate
from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel

log = logging.getLogger(__name__)

SPINNER_INTERVAL_MS = 80


class ThreadSidebar(QWidget):
    """Signals: ``thread_selected(str)``, ``new_thread_requested()``."""

    thread_selected = Signal(str)
    new_thread_requested = Signal()

    def __init__(self, model: ThreadListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Sidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self._model = model
        self._silent = False
        self.new_chat_button = QPushButton(self)
        self.new_chat_button.setObjectName("NewChatButton")
        self.new_chat_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.list_view = self._build_list()
        self.empty_label = QLabel(self)
        self.empty_label.setProperty("muted", True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self._spinner = QTimer(self)
        self._spinner.setInterval(SPINNER_INTERVAL_MS)
        self._spinner.timeout.connect(self._advance_spinner)
        self._build_layout()
        self._connect()
        self._retranslate()
        self._update_empty()

    def _build_list(self) -> QListView:
        view = QListView(self)
        view.setObjectName("ThreadList")
        view.setModel(self._model)
        self.delegate = ThreadItemDelegate(view)
        view.setItemDelegate(self.delegate)
        view.setUniformItemSizes(True)  # constant row height: cheap layout for huge lists
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.setMouseTracking(True)
        view.setFrameShape(QListView.Shape.NoFrame)
        return view

    def _build_layout(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 10, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(self.new_chat_button)
        layout.addWidget(self.list_view, 1)
        layout.addWidget(self.empty_label, 1)

    def _connect(self) -> None:
        self.new_chat_button.clicked.connect(self.new_thread_requested)
        self.list_view.selectionModel().currentChanged.connect(self._on_current_changed)
        self._model.dataChanged.connect(self._update_spinner)
        for signal in (
            self._model.rowsInserted,
            self._model.rowsRemoved,
            self._model.modelReset,
            self._model.loading_changed,
        ):
            signal.connect(self._update_empty)

    # ---- public API ---------------------------------------------------------
    def model(self) -> ThreadListModel:
        return self._model

    def select_thread(self, thread_id: str | None) -> None:
        """Highlight ``thread_id`` (or nothing) without emitting ``thread_selected``.

        The window calls ``select_thread(None)`` for a new chat, so that clicking the
        previously open thread opens it again."""
        row = self._model.row_of(thread_id) if thread_id else -1
        selection = self.list_view.selectionModel()
        self._silent = True
        try:
            if row < 0:
                selection.clearSelection()
                selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.Clear)
                return
            index = self._model.index(row)
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            self.list_view.scrollTo(index)
        finally:
            self._silent = False

    def selected_thread_id(self) -> str | None:
        index = self.list_view.currentIndex()
        return str(index.data(ThreadListModel.IdRole)) if index.isValid() else None

    # ---- behaviour ----------------------------------------------------------
    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._silent or not current.isValid():
            return
        self.thread_selected.emit(str(current.data(ThreadListModel.IdRole)))

    def _update_spinner(self, *_args: object) -> None:
        running = bool(self._model.running_ids())
        if running and not self._spinner.isActive():
            self._spinner.start()
        elif not running and self._spinner.isActive():
            self._spinner.stop()

    def _advance_spinner(self) -> None:
        self.delegate.spinner_phase = (self.delegate.spinner_phase + 30) % 360
        self.list_view.viewport().update()

    def _update_empty(self, *_args: object) -> None:
        empty = self._model.rowCount() == 0 and not self._model.is_loading()
        self.empty_label.setVisible(empty)
        self.list_view.setVisible(not empty)

    def _retranslate(self) -> None:
        self.new_chat_button.setText(self.tr("+  New chat"))
        self.new_chat_button.setToolTip(self.tr("Start a new conversation (Ctrl+N)"))
        self.empty_label.setText(self.tr("No conversations yet.\nYour chats will appear here."))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
