"""``TreeActions``: the conversation tree of the shown thread (PRODUCT.md §5) —
Edit → branch, the "‹ k/n ›" version switcher, Regenerate with its presets
(and Retry of a failed or stopped answer), Undo last turn with Restore, and
"Branch into a new chat" in an answer's ⋯ menu (the branch down to it becomes
a conversation of its own, opened at once; this one stays as it is).

It calls ``ChatService`` through the chat controller (runs that stream a new
version) and ``ConversationService`` through the task runner (switching and
undo, off the Qt thread), and draws the start of a new-version run: the branch
down to the edited message's parent or to the regenerated answer's question,
then the new version numbered "n+1/n+1". Everything here works only while the
thread is saved, not in the trash and not answering (:meth:`can_act`).

Undo's Ctrl+Z belongs to the composer while the composer has text or its own
undo history: :class:`_UndoKeyGuard` lets the shortcut through only when the
composer is empty and has nothing to undo."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QPlainTextEdit

from ...core.models import Message, MessageStatus, Reasoning
from .conversation import VERSION_KINDS
from .window_actions import WindowActions

if TYPE_CHECKING:
    from PySide6.QtWidgets import QInputDialog, QMenu

    from ...bootstrap import Services
    from ...core.events import RunStarted
    from ..controllers.chat_controller import ChatController, LiveRun
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)


class _UndoKeyGuard(QObject):
    """Event filter of the composer's editor: an empty editor with no undo (or
    redo) history does not claim Ctrl+Z (Ctrl+Shift+Z / Ctrl+Y), so the
    window's "Undo last turn" ("Restore undone turn") gets it."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(watched, QPlainTextEdit):
            assert isinstance(event, QKeyEvent)
            document = watched.document()
            if watched.toPlainText():
                return False
            if (
                event.matches(QKeySequence.StandardKey.Undo) and not document.isUndoAvailable()
            ) or (event.matches(QKeySequence.StandardKey.Redo) and not document.isRedoAvailable()):
                event.ignore()
                return True
        return False


class TreeActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        chat: ChatController,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._chat = chat
        self.guidance_dialog: QInputDialog | None = None
        self._guard = _UndoKeyGuard(self)
        window.composer.editor.installEventFilter(self._guard)
        window.composer.editor.textChanged.connect(self.refresh)
        presenter.state_changed.connect(self.refresh)
        chat.run_started.connect(self._on_run_started)
        chat.run_finished.connect(self._on_run_finished)
        window.timeline.message_menu_requested.connect(self._fill_message_menu)

    # ---- state -----------------------------------------------------------------
    def can_act(self) -> bool:
        """The shown thread is saved, writable (not in the trash) and idle."""
        p, thread = self._p, self._p.current_thread
        return (
            not p.is_draft
            and thread is not None
            and thread.id == p.key
            and thread.deleted_at is None
            and not self._chat.is_running(p.key)
        )

    def why_not(self) -> str:
        """Why :meth:`can_act` is False, in words for the notice bar."""
        p, thread = self._p, self._p.current_thread
        if p.is_draft or thread is None or thread.id != p.key:
            return self.tr("This chat is not saved yet.")
        if thread.deleted_at is not None:
            return self.tr("This chat is in the trash: restore it first.")
        return self.tr("This chat is still answering: wait for it or stop it first.")

    def refresh(self) -> None:
        """Bring the timeline's actions and the Undo item in line with the state."""
        can = self.can_act()
        self._w.timeline.set_actions_enabled(can)
        composer_empty = not self._w.composer.text().strip()
        has_turn = self._w.timeline.message_count() > 0
        self._w.undo_turn_action.setEnabled(can and composer_empty and has_turn)
        self._w.restore_turn_action.setEnabled(can and composer_empty)

    # ---- edit, regenerate, retry ---------------------------------------------------
    def edit(self, message_id: str, text: str) -> None:
        """Save an edited user message as a new version and answer it."""
        if not self.can_act() or not text.strip():
            return
        provider, model = self._p.choice or (None, None)
        self._p.notice.emit("")
        self._chat.edit(self._p.key, self._p.key, message_id, text, provider, model)

    def regenerate(self, message_id: str, preset: str) -> None:
        """The Regenerate menu: a preset, "custom" (asks for the guidance), or
        "think" (a retry with reasoning high, the same model)."""
        if preset == "custom":
            self._ask_guidance(message_id)
        elif preset == "think":
            self._regenerate(message_id, "retry", reasoning=Reasoning.HIGH)
        else:
            self._regenerate(message_id, preset)

    def retry(self, message_id: str) -> None:
        """Retry of a failed or stopped answer: a new version with the thread's
        current model (no tier escalation)."""
        provider, model = self._p.choice or (None, None)
        self._regenerate(message_id, "retry", provider=provider, model=model)

    def _regenerate(
        self,
        message_id: str,
        preset: str,
        guidance: str | None = None,
        *,
        provider: str | None = None,
        model: str | None = None,
        reasoning: Reasoning | None = None,
    ) -> None:
        if not self.can_act():  # the buttons are disabled then; a click may beat them
            self._p.notice.emit(self.why_not())
            return
        from ...services.regenerate import RegenerateRequest  # the chat stack: on first use

        key = self._p.key
        request = RegenerateRequest(
            key, message_id, preset, guidance, provider, model, reasoning=reasoning
        )
        self._p.notice.emit("")
        self._chat.regenerate(key, request)

    def _ask_guidance(self, message_id: str) -> None:
        """A small multi-line input; opened, never ``exec()``-ed (qasync)."""
        from PySide6.QtWidgets import QInputDialog

        dialog = QInputDialog(self._w)
        dialog.setObjectName("GuidanceDialog")
        dialog.setWindowTitle(self.tr("Custom guidance"))
        dialog.setLabelText(self.tr("How should the new answer differ?"))
        dialog.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
        dialog.setOkButtonText(self.tr("Regenerate"))
        dialog.setCancelButtonText(self.tr("Cancel"))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        key = self._p.key

        def chosen(text: str) -> None:
            if text.strip() and self._p.key == key:
                self._regenerate(message_id, "custom", text.strip())

        dialog.textValueSelected.connect(chosen)
        self.guidance_dialog = dialog
        dialog.open()

    # ---- versions ----------------------------------------------------------------
    def switch_version(self, message_id: str, step: int) -> None:
        """‹ / ›: show the neighbouring version of a message and its branch.
        Switches run one after another, so a double click moves twice."""
        shown = self._w.timeline.message_ids()
        if not self.can_act() or message_id not in shown:
            return
        previous = self._tasks.get("switch-version")
        work = self._switch(self._p.key, shown.index(message_id), step, previous)
        self._tasks.start(work, key="switch-version")

    async def _switch(
        self, thread_id: str, depth: int, step: int, previous: asyncio.Task[Any] | None
    ) -> None:
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        shown = self._w.timeline.message_ids()
        if self._p.key != thread_id or depth >= len(shown):
            return
        message_id = shown[depth]  # the version shown now at that place
        branch = await self._services.conversation.switch_sibling(thread_id, message_id, step)
        if self._p.key != thread_id:
            return
        target = branch[depth].id if depth < len(branch) else message_id
        self._w.timeline.show_branch(branch, message_id, target)
        self.refresh()
        log.debug("thread %s: switched %s to version %s", thread_id, message_id, target)

    async def _refresh_versions(self, thread_id: str) -> None:
        """After a run: take the version numbers of the shown messages from the
        database (a new version changes its siblings' "k/n")."""
        branch = await self._services.conversation.active_branch(thread_id)
        if self._p.key != thread_id or self._chat.is_running(thread_id):
            return
        timeline = self._w.timeline
        # compared in a worker thread: a long thread's messages one by one
        # took ~5 ms of the window's thread after every answer
        changed = await asyncio.to_thread(_changed_versions, branch, timeline.shown_messages())
        if self._p.key != thread_id or self._chat.is_running(thread_id):
            return
        for message_id, versions in changed:
            shown = timeline.message(message_id)
            if shown is not None and (shown.sibling_index, shown.sibling_count) != versions:
                timeline.upsert_message(
                    replace(shown, sibling_index=versions[0], sibling_count=versions[1])
                )

    # ---- branch into a new chat ----------------------------------------------------
    def _fill_message_menu(self, message_id: str, menu: QMenu) -> None:
        message = self._w.timeline.message(message_id)
        if message is None or message.status is MessageStatus.STREAMING:
            return
        action = menu.addAction(self.tr("Branch into a new chat"))
        action.setObjectName("message:branch")
        action.setEnabled(self.can_act())
        action.triggered.connect(lambda: self.branch_into_new_chat(message_id))

    def branch_into_new_chat(self, message_id: str) -> None:
        """Copy the branch down to ``message_id`` into a new conversation and open it."""
        running = self._tasks.get("branch")
        if not self.can_act() or (running is not None and not running.done()):
            return  # one copy at a time: a second click while copying makes none
        thread = self._p.current_thread
        title = (thread.title if thread else "") or self.tr("New chat")
        copy_title = self.tr("Branch · {0}").format(title)
        self._tasks.start(self._branch(self._p.key, message_id, copy_title), key="branch")

    async def _branch(self, thread_id: str, message_id: str, title: str) -> None:
        conversation = self._services.conversation
        copy = await conversation.branch_into_new_thread(thread_id, message_id, title)
        self._w.thread_model.refresh()
        self._w.history_actions.open_thread(copy.id)
        self._w.notice_bar.show_notice(self.tr("Branched into a new chat: {0}").format(copy.title))

    # ---- undo --------------------------------------------------------------------
    def undo_last_turn(self) -> None:
        if self.can_act() and self._w.timeline.message_count():
            self._tasks.start(self._undo(self._p.key), key="undo-turn")

    async def _undo(self, thread_id: str) -> None:
        undone = await self._services.conversation.undo_last_turn(thread_id)
        if self._p.key == thread_id:
            self._w.timeline.set_messages(undone.branch)
            first = undone.message_ids[0] if undone.message_ids else None
            self._w.notice_bar.show_notice(
                self.tr("Last turn moved to the trash."),
                action=self.tr("Restore"),
                on_action=lambda: self.restore_turn(thread_id, first),
            )
            self.refresh()
        await self._p.refresh_sidebar_row(thread_id)

    def restore_last_undone(self) -> None:
        """The turn undone last in the shown thread (one without says so)."""
        if self.can_act():
            self._p.notice.emit("")
            self.restore_turn(self._p.key, None)

    def restore_turn(self, thread_id: str, message_id: str | None) -> None:
        self._tasks.start(self._restore(thread_id, message_id), key="restore-turn")

    async def _restore(self, thread_id: str, message_id: str | None) -> None:
        branch = await self._services.conversation.restore_turn(thread_id, message_id)
        if self._p.key == thread_id:
            self._w.timeline.set_messages(branch)
            self.refresh()
        await self._p.refresh_sidebar_row(thread_id)

    # ---- runs of new versions ----------------------------------------------------
    def _on_run_started(self, key: str, event: RunStarted) -> None:
        live = self._chat.live(key)
        if key != self._p.key or event.kind not in VERSION_KINDS or live is None:
            return
        self._show_new_version(event, live)

    def _show_new_version(self, event: RunStarted, live: LiveRun) -> None:
        """The branch down to where the new version hangs, then the new version
        (numbered last of its siblings) and the answer placeholder."""
        timeline = self._w.timeline
        user = event.user_message
        assistant = live.assistant
        assert assistant is not None
        if event.kind == "edit":
            edited = timeline.message(str((user.data or {}).get("edited_from", "")))
            user = _as_new_version_of(user, edited)
            shown = [*timeline.messages_through(user.parent_id), user]
        else:  # regenerate: the question stays, its answer gets a sibling
            ids = timeline.message_ids()
            after = ids.index(user.id) + 1 if user.id in ids else len(ids)
            original = timeline.message(ids[after]) if after < len(ids) else None
            assistant = _as_new_version_of(assistant, original)
            shown = timeline.messages_through(user.id)
        live.user_message, live.assistant = user, assistant
        timeline.set_messages([*shown, assistant])

    def _on_run_finished(self, key: str, _event: object) -> None:
        if key == self._p.key and not self._p.is_draft:
            self._tasks.start(self._refresh_versions(key))


def _as_new_version_of(message: Message, sibling: Message | None) -> Message:
    if sibling is None:
        return message
    count = sibling.sibling_count + 1
    return replace(message, sibling_index=count - 1, sibling_count=count)


def _changed_versions(
    branch: Sequence[Message], shown: Sequence[Message]
) -> list[tuple[str, tuple[int, int]]]:
    """The shown messages whose version ("k/n") the branch read from the
    database gives otherwise: (id, (sibling index, sibling count))."""
    versions = {m.id: (m.sibling_index, m.sibling_count) for m in shown}
    return [
        (m.id, (m.sibling_index, m.sibling_count))
        for m in branch
        if versions.get(m.id, (m.sibling_index, m.sibling_count))
        != (m.sibling_index, m.sibling_count)
    ]
