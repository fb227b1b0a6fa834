"""``SummaryDialog``: a thread's context summary (PRODUCT.md §4, §13) — the
hidden context injected into every request, never shown as a chat message.

Shows the summary (editable), when it was last updated and how many messages
it lags behind. Generate asks the thread's model to summarise the active
branch (busy while it runs; the model's error shows in the dialog), Save keeps
the text as written, Clear removes it. An automatic refresh that lands while
the dialog is open is shown through :meth:`show_summary` (the window forwards
``SummaryService`` listeners)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.core.context import ContextSummary
from mira_desktop.core.errors import MiraError

from ..error_texts import error_line
from ..timeline.meta_format import local_time
from .async_guard import guarded

if TYPE_CHECKING:
    from mira_desktop.services.summary import SummaryService

    from ..controllers.tasks import TaskRunner

log = logging.getLogger(__name__)


class SummaryDialog(QDialog):
    def __init__(
        self,
        summaries: SummaryService,
        tasks: TaskRunner,
        thread_id: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("SummaryDialog")
        self.thread_id = thread_id
        self._service = summaries
        self._tasks = tasks
        self._summary: ContextSummary | None = None
        self._busy = False
        self.intro = QLabel(self)
        self.intro.setWordWrap(True)
        self.intro.setProperty("muted", True)
        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("SummaryText")
        self.info = QLabel(self)
        self.info.setObjectName("SummaryInfo")
        self.info.setWordWrap(True)
        self.status = QLabel(self)
        self.status.setObjectName("SummaryStatus")
        self.status.setWordWrap(True)
        self.generate_button = QPushButton(self)
        self.generate_button.setObjectName("SummaryGenerate")
        self.save_button = QPushButton(self)
        self.save_button.setObjectName("SummarySave")
        self.save_button.setProperty("primary", True)
        self.clear_button = QPushButton(self)
        self.clear_button.setObjectName("SummaryClear")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.buttons.rejected.connect(self.reject)
        self._build_layout()
        self.generate_button.clicked.connect(self.generate)
        self.save_button.clicked.connect(self.save)
        self.clear_button.clicked.connect(self.clear)
        self._retranslate()
        self.resize(620, 480)

    def _build_layout(self) -> None:
        actions = QHBoxLayout()
        actions.setSpacing(8)
        actions.addWidget(self.generate_button)
        actions.addWidget(self.clear_button)
        actions.addStretch(1)
        actions.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        layout.addWidget(self.intro)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.info)
        layout.addWidget(self.status)
        layout.addLayout(actions)
        layout.addWidget(self.buttons)

    # ---- behaviour -------------------------------------------------------------------
    def load(self) -> None:
        self._start(self._service.get(self.thread_id), self.tr("Loading…"))

    def generate(self) -> None:
        self._start(self._service.generate(self.thread_id), self.tr("Generating a summary…"))

    def save(self) -> None:
        text = self.editor.toPlainText()
        self._start(self._service.set(self.thread_id, text), self.tr("Saving…"), self.tr("Saved."))

    def clear(self) -> None:
        async def clear() -> None:
            await self._service.clear(self.thread_id)

        self._start(clear(), self.tr("Clearing…"), self.tr("Cleared."))

    def _start(self, work: Awaitable[ContextSummary | None], busy: str, done: str = "") -> None:
        self._set_busy(True, busy)
        self._tasks.start(self._finish(work, done))

    async def _finish(self, work: Awaitable[ContextSummary | None], done: str) -> None:
        try:
            summary = await guarded(self, work)
        except MiraError as exc:
            if shiboken6.isValid(self):
                self._set_busy(False, error_line(exc), error=True)
            return
        if not shiboken6.isValid(self):
            return  # closed and deleted meanwhile
        self.show_summary(summary)
        self._set_busy(False, done)

    def show_summary(self, summary: ContextSummary | None) -> None:
        """Show ``summary`` (``None``: there is none)."""
        self._summary = summary
        self.editor.setPlainText(summary.text if summary else "")
        self.info.setText(self._info_text(summary))

    def summary(self) -> ContextSummary | None:
        return self._summary

    def is_busy(self) -> bool:
        return self._busy

    def _info_text(self, summary: ContextSummary | None) -> str:
        if summary is None:
            return self.tr("No summary yet. Generate one from the conversation, or write it above.")
        label, _ = local_time(summary.updated_at or "")
        if summary.lag == 0:
            return self.tr("Updated {0} · up to date").format(label)
        return self.tr("Updated {0} · {1} newer message(s) not in it").format(label, summary.lag)

    def _set_busy(self, busy: bool, text: str, *, error: bool = False) -> None:
        self._busy = busy
        for widget in (self.generate_button, self.save_button, self.clear_button, self.editor):
            widget.setEnabled(not busy)
        self.status.setText(text)
        self.status.setProperty("status", "error" if error else ("busy" if busy else ""))
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Context summary"))
        self.intro.setText(
            self.tr(
                "The summary is sent to the model with every message of this thread, "
                "after the role. It is never shown in the chat."
            )
        )
        self.editor.setPlaceholderText(self.tr("Key facts, decisions and names to remember…"))
        self.generate_button.setText(self.tr("Generate"))
        self.generate_button.setToolTip(
            self.tr("Summarise the conversation with the thread's model")
        )
        self.save_button.setText(self.tr("Save"))
        self.clear_button.setText(self.tr("Clear"))
        self.info.setText(self._info_text(self._summary))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
