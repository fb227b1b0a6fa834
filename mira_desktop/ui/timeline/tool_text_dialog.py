"""``ToolTextDialog``: the whole text of a tool card (PRODUCT.md §11) — the
diff of a change waiting for approval, all of it, in a scrollable window, so
nothing is approved unseen; when the card could not keep all of the diff,
it says so above the text."""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.agent import ToolCard, ToolStatus


class ToolTextDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ToolTextDialog")
        self.resize(820, 600)
        self.cut_note = QLabel(self)
        self.cut_note.setObjectName("ToolTextCut")
        self.cut_note.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("ToolText")
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addWidget(self.cut_note)
        box.addWidget(self.text, 1)
        box.addWidget(buttons)

    def show_text(self, title: str, text: str, cut_note: str = "") -> None:
        """Show ``text`` whole under ``title``; ``cut_note``: what is missing."""
        self.setWindowTitle(title)
        self.cut_note.setText(cut_note)
        self.cut_note.setVisible(bool(cut_note))
        if self.text.toPlainText() != text:
            self.text.setPlainText(text)
        self.show()
        self.raise_()
        self.activateWindow()


def shown_text(card: ToolCard) -> str:
    """What a card's details show: its diff (before a change runs or after
    it ran), else its output."""
    return card.diff if card.diff and card.status is not ToolStatus.FAILED else card.output
