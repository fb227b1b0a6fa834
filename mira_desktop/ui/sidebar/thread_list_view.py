"""``ThreadListView``: the sidebar's list view. It sends clicks on the marks
the delegate paints to where they belong instead of opening the thread — a
group header collapses or expands, the pin button pins or unpins, a row in
batch mode ticks or unticks — and handles the list's keys: Delete (to the
trash), F2 (rename; Qt's edit trigger), Enter or Space on a header, Space in
batch mode. Rows drag as thread ids: onto the pinned block to reorder pins,
onto a workspace to move there. ``show_selected`` highlights a thread without
it counting as the user's choice (``silent``).

A one-column ``QTableView`` that looks and acts as a list, not a
``QListView``: a list view lays every row out again whenever rows are
inserted or removed, asking the (Python) model once per row, so each page
of 100 threads cost ~2 µs a row already loaded — 25 ms at 12,000 rows,
~200 ms at 100,000 — and so did every row a live update moved. A table's
rows are sections of its vertical header, all of one fixed height, so a
page costs the same at any depth."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QRectF, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QTableView,
    QWidget,
)

from mira_desktop.ui.sidebar.grouped_model import GroupedThreadModel
from mira_desktop.ui.sidebar.thread_delegate import ThreadItemDelegate, row_height
from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel

log = logging.getLogger(__name__)


class _NoRowPanel(QProxyStyle):
    """The app's style, less the panel a table paints under a selected cell:
    the delegate paints the selection itself, with rounded corners, as it
    does in a list view (which paints no such panel)."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        if element != QStyle.PrimitiveElement.PE_PanelItemViewRow:
            super().drawPrimitive(element, option, painter, widget)


class ThreadListView(QTableView):
    """Signals: ``pin_clicked(id, pin)``, ``delete_pressed()``."""

    pin_clicked = Signal(str, bool)  # thread id, True to pin / False to unpin
    delete_pressed = Signal()

    def __init__(self, model: GroupedThreadModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ThreadList")
        self.setModel(model)
        self.delegate = ThreadItemDelegate(self)
        self.setItemDelegate(self.delegate)
        # a list made of a table (see the module's docstring): no headers, no
        # grid, one stretched column, rows of one fixed height
        self.horizontalHeader().hide()
        self.horizontalHeader().setStretchLastSection(True)
        rows = self.verticalHeader()
        rows.hide()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setMinimumSectionSize(1)
        self._fit_row_height()
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setCornerButtonEnabled(False)
        self.setTabKeyNavigation(False)  # Tab leaves the list, as it does a list view
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMouseTracking(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._style = _NoRowPanel()  # over the application's style; kept alive here
        self.setStyle(self._style)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        # a drop lands between rows (a pin's new place), and a moved row is
        # not blanked afterwards: a list's ways, not a table's
        self.setDragDropOverwriteMode(False)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        #: True while the view itself moves the selection (not the user)
        self.silent = False
        self._anchor: tuple[str, int] | None = None  # see hold_top_row()

    def _fit_row_height(self) -> None:
        self.verticalHeader().setDefaultSectionSize(row_height(self.font()))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_row_height()  # a list view's rows follow its font by themselves
        super().changeEvent(event)

    def moveCursor(
        self, cursorAction: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        """Home and End go to the first and last row, as in a list (in a table
        they go to the row's first and last cell)."""
        action = QAbstractItemView.CursorAction
        if cursorAction in (action.MoveHome, action.MoveEnd):
            modifiers |= Qt.KeyboardModifier.ControlModifier
        return super().moveCursor(cursorAction, modifiers)

    def grouped(self) -> GroupedThreadModel:
        model = self.model()
        assert isinstance(model, GroupedThreadModel)
        return model

    def show_selected(self, thread_id: str | None, *, scroll: bool) -> None:
        """Highlight ``thread_id`` (or nothing) as the current row, silently."""
        row = self.grouped().row_of(thread_id) if thread_id else -1
        selection = self.selectionModel()
        self.silent = True
        auto = self.hasAutoScroll()
        self.setAutoScroll(scroll)
        try:
            if row < 0:
                selection.clearSelection()
                selection.setCurrentIndex(QModelIndex(), QItemSelectionModel.SelectionFlag.Clear)
                return
            index = self.grouped().index(row)
            selection.setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            if scroll:
                self.scrollTo(index)
        finally:
            self.setAutoScroll(auto)
            self.silent = False

    def hold_top_row(self) -> None:
        """Remember the first thread in sight and where it stands, so that rows
        coming or going above it (a sync with outside changes) leave it there
        (``restore_top_row``): a list scrolled down does not jump."""
        self._anchor = None
        model, row = self.grouped(), max(0, self.rowAt(0))
        while 0 <= row < model.rowCount():
            thread = model.thread_at(row)
            if thread is not None:
                self._anchor = (thread.id, self.rowViewportPosition(row))
                return
            row += 1

    def restore_top_row(self) -> None:
        anchor, self._anchor = self._anchor, None
        row = self.grouped().row_of(anchor[0]) if anchor else -1
        if anchor is None or row < 0:
            return
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + self.rowViewportPosition(row) - anchor[1])

    # ---- mouse ---------------------------------------------------------------------
    def _act_on_mark(self, event: QMouseEvent) -> bool:
        """Handle a left click on a header, a pin or (batch mode) a row."""
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        index = self.indexAt(event.position().toPoint())
        if not index.isValid():
            return False
        hit = self.delegate.hit(QRectF(self.visualRect(index)), index, event.position())
        model = self.grouped()
        if hit == "header":
            model.toggle_group(str(index.data(GroupedThreadModel.GroupKeyRole)))
            return True
        thread_id = str(index.data(ThreadListModel.IdRole))
        if hit == "check":  # batch mode: a click ticks, it never opens
            model.set_checked(thread_id, not model.is_checked(thread_id))
            return True
        if hit == "pin":
            self.pin_clicked.emit(thread_id, not index.data(ThreadListModel.PinnedRole))
            return True
        return False

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self._act_on_mark(event):
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        index = self.indexAt(event.position().toPoint())
        hit = (
            self.delegate.hit(QRectF(self.visualRect(index)), index, event.position())
            if index.isValid()
            else None
        )
        if hit is not None:  # a second click on a mark acts again; it never renames
            self._act_on_mark(event)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    # ---- keys ----------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        current = self.currentIndex()
        if key == Qt.Key.Key_Delete and self.state() != self.State.EditingState:
            self.delete_pressed.emit()
            event.accept()
            return
        if current.isValid() and self._toggle_by_key(key, current):
            event.accept()
            return
        super().keyPressEvent(event)

    def _toggle_by_key(self, key: int, current: QModelIndex) -> bool:
        model = self.grouped()
        if current.data(GroupedThreadModel.KindRole) == "header" and key in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
            Qt.Key.Key_Space,
        ):
            model.toggle_group(str(current.data(GroupedThreadModel.GroupKeyRole)))
            return True
        if model.batch_mode() and key == Qt.Key.Key_Space:
            thread_id = current.data(ThreadListModel.IdRole)
            if thread_id:
                model.set_checked(str(thread_id), not model.is_checked(str(thread_id)))
                return True
        return False
