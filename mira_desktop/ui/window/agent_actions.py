"""``AgentActions``: the agent in the window (PRODUCT.md §11).

* the header's ⋯ menu: "Work in the project folder" (the conversation's
  agent switch, ``thread_switch.py``) and "Ask before changes" (the approval
  mode: manual when checked, auto when not; a setting for every thread);
* the answer's tool cards follow the run (``ChatController.agent_changed``);
  Approve / Deny answer the call the agent waits on;
* Roll back (a card's button, or "Roll back all changes" in the answer's ⋯
  menu) asks first, then puts the files back off the Qt thread; files changed
  since are listed and nothing is written."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QBoxLayout, QMenu

from ...core.agent_keys import AUTO, MANUAL, MODE_KEY, PLAN_MODE, QUESTIONS_TOOL
from ...core.errors import MiraError
from ...core.models import MessageStatus, Thread
from ..error_texts import error_line
from .confirm import ask_then
from .thread_switch import ThreadSwitch
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...core.agent import ProgressStep
    from ..controllers.chat_controller import ChatController
    from ..controllers.tasks import TaskRunner
    from ..widgets.progress_panel import ProgressPanel
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)


class AgentActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
        chat: ChatController,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._switch = ThreadSwitch(
            window,
            tasks,
            presenter,
            name="AgentAction",
            thread_flag="agent_enabled",
            draft_flag="draft_agent",
            set_on_thread=self._set_thread_switch,
        )
        self.agent_action: QAction = self._switch.action
        self._plan_switch = ThreadSwitch(
            window,
            tasks,
            presenter,
            name="PlanModeAction",
            thread_flag="mode",
            draft_flag="draft_plan",
            set_on_thread=self._set_plan_mode,
            thread_on=lambda thread: thread.mode == PLAN_MODE,
        )
        self.plan_action: QAction = self._plan_switch.action
        self.ask_action = QAction(window)
        self.ask_action.setObjectName("AgentAskAction")
        self.ask_action.setCheckable(True)
        self.ask_action.setChecked(True)
        window.header.menu.insertAction(window.undo_turn_action, self.ask_action)
        # Settings → Agent changes the same setting: read it when the menu opens
        window.header.menu.aboutToShow.connect(lambda: tasks.start(self._load_mode()))
        # the switch names the project folder only where the workspace has one
        self._has_folder = True
        window.header.menu.aboutToShow.connect(lambda: tasks.start(self.refresh_folder()))
        self.ask_action.triggered.connect(self.set_asking)
        self._chat = chat
        chat.agent_changed.connect(self._on_agent_changed)
        window.timeline.rows_changed.connect(self.refresh_progress)
        window.timeline.row_added.connect(self.refresh_progress)
        self.progress_panel: ProgressPanel | None = None  # made for the first steps
        window.timeline.tool_requested.connect(self._on_tool_requested)
        window.timeline.plan_requested.connect(self._on_plan_requested)
        window.timeline.answer_requested.connect(self._on_answer_requested)
        window.timeline.message_menu_requested.connect(self._fill_message_menu)
        window.installEventFilter(self)
        self._retranslate()
        tasks.start(self._load_mode())

    async def refresh_folder(self) -> None:
        """Whether the conversation's workspace has a project folder (the
        switch's words follow: without one the agent searches, it has no files)."""
        thread = None if self._p.is_draft else self._p.current_thread
        workspace_id = thread.workspace_id if thread is not None else self._w.sidebar.workspace_id()
        workspaces = self._services.workspaces
        try:
            if workspace_id:
                workspace = await workspaces.get(workspace_id)
            else:
                workspace = await workspaces.default_workspace()
        except MiraError as exc:
            log.debug("workspace of the agent switch not read: %s", exc)
            return
        self._has_folder = bool(workspace.root_dir)
        self._retranslate()

    def _retranslate(self) -> None:
        if self._has_folder:
            self.agent_action.setText(self.tr("Work in the project folder"))
        else:
            self.agent_action.setText(self.tr("Answer as an agent (no project folder)"))
        self.agent_action.setToolTip(
            self.tr(
                "Answer as an agent: it reads and changes files in the workspace's folder, "
                "and searches the chat's knowledge base and the web when they are set up"
            )
        )
        self.plan_action.setText(self.tr("Plan first"))
        self.plan_action.setToolTip(
            self.tr("The agent looks around and proposes a plan; it changes nothing until you say")
        )
        self.ask_action.setText(self.tr("Ask before changes"))
        self.ask_action.setToolTip(
            self.tr("The agent asks before it writes, edits or runs a command that changes files")
        )

    async def _set_thread_switch(self, thread_id: str, on: bool) -> Thread:
        return await self._services.threads.set_agent(thread_id, on)

    async def _set_plan_mode(self, thread_id: str, on: bool) -> Thread:
        return await self._services.threads.set_plan_mode(thread_id, on)

    def _on_plan_requested(self, message_id: str, action: str) -> None:
        """Implement a proposed plan (leave plan mode and say so), or keep
        planning (the composer is the agent's for the next thought). Only the
        newest answer's plan has working buttons (an older one was answered
        since: implementing it would act on another conversation's state)."""
        if message_id != self._w.timeline.open_plan_id():
            self._notice(self.tr("This plan was answered since; only the latest plan can be used."))
            return
        if action == "keep":
            self._w.composer.focus_input()
            return
        if self._p.is_draft or self._chat.is_running(self._p.key):
            self._notice(self.tr("This chat is still answering: wait for it or stop it first."))
            return
        self._p.send(self.tr("Implement the plan."), plan=False, agent=True)

    def is_on(self) -> bool:
        return self._switch.is_on()

    def set_switch(self, on: bool) -> None:
        self._switch.set_switch(on)

    # ---- the approval mode ------------------------------------------------------------
    async def _load_mode(self) -> None:
        # the setting itself: the agent's service loads with its first answer
        mode = await self._services.store.get_setting(MODE_KEY)
        self.ask_action.setChecked(mode != AUTO)

    def set_asking(self, on: bool) -> None:
        mode = MANUAL if on else AUTO

        async def save() -> None:
            try:
                await self._services.store.set_setting(MODE_KEY, mode)
            except MiraError as exc:
                self._notice(error_line(exc))

        self._tasks.start(save())

    # ---- cards ------------------------------------------------------------------------
    def _on_agent_changed(self, key: str, message_id: str, data: object) -> None:
        if not isinstance(data, dict):
            return
        from ...core.agent import ToolStatus, answer_cards  # with the first agent's answer

        asking = any(
            card.name == QUESTIONS_TOOL and card.status is ToolStatus.WAITING
            for card in answer_cards(data)
        )
        self._p.set_question_waiting(key, asking)
        if key == self._p.key:
            self._w.timeline.set_message_data(message_id, data)
            self.refresh_progress()

    # ---- the progress panel -----------------------------------------------------------
    def refresh_progress(self) -> None:
        """Show the steps of the branch on screen: those of its last answer
        that reported some (none hides the panel)."""
        steps: list[ProgressStep] = []
        for message in reversed(self._w.timeline.shown_messages()):
            data = message.data
            if data and "agent" in data:
                from ...core.agent import answer_progress  # only answers of an agent

                steps = answer_progress(data)
                if steps:
                    break
        if self.progress_panel is None:
            if not steps:
                return
            from ..widgets.progress_panel import ProgressPanel  # the first agent's steps

            holder = self._w.composer.parentWidget()
            column = holder.layout() if holder is not None else None
            # the composer sits in the window's centre column (``main_window``)
            assert isinstance(column, QBoxLayout)
            self.progress_panel = ProgressPanel(holder)
            column.insertWidget(column.indexOf(self._w.composer), self.progress_panel)
        self.progress_panel.show_steps(steps)

    def _on_tool_requested(self, message_id: str, call_id: str, action: str) -> None:
        message = self._w.timeline.message(message_id)
        if message is None:
            return
        if action in ("approve", "deny"):
            if not self._services.chat.decide(message.thread_id, call_id, action == "approve"):
                self._notice(self.tr("This step no longer waits for an answer."))
        elif action == "rollback":
            self.roll_back(message_id, call_id)

    def _on_answer_requested(self, message_id: str, call_id: str, answers: object) -> None:
        message = self._w.timeline.message(message_id)
        if message is None:
            return
        given = [str(a) for a in answers] if isinstance(answers, list) else None
        if not self._services.chat.answer(message.thread_id, call_id, given):
            self._notice(self.tr("This step no longer waits for an answer."))

    def _fill_message_menu(self, message_id: str, menu: QMenu) -> None:
        message = self._w.timeline.message(message_id)
        if message is None or message.status is MessageStatus.STREAMING:
            return
        if not (message.data and "agent" in message.data):
            return
        from ...core.agent import answer_cards

        if not any(card.can_roll_back for card in answer_cards(message.data)):
            return
        action = menu.addAction(self.tr("Roll back all changes"))
        action.setObjectName("message:rollback")
        action.triggered.connect(lambda: self.roll_back(message_id, None))

    def roll_back(self, message_id: str, call_id: str | None, *, ask: bool = True) -> None:
        """Put back the files of one call (or of the whole answer), asking first."""
        from ...core.agent import RollbackConflict, answer_cards

        message = self._w.timeline.message(message_id)
        if message is None:
            return
        cards = [
            c
            for c in answer_cards(message.data)
            if c.can_roll_back and (call_id is None or c.call_id == call_id)
        ]
        files = list(dict.fromkeys(path for c in cards for path in c.changed))
        if not files:
            return

        async def roll_back() -> None:
            try:
                updated, restored = await self._services.agent.rollback(message_id, call_id)
            except RollbackConflict as conflict:
                self._refused(conflict.files)
                return
            except MiraError as exc:
                self._notice(error_line(exc))
                return
            self._w.timeline.set_message_data(message_id, updated.data)
            self._notice(self.tr("Rolled back: {0}").format(", ".join(restored)))

        if not ask:
            self._tasks.start(roll_back())
            return
        question = self.tr("Put these files back as they were before the agent changed them?")
        ask_then(
            self._w,
            self.tr("Roll back"),
            question + "\n\n" + "\n".join(files),
            lambda: self._tasks.start(roll_back()),
        )

    def _refused(self, files: list[str]) -> None:
        """Say which files changed since (from a fresh loop turn: a message
        box's nested loop must not run inside a task)."""
        text = self.tr("Not rolled back: these files changed since the agent wrote them.")
        listed = text + "\n\n" + "\n".join(files)

        def show() -> None:
            from PySide6.QtWidgets import QMessageBox

            QMessageBox.warning(self._w, self.tr("Not rolled back"), listed)

        self._notice(text)
        QTimer.singleShot(0, self._w, show)

    def _notice(self, text: str) -> None:
        self._w.notice_bar.show_notice(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        return False
