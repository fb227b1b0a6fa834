"""The form of the agent's questions (PRODUCT.md §11, ``ask_user_question``)
inside its tool card: each question with its options in a list that also
takes a free answer, then "Send answers" and "Dismiss". The composer stays
locked until one of them is pressed (``window/agent_actions.py``). What is
typed is reported as it changes (``edited``) and given back to a form made
again (``draft``): the timeline keeps it while the widget comes and goes."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.agent import Question


class QuestionForm(QWidget):
    #: the answers, one per question (``None``: dismissed)
    answered = Signal(object)
    #: the answers as typed so far, one per question (not sent)
    edited = Signal(object)

    def __init__(
        self,
        questions: list[Question],
        parent: QWidget | None = None,
        draft: list[str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("questionForm")
        box = QVBoxLayout(self)
        box.setContentsMargins(24, 2, 0, 4)
        box.setSpacing(4)
        self.fields: list[QComboBox] = []
        for question in questions:
            label = QLabel(question.text, self)
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
            field = QComboBox(self)
            field.setEditable(True)
            field.addItems(list(question.options))
            field.setCurrentIndex(-1)  # nothing chosen: type or pick
            line = field.lineEdit()
            if line is not None:
                line.setPlaceholderText(
                    self.tr("Pick an option or type your answer")
                    if question.options
                    else self.tr("Type your answer")
                )
            box.addWidget(label)
            box.addWidget(field)
            self.fields.append(field)
        for field, typed in zip(self.fields, draft or (), strict=False):
            field.setCurrentText(typed)
        for field in self.fields:  # after the draft went in: only the user's changes
            field.currentTextChanged.connect(self._on_edited)
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        self.send = QPushButton(self.tr("Send answers"), self)
        self.send.setObjectName("sendAnswers")
        self.send.setDefault(True)
        self.dismiss = QPushButton(self.tr("Dismiss"), self)
        self.dismiss.setObjectName("dismissQuestions")
        buttons.addWidget(self.send)
        buttons.addWidget(self.dismiss)
        buttons.addStretch(1)
        box.addLayout(buttons)
        self.send.clicked.connect(self._send)
        self.dismiss.clicked.connect(self._dismiss)

    def answers(self) -> list[str]:
        return [field.currentText().strip() for field in self.fields]

    def _on_edited(self) -> None:
        self.edited.emit([field.currentText() for field in self.fields])

    def _send(self) -> None:
        self._lock()
        self.answered.emit(self.answers())

    def _dismiss(self) -> None:
        self._lock()
        self.answered.emit(None)

    def _lock(self) -> None:
        for widget in (self.send, self.dismiss, *self.fields):
            widget.setEnabled(False)
