"""``ComposerActions``: what the composer's intents do beyond plain text
(PRODUCT.md §4, §7).

* Attachments: the chips (``AttachmentsController``), files dropped anywhere
  on the conversation area, the ``@`` search in the workspace's root folder
  and the ``/`` command menu with the root's ``.agent/skills/`` — offered
  only while the agent is on: a skill is instructions for the agent and its
  tools, which a plain chat model would only pretend to follow. A typed
  ``/skill:`` sent with the agent off is refused with a notice (the text
  stays in the composer) instead of going to the model raw.
* Sending: ``/compact [instructions]`` goes to the context actions instead of
  a chat turn; a send with images first asks ``ChatService.preflight`` and,
  when the model is not marked as able to see them, the confirm bar asks
  "Send anyway / Cancel" (never a silent drop). The draft's role rides along.
* The chips' journey: a send takes them out of the composer; when the run's
  user message is saved they belong to it; a run that ends before that (a
  welcome draft that failed or was stopped before the answer began) gives
  them back — to the composer, or to the next new chat when the user has
  moved on — together with the text the presenter restores."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.errors import MiraError
from ..composer.attachments_controller import AttachmentsController
from ..composer.command_popup import CommandController, is_skill_call, parse_compact
from ..composer.file_drop import FileDropFilter
from ..composer.mention_popup import MentionController
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ...core.context import SendWarning
    from ...services.attachments import PreparedAttachment
    from ..controllers.chat_controller import ChatController, LiveRun
    from ..controllers.tasks import TaskRunner
    from .context_actions import ContextActions
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

SKILLS_DIR = (".agent", "skills")
Files = tuple["PreparedAttachment", ...]


def skill_names(root: str) -> list[str]:
    """Folder names under ``<root>/.agent/skills`` (blocking: run in a thread)."""
    folder = Path(root).joinpath(*SKILLS_DIR)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


class ComposerActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        chat: ChatController,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
        context: ContextActions,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self._chat = chat
        self._context = context
        composer = window.composer
        attachments = services.deferred("attachments")  # built with the first file
        self.attachments = AttachmentsController(composer, attachments, tasks, self)
        self.mentions = MentionController(
            composer.editor, lambda: composer.mention_popup, self._search_files, tasks.start, self
        )
        self.commands = CommandController(
            composer.editor, lambda: composer.command_popup, self._list_skills, tasks.start, self
        )
        self._drops = FileDropFilter(self)
        self._drops.watch(window.stack)
        self._in_flight: list[tuple[LiveRun, Files]] = []
        self._stash: Files = ()
        self._pending: tuple[str, Files, str | None] | None = None
        self._root: str | None = None
        self._connect()

    def _connect(self) -> None:
        composer = self._w.composer
        self.mentions.picked.connect(self._attach_workspace_file)
        self._drops.files_dropped.connect(self.attachments.add_paths)
        self._drops.image_dropped.connect(self.attachments.add_image)
        composer.confirm_bar.accepted.connect(self._confirmed)
        composer.confirm_bar.rejected.connect(self._cancelled)
        self._chat.user_saved.connect(self._on_user_saved)
        self._chat.run_finished.connect(self._on_run_finished)
        self._p.current_changed.connect(self._on_current_changed)

    # ---- the workspace folder ----------------------------------------------------------
    async def workspace_root(self) -> str | None:
        """The root folder of the conversation's workspace (a draft: the sidebar's)."""
        thread = self._p.current_thread
        workspace_id = thread.workspace_id if thread is not None and not self._p.is_draft else None
        workspace_id = workspace_id or self._w.sidebar.workspace_id()
        workspaces = self._services.workspaces
        try:
            workspace = await (
                workspaces.get(workspace_id) if workspace_id else workspaces.default_workspace()
            )
        except MiraError:
            workspace = await workspaces.default_workspace()
        return workspace.root_dir or None

    async def _search_files(self, keyword: str) -> list[str] | None:
        root = await self.workspace_root()
        self._root = root
        if root is None:
            return None
        return await self._services.attachments.search_workspace_files(root, keyword, 20)

    async def _list_skills(self) -> list[str]:
        if not self._p.agent_on():
            return []  # skills are the agent's (see the module docstring)
        root = await self.workspace_root()
        return [] if root is None else await asyncio.to_thread(skill_names, root)

    def _attach_workspace_file(self, relative: str) -> None:
        if self._root is not None:
            self.attachments.add_workspace_file(self._root, relative)

    # ---- sending -----------------------------------------------------------------------
    def send(self, text: str) -> None:
        """The composer's ``send_requested``: a command, or a message with its files."""
        instructions = parse_compact(text)
        if instructions is not None and not self.attachments.prepared():
            self._context.compact(instructions or None, text)
            return
        if self._context.is_compacting(self._p.key):  # text and chips stay in the box
            self._p.notice.emit(self.tr("Wait until the context is compressed, then send."))
            return
        if is_skill_call(text) and not self._p.agent_on():  # the text stays in the box
            switch = self._w.agent_actions.agent_action.text()
            self._p.notice.emit(
                self.tr(
                    "Skills are used by the agent: turn on “{0}” in the ⋯ menu, then send."
                ).format(switch)
            )
            return
        files = self.attachments.take()
        self._w.composer.take_text(text)  # on its way, with its chips
        role_id = self._context.draft_role_id() if self._p.is_draft else None
        if any(f.is_image for f in files):
            self._tasks.start(self._check_then_send(text, files, role_id))
        else:
            self._send_now(text, files, role_id)

    async def _check_then_send(self, text: str, files: Files, role_id: str | None) -> None:
        from ...services.chat import SendRequest  # the chat stack: on first use

        provider, model = self._p.choice or (None, None)
        request = SendRequest(
            text=text,
            provider=provider,
            model=model,
            thread_id=None if self._p.is_draft else self._p.key,
            attachments=files,
        )
        key = self._p.key
        warnings = await self._services.chat.preflight(request)
        if key != self._p.key:  # the user moved on meanwhile: keep everything
            self._give_back(text, files)
            return
        if not warnings:
            self._send_now(text, files, role_id)
            return
        self._pending = (text, files, role_id)
        self._w.composer.confirm_bar.ask(self.describe(warnings, model or ""))

    def describe(self, warnings: list[SendWarning], model: str) -> str:
        lines = []
        for warning in warnings:
            if warning.code == "image_not_supported":
                lines.append(
                    self.tr(
                        "{model} is not marked as able to see images; {files} will not be "
                        "sent. (If it can, turn on Vision for it in Settings → Models.)"
                    ).format(model=model, files=", ".join(warning.names) or self.tr("the image"))
                )
            else:
                lines.append(warning.message)
        return "\n".join(lines)

    def _confirmed(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._send_now(*pending)

    def _cancelled(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._give_back(pending[0], pending[1])
            self._w.composer.focus_input()

    def _send_now(self, text: str, files: Files, role_id: str | None) -> None:
        key = self._p.key
        before = self._chat.live(key)
        self._p.send(text, attachments=files, role_id=role_id)
        live = self._chat.live(key)
        if files and live is not None and live is not before:
            self._in_flight.append((live, files))
        elif live is None or live is before:
            self._give_back(text, files)  # nothing was sent

    def _give_back(self, text: str, files: Files) -> None:
        self._w.composer.give_back(text)
        self.attachments.restore(files)

    # ---- the chips' journey ------------------------------------------------------------
    def _on_user_saved(self, _key: str, message: object) -> None:
        message_id = getattr(message, "id", None)
        self._in_flight = [
            (live, files)
            for live, files in self._in_flight
            if live.user_message is None or live.user_message.id != message_id
        ]

    def _on_run_finished(self, key: str, _event: object) -> None:
        keep: list[tuple[LiveRun, Files]] = []
        for live, files in self._in_flight:
            if live.key != key or not live.finished:
                keep.append((live, files))
            elif not live.user_saved:  # the message was never written: files come back
                if key == self._p.key:
                    self.attachments.restore(files)
                else:
                    self._stash = (*self._stash, *files)
        self._in_flight = keep

    def _on_current_changed(self, _key: str) -> None:
        if self._pending is not None:
            self._w.composer.confirm_bar.hide()
            self._cancelled()
        if self._stash and self._p.is_draft:
            stash, self._stash = self._stash, ()
            self.attachments.restore(stash)

    def in_flight(self) -> list[Files]:
        return [files for _, files in self._in_flight]
