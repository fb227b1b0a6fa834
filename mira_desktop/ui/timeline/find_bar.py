"""``FindBar``: Find in this conversation (Ctrl+F) — a bar above the
timeline with the words to find, "2 of 7" (the places that hold them), ↑ / ↓
and ×. Enter (or F3) goes to the next place, Shift+Enter (Shift+F3) to the
previous one, Esc closes. The window's ``FindActions`` does the finding;
this is the widget alone. :func:`mark_matches` lights the words in a text
view, the current place stronger, and says where each one is."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal, SignalInstance
from PySide6.QtGui import QColor, QKeyEvent, QKeySequence, QPalette, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTextEdit,
    QToolButton,
    QWidget,
)

#: a found word's background: the amber readers know from finding in pages,
#: solid on a light background, see-through on a dark one (its text stays legible)
LIGHT_MATCH = QColor(255, 213, 79)
DARK_MATCH = QColor(255, 193, 7, 96)
#: the place the count names: orange, as in a browser's find
LIGHT_CURRENT = QColor(255, 152, 0)
DARK_CURRENT = QColor(255, 152, 0, 190)
#: most places tinted in one text view
MAX_MARKS = 1000


class FindBar(QFrame):
    query_changed = Signal(str)
    next_requested = Signal()
    previous_requested = Signal()
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("FindBar")
        self.field = QLineEdit(self)
        self.field.setObjectName("FindField")
        self.field.setClearButtonEnabled(True)
        self.field.textChanged.connect(self.query_changed)
        self.field.installEventFilter(self)
        self.count = QLabel(self)
        self.count.setObjectName("FindCount")
        self.count.setProperty("muted", True)
        self.previous = self._button("↑", self.previous_requested)
        self.next = self._button("↓", self.next_requested)
        self.close_button = self._button("×", self.closed)
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 6, 12, 6)
        row.setSpacing(6)
        row.addWidget(self.field, 1)
        row.addWidget(self.count)
        row.addWidget(self.previous)
        row.addWidget(self.next)
        row.addWidget(self.close_button)
        self.retranslate()
        self.set_count(None, 0)

    def _button(self, text: str, signal: SignalInstance) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setAutoRaise(True)
        button.clicked.connect(signal)
        return button

    def text(self) -> str:
        return self.field.text()

    def set_count(self, current: int | None, total: int) -> None:
        """``current`` (0-based) of ``total`` places; nothing shown without words."""
        if not self.field.text().strip():
            self.count.setText("")
        elif not total:
            self.count.setText(self.tr("No matches"))
        else:
            shown = (current or 0) + 1
            self.count.setText(self.tr("{0} of {1}").format(shown, total))
        for button in (self.previous, self.next):
            button.setEnabled(total > 0)

    def retranslate(self) -> None:
        self.field.setPlaceholderText(self.tr("Find in this conversation"))
        self.previous.setToolTip(self.tr("Previous match (Shift+Enter)"))
        self.next.setToolTip(self.tr("Next match (Enter)"))
        self.close_button.setToolTip(self.tr("Close (Esc)"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                (self.previous_requested if shift else self.next_requested).emit()
                return True
            if event.matches(QKeySequence.StandardKey.FindNext):
                self.next_requested.emit()
                return True
            if event.matches(QKeySequence.StandardKey.FindPrevious):
                self.previous_requested.emit()
                return True
            if event.key() == Qt.Key.Key_Escape:
                self.closed.emit()
                return True
        return super().eventFilter(watched, event)


def mark_matches(view: QTextEdit, words: str, current: int = -1) -> list[QRect]:
    """Tint every occurrence of ``words`` in ``view`` (case-insensitive; any
    earlier marks go), the ``current``-th (0-based) stronger, and return
    where each is, in ``view``'s coordinates. Empty ``words`` clears."""
    marks: list[QTextEdit.ExtraSelection] = []
    places: list[QRect] = []
    if words:
        dark = view.palette().color(QPalette.ColorRole.Base).lightness() < 128
        colour, strong = (DARK_MATCH, DARK_CURRENT) if dark else (LIGHT_MATCH, LIGHT_CURRENT)
        document = view.document()
        cursor = document.find(words, 0)
        while not cursor.isNull() and len(marks) < MAX_MARKS:
            mark = QTextEdit.ExtraSelection()
            mark.cursor = QTextCursor(cursor)
            mark.format.setBackground(strong if len(marks) == current else colour)
            marks.append(mark)
            places.append(view.cursorRect(cursor))
            cursor = document.find(words, cursor, QTextDocument.FindFlag(0))
    view.setExtraSelections(marks)
    return places
