"""``MainWindow``: lays out the sidebar, header, timeline, composer and menus, and
wires their signals to the presenter and controllers. Behaviour lives in
``conversation.py`` and the controllers; this module only builds and connects."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ... import __version__
from ..composer.composer_widget import ComposerWidget
from ..controllers.chat_controller import ChatController
from ..controllers.tasks import TaskRunner
from ..error_texts import error_line
from ..export.thread_actions import ThreadActions
from ..header.header_widget import HeaderWidget
from ..kb.kb_actions import KbActions
from ..sidebar.thread_list_model import ThreadListModel
from ..sidebar.thread_sidebar import ThreadSidebar
from ..timeline.anchor_rail import with_anchor_rail
from ..timeline.timeline_view import TimelineView
from ..welcome.empty_state import EmptyStateWidget
from ..welcome.welcome_view import WelcomeView
from .agent_actions import AgentActions
from .composer_actions import ComposerActions
from .context_actions import ContextActions
from .conversation import ConversationPresenter
from .dictation_actions import DictationActions
from .find_actions import FindActions
from .history_actions import HistoryActions
from .image_actions import ImageActions
from .meter_actions import MeterActions
from .notice_bar import NoticeBar
from .outside_changes import OutsideChanges
from .reasoning_actions import ReasoningActions
from .search_actions import SearchActions
from .service_listeners import ServiceListeners
from .speech_actions import SpeechActions
from .tree_actions import TreeActions
from .window_state import WindowState
from .workspace_actions import WorkspaceActions

if TYPE_CHECKING:
    from ...bootstrap import Services

log = logging.getLogger(__name__)

VIEWS = ("welcome", "empty", "thread")


class MainWindow(QMainWindow):
    theme_requested = Signal(str)
    language_requested = Signal(str)

    def __init__(self, services: Services, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MainWindow")
        self.services = services
        self.tasks = TaskRunner(on_error=self._on_task_error)
        self.doctor_dialog: QWidget | None = None
        self._close_without_asking = False
        self.listeners = ServiceListeners(services)
        self.chat = ChatController(services.deferred("chat"), self.tasks, self)
        self._build_widgets()
        self._build_layout()
        self._build_menus()
        self.presenter = ConversationPresenter(self, services, self.chat, self.tasks)
        self.tree = TreeActions(self, services, self.chat, self.tasks, self.presenter)
        self.history_actions = HistoryActions(self, services, self.chat, self.tasks, self.presenter)
        self.outside_changes = OutsideChanges(self, services, self.tasks, self.presenter)
        self.workspace_actions = WorkspaceActions(
            self, services, self.tasks, self.presenter, self.history_actions
        )
        self.search_actions = SearchActions(self, services, self.presenter)
        self.context_actions = ContextActions(self, services, self.chat, self.tasks, self.presenter)
        self.composer_actions = ComposerActions(
            self, services, self.chat, self.tasks, self.presenter, self.context_actions
        )
        self.meter_actions = MeterActions(
            self, services, self.chat, self.tasks, self.presenter, self.composer_actions.attachments
        )
        self.kb_actions = KbActions(self, services, self.tasks, self.presenter)
        self.speech_actions = SpeechActions(self, services, self.tasks, self.presenter)
        self.image_actions = ImageActions(self, services, self.tasks, self.presenter)
        self.agent_actions = AgentActions(self, services, self.tasks, self.presenter, self.chat)
        self.reasoning_actions = ReasoningActions(self, services, self.tasks, self.presenter)
        self.find_actions = FindActions(self, services, self.tasks, self.presenter)
        self.dictation_actions = DictationActions(self, services, self.tasks, self.presenter)
        self.header.menu.insertSeparator(self.undo_turn_action)
        self.export_actions = ThreadActions(self, services, self.tasks)
        self.export_actions.connect_window()
        self.state = WindowState(self, services)
        self._connect()
        # the window follows every change, wherever made (a fetch, a repair,
        # a theme stored after the dialog that started it was closed)
        self.listeners.listen("providers", self._on_providers_changed)
        self.listeners.listen("settings", self._on_setting_stored)
        self.listeners.listen("doctor", self._after_repair)
        self.retranslate()
        self.resize(1180, 780)

    # ---- building ----------------------------------------------------------------
    def _build_widgets(self) -> None:
        # made under their final parents: moving a styled tree re-polishes all of it
        h = self.services.history
        self.thread_model = ThreadListModel(h.list_threads_after, h.count_threads, parent=self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("MainSplitter")
        self.sidebar = ThreadSidebar(self.thread_model, self.splitter)
        self._right = right = QWidget(self.splitter)
        right.setObjectName("ConversationPane")
        self.header = HeaderWidget(right)
        self.notice_bar = NoticeBar(right)
        self.notice_label = self.notice_bar.label
        self.stack = QStackedWidget(right)
        self.timeline = TimelineView(self.stack)
        self.timeline_pane, self.anchor_rail = with_anchor_rail(self.timeline, self.stack)
        self.welcome = WelcomeView(self.stack)
        self.empty_state = EmptyStateWidget(self.services.providers.detect_ollama, self.stack)
        self._ollama_looked_for = False
        self.composer = ComposerWidget(right)

    def _build_layout(self) -> None:
        for widget in (self.welcome, self.empty_state, self.timeline_pane):
            self.stack.addWidget(widget)
        column = QVBoxLayout(self._right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.header)
        column.addWidget(self.notice_bar)
        column.addWidget(self.stack, 1)
        column.addWidget(self.composer)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(self._right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([280, 900])
        self.setCentralWidget(self.splitter)

    def conversation_pane(self) -> QWidget:
        """The right-hand column: header, notices, the conversation, composer."""
        return self._right

    def insert_above_timeline(self, widget: QWidget) -> None:
        """Put a bar between the notices and the conversation (Find)."""
        column = self._right.layout()
        assert isinstance(column, QVBoxLayout)
        column.insertWidget(column.indexOf(self.stack), widget)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.new_chat_action = QAction(self)
        self.new_chat_action.setShortcut(QKeySequence.StandardKey.New)
        self.settings_action = QAction(self)
        self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.quit_action = QAction(self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.file_menu.addActions([self.new_chat_action, self.settings_action])
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.edit_menu = bar.addMenu("")
        # Ctrl+Z reaches this action only when the composer lets it (TreeActions)
        self.undo_turn_action = QAction(self)
        self.undo_turn_action.setObjectName("UndoTurnAction")
        self.undo_turn_action.setShortcut(QKeySequence.StandardKey.Undo)
        self.undo_turn_action.setEnabled(False)
        self.edit_menu.addAction(self.undo_turn_action)
        # undone turns stay in the trash: any of them can come back later, the
        # latest first (not only from the notice the undo showed)
        self.restore_turn_action = QAction(self)
        self.restore_turn_action.setObjectName("RestoreTurnAction")
        self.restore_turn_action.setShortcuts(QKeySequence.StandardKey.Redo)
        self.restore_turn_action.setEnabled(False)
        self.edit_menu.addAction(self.restore_turn_action)
        self.help_menu = bar.addMenu("")
        self.open_data_action = QAction(self)
        self.check_data_action = QAction(self)
        self.about_action = QAction(self)
        self.help_menu.addActions([self.open_data_action, self.check_data_action])
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.about_action)
        self.header.menu.addActions([self.new_chat_action, self.settings_action])
        self.header.menu.addSeparator()
        self.header.menu.addActions([self.undo_turn_action, self.restore_turn_action])
        self.header.menu.addSeparator()
        self.header.menu.addAction(self.open_data_action)

    def _connect(self) -> None:
        p = self.presenter
        self.new_chat_action.triggered.connect(p.new_chat)
        self.settings_action.triggered.connect(lambda: self.open_settings())
        self.quit_action.triggered.connect(self.close)
        self.open_data_action.triggered.connect(self._open_data_folder)
        self.about_action.triggered.connect(self._about)
        self.sidebar.thread_selected.connect(p.open_thread)
        self.sidebar.new_thread_requested.connect(p.new_chat)
        self.composer.send_requested.connect(self.composer_actions.send)
        self.composer.stop_requested.connect(p.stop)
        self.header.model_chosen.connect(p.choose_model)
        self.timeline.stop_thinking_requested.connect(p.stop_thinking)
        self._connect_tree()
        self.welcome.prompt_chosen.connect(self._use_prompt)
        self.empty_state.add_provider_requested.connect(lambda: self.open_settings(add=True))
        self.empty_state.add_ollama_requested.connect(self._add_ollama)
        p.view_changed.connect(self._show_view)
        p.notice.connect(self._show_notice)

    def _connect_tree(self) -> None:
        tree = self.tree
        self.timeline.retry_requested.connect(tree.retry)
        self.timeline.edit_submitted.connect(tree.edit)
        self.timeline.version_step_requested.connect(tree.switch_version)
        self.timeline.regenerate_requested.connect(tree.regenerate)
        self.undo_turn_action.triggered.connect(tree.undo_last_turn)
        self.restore_turn_action.triggered.connect(tree.restore_last_undone)
        self.check_data_action.triggered.connect(lambda: self.open_doctor())

    # ---- start-up ------------------------------------------------------------------
    async def start(self, thread_id: str | None = None) -> None:
        """Load what the window shows first (off the paint path, awaited by launch)."""
        await self.presenter.reload_models()
        await self.history_actions.start()  # collapsed groups, workspaces, grouping
        await self.outside_changes.start()  # what the CLI writes meanwhile shows
        self.thread_model.refresh()
        if thread_id:  # as a click on it would: opened and highlighted
            self.history_actions.open_thread(thread_id)
            task = self.tasks.get("load-thread")
            if task is not None:
                await task
        else:
            self.presenter.new_chat()
        await self.thread_model.wait_idle()
        self.tasks.start(self.kb_actions.reload_bases())  # the header's picker, after the frame

    # ---- behaviour ---------------------------------------------------------------------
    def open_settings(self, *, add: bool = False, tab: str | None = None) -> None:
        from ..dialogs.settings_dialog import SettingsDialog

        dialog = SettingsDialog(
            self.services.providers,
            self.services.settings,
            self,
            data_dir=self.services.data_dir,
            data_folder=self.services.data_folder,
        )
        if add:
            from ...services.ollama_host import ollama_url

            dialog.start_add_provider(kind="ollama", name="Ollama", base_url=ollama_url())
        if tab is not None:
            dialog.show_tab(tab)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def _on_setting_stored(self, key: str, value: object) -> None:
        """Appearance applied as soon as it is stored (Settings → Appearance)."""
        if not key.startswith("ui."):
            return
        from ..dialogs.appearance_tab import LANGUAGE_KEY, THEME_KEY, THINKING_KEY

        if key == THEME_KEY:
            self.theme_requested.emit(str(value))
        elif key == LANGUAGE_KEY:
            self.language_requested.emit(str(value))
        elif key == THINKING_KEY:
            self.timeline.set_thinking_display(str(value))

    def _on_providers_changed(self) -> None:
        if shiboken6.isValid(self) and not self.tasks.closed:
            self.tasks.start(self.presenter.reload_models())

    def _add_ollama(self) -> None:
        from ...services.ollama_host import ollama_url

        async def add() -> None:
            providers = self.services.providers
            name = await providers.ollama_provider(ollama_url())
            models = await providers.fetch_models(name)
            if models:
                self.presenter.choose_model(name, models[0].name)
            await self.presenter.reload_models()

        self.tasks.start(add())

    def open_doctor(self) -> None:
        """Help → Check data (the checks of ``mira-desktop doctor``)."""
        from ..dialogs.doctor_dialog import DoctorDialog

        current = self.doctor_dialog
        if current is not None and shiboken6.isValid(current) and current.isVisible():
            current.raise_()
            current.activateWindow()
            return
        dialog = DoctorDialog(self.services.doctor, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.doctor_dialog = dialog
        dialog.open()

    def _after_repair(self) -> None:
        self.thread_model.refresh()
        self.presenter.reload()

    def _use_prompt(self, text: str) -> None:
        self.composer.set_text(text)
        self.composer.focus_input()

    def _show_view(self, name: str) -> None:
        self.stack.setCurrentIndex(VIEWS.index(name))

    def look_for_ollama(self) -> None:
        """PRODUCT §12, Ollama auto-detected: when no model server is set up
        (the empty state shows), look for it without waiting for a click —
        once per launch (``ui/launch.py``, after the first frames: the probe
        loads the HTTP stack)."""
        if self.stack.currentWidget() is self.empty_state and not self._ollama_looked_for:
            self._ollama_looked_for = True
            self.tasks.start(self.empty_state.run_detection(), key="detect-ollama")

    def _show_notice(self, text: str) -> None:
        self.notice_bar.show_notice(text)

    def _on_task_error(self, exc: BaseException) -> None:
        self._show_notice(error_line(exc))

    def _open_data_folder(self) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.services.data_dir)))

    def _about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.about(
            self,
            self.tr("About Mira Desktop"),
            self.tr(
                "Mira Desktop {version}\nA local-first AI chat app.\nData folder: {path}"
            ).format(version=__version__, path=self.services.data_dir),
        )

    # ---- Qt overrides -----------------------------------------------------------------
    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Mira Desktop"))
        self.file_menu.setTitle(self.tr("&File"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.undo_turn_action.setText(self.tr("Undo last turn"))
        self.undo_turn_action.setToolTip(
            self.tr("Move the last question and its answer to the trash (restorable)")
        )
        self.restore_turn_action.setText(self.tr("Restore undone turn"))
        self.restore_turn_action.setToolTip(
            self.tr("Bring back the turn undone last in this chat (again for the one before)")
        )
        self.check_data_action.setText(self.tr("Check data…"))
        self.new_chat_action.setText(self.tr("New chat"))
        self.settings_action.setText(self.tr("Settings…"))
        self.quit_action.setText(self.tr("Quit"))
        self.open_data_action.setText(self.tr("Open data folder"))
        self.about_action.setText(self.tr("About Mira Desktop"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._close_without_asking and not (
            self._may_lose_unsaved_answers() and self.dictation_actions.may_close()
        ):
            event.ignore()
            return
        self.dictation_actions.shut_down()
        self.state.save()
        self.listeners.stop()
        super().closeEvent(event)

    def close_without_asking(self) -> None:
        """Close as the system asks (a signal, the session ending): no question."""
        self._close_without_asking = True
        self.close()

    def _may_lose_unsaved_answers(self) -> bool:
        """True when no answer waits to be saved, or the user lets them go."""
        count = self.chat.unsaved_count()
        if not count:
            return True
        from PySide6.QtWidgets import QMessageBox  # its type and enums: on first use

        text = self.tr(
            "{n} answer(s) could not be saved because the disk was full. To keep them,"
            " free some space and open their chats before quitting.\n\n"
            "Quit anyway and lose them?"
        ).format(n=count)
        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        answer = QMessageBox.question(
            self, self.tr("Answers not saved"), text, buttons, QMessageBox.StandardButton.No
        )
        return answer == QMessageBox.StandardButton.Yes
