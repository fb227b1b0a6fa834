"""Help → Check data: the window's face of ``DoctorService`` (the same checks
as ``mira-desktop doctor``).

Owns :class:`DoctorDialog`. Opening it runs ``check()`` in the background (the
database lives on its worker thread; nothing blocks the window) and lists what
is wrong — each problem with the repair that will be done — or says that
everything looks healthy. "Repair" runs ``fix()`` (one transaction, then a
second check) and lists what was done and anything still wrong. Open it with
``open()`` or ``show()``, never ``exec()`` (a nested loop would stall qasync).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mira_desktop.ui.dialogs.async_guard import guarded, show_or_log
from mira_desktop.ui.dialogs.status_label import StatusLabel

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from mira_desktop.services.doctor import DoctorReport, DoctorService, Problem

log = logging.getLogger(__name__)


class DoctorDialog(QDialog):
    """A repair that changed something is announced by ``DoctorService`` to
    its listeners (the window reloads what it shows), also when it ends after
    the dialog was closed."""

    def __init__(self, doctor: DoctorService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("DoctorDialog")
        self.setWindowTitle(self.tr("Check data"))
        self.setMinimumSize(620, 420)
        self._doctor = doctor
        self._task: asyncio.Task[Any] | None = None
        self._checked = False
        self.report: DoctorReport | None = None
        self._build()

    def _build(self) -> None:
        intro = QLabel(
            self.tr(
                "Looks for damage a crash or a hand edit can leave in the data folder: "
                "broken conversation trees, leftover answers, unused media files."
            ),
            self,
        )
        intro.setWordWrap(True)
        intro.setProperty("muted", True)
        self.summary = StatusLabel(self)
        self.summary.setObjectName("DoctorSummary")
        self.problem_list = QListWidget(self)
        self.problem_list.setObjectName("DoctorProblems")
        self.problem_list.setWordWrap(True)
        self.problem_list.setAlternatingRowColors(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.repair_button = QPushButton(self.tr("Repair"), self)
        self.repair_button.setObjectName("DoctorRepairButton")
        self.repair_button.setProperty("primary", True)
        self.repair_button.setEnabled(False)
        self.recheck_button = QPushButton(self.tr("Check again"), self)
        self.buttons.addButton(self.repair_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.recheck_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.rejected.connect(self.reject)
        self.repair_button.clicked.connect(self.repair)
        self.recheck_button.clicked.connect(self.check)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addWidget(self.summary)
        column.addWidget(self.problem_list, 1)
        column.addWidget(self.buttons)

    # ---- running ---------------------------------------------------------------
    def is_busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def check(self) -> None:
        self.summary.show_busy(self.tr("Checking the data folder…"))
        self._run(self._doctor.check())

    def repair(self) -> None:
        self.summary.show_busy(self.tr("Repairing…"))
        self._run(self._doctor.fix())

    def _run(self, work: Coroutine[Any, Any, DoctorReport]) -> None:
        if self.is_busy():
            work.close()
            return
        self._set_buttons(busy=True)
        self._task = asyncio.ensure_future(self._finish(work))

    async def _finish(self, work: Coroutine[Any, Any, DoctorReport]) -> None:
        try:
            report = await guarded(self, work)
        except Exception as exc:  # shown in the dialog, never a traceback
            log.warning("the data check failed", exc_info=True)
            show_or_log(self, exc, self._show_failure, exc)
            return
        if report is not None and shiboken6.isValid(self):
            self._show(report)

    # ---- showing -----------------------------------------------------------------
    def _show_failure(self, exc: BaseException) -> None:
        self.summary.show_error(exc)
        self._set_buttons(busy=False)

    def _show(self, report: DoctorReport) -> None:
        self.report = report
        self.problem_list.clear()
        if report.mode == "fix":
            self._show_repair(report)
        elif report.healthy:
            self.summary.show_ok(self.tr("Everything looks healthy."))
        else:
            self.summary.show_error(
                self.tr("Problems found: {count}. Repair fixes them as listed.").format(
                    count=len(report.problems)
                )
            )
            for problem in report.problems:
                self._add_problem(problem)
        self._set_buttons(busy=False)

    def _show_repair(self, report: DoctorReport) -> None:
        if report.salvage is not None:
            from ..damaged_database import recovered_notice

            self._add_line(recovered_notice(report.salvage))
        for action in report.actions:
            self._add_line(self.tr("Done: {action}").format(action=action))
        if report.healthy:
            text = self.tr("Repairs done: {count}. Everything looks healthy now.")
            self.summary.show_ok(text.format(count=len(report.actions)))
            return
        self.summary.show_error(
            self.tr("Still wrong: {count}.").format(count=len(report.remaining))
        )
        for problem in report.remaining:
            self._add_problem(problem)

    def _add_problem(self, problem: Problem) -> None:
        item = self._add_line(
            self.tr("{detail}\nRepair: {fix}").format(detail=problem.detail, fix=problem.fix)
        )
        item.setToolTip(f"{problem.code} · {problem.subject}")
        item.setData(Qt.ItemDataRole.UserRole, problem.code)

    def _add_line(self, text: str) -> QListWidgetItem:
        item = QListWidgetItem(text)
        self.problem_list.addItem(item)
        return item

    def _set_buttons(self, *, busy: bool) -> None:
        report = self.report
        has_problems = report is not None and not report.healthy
        self.repair_button.setEnabled(not busy and has_problems)
        self.recheck_button.setEnabled(not busy)

    def problem_codes(self) -> list[str]:
        """The codes of the problems listed (for tests)."""
        items = (self.problem_list.item(i) for i in range(self.problem_list.count()))
        return [str(code) for item in items if (code := item.data(Qt.ItemDataRole.UserRole))]

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._checked:
            self._checked = True
            self.check()
