"""``AgentService``: the agent's side of a chat (PRODUCT.md §11) — a thread
with its agent switch on answers through an :class:`~.runner.AgentLoop` in
its workspace's folder; the approval mode and developer mode are settings;
the files an answer changed can be rolled back, per call or all at once,
unless they changed since (then nothing is written and the files are named)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.agent import (
    DEVELOPER_KEY,
    MODE_KEY,
    PLAN_MODE,
    SEARCH_URL_KEY,
    AgentMode,
    FileChange,
    ToolCard,
)
from ...core.errors import ConfigError, NotFoundError, worded
from ...core.models import Message
from ...core.ports import WebSearcher
from .knowledge import KnowledgeSearch
from .rollback import conflicts, rollback
from .room import budget_for
from .runner import AgentLoop
from .scope import WorkspaceScope
from .toolbox import Toolbox
from .web_search import WebSearch, check_search_url
from .workspace_notes import expand_skill, load_skill, memory, skill_call

if TYPE_CHECKING:
    from ...storage.store import Store
    from ..kb.rag import RagService
    from ..run_support import RunPlan

log = logging.getLogger(__name__)

NO_FOLDER = "The agent works in a project folder, and this workspace has none."
NO_FOLDER_HINT = (
    "Choose a folder for the workspace, bind a knowledge base to the chat,"
    " or turn the agent off for this chat."
)
NOTHING_TO_ROLL_BACK = "There is nothing to roll back here."


SearcherFactory = Callable[[str], WebSearcher]


class AgentService:
    def __init__(
        self,
        store: Store,
        searcher: SearcherFactory | None = None,
        rag: RagService | None = None,
    ) -> None:
        """``searcher``: makes the web search endpoint of an address (without
        it, ``web_search`` is never offered); ``rag``: searches knowledge
        bases (without it, a thread's base is not offered as a tool)."""
        self._store = store
        self._searcher = searcher
        self._rag = rag

    async def mode(self) -> AgentMode:
        """Manual (asks before changes; the default) or auto."""
        return AgentMode.parse(await self._store.get_setting(MODE_KEY))

    async def set_mode(self, mode: AgentMode) -> None:
        await self._store.set_setting(MODE_KEY, str(mode))

    async def developer_mode(self) -> bool:
        """With it on the agent may write anywhere in ``.agent/``."""
        return bool(await self._store.get_setting(DEVELOPER_KEY))

    async def set_developer_mode(self, enabled: bool) -> None:
        await self._store.set_setting(DEVELOPER_KEY, bool(enabled))

    async def search_url(self) -> str | None:
        """The web search endpoint (``web_search`` is offered only with one)."""
        value = await self._store.get_setting(SEARCH_URL_KEY)
        return value if isinstance(value, str) and value else None

    async def set_search_url(self, url: str | None) -> str | None:
        """Set (checked: http(s) with ``{query}``) or clear the endpoint."""
        checked = check_search_url(url) if url else None
        await self._store.set_setting(SEARCH_URL_KEY, checked)
        return checked

    async def folder(self, workspace_id: str) -> Path:
        """The project folder of a workspace (ConfigError without one)."""
        root = await self._root(workspace_id)
        if root is None:
            raise ConfigError(NO_FOLDER, hint=NO_FOLDER_HINT)
        return root

    async def _root(self, workspace_id: str) -> Path | None:
        """The workspace's folder, None when it has none; ConfigError when
        the folder it names is gone."""
        workspaces = await self._store.list_workspaces()
        workspace = next((w for w in workspaces if w.id == workspace_id), None)
        if workspace is None:
            raise NotFoundError(f"No workspace with id {workspace_id}.")
        if not workspace.root_dir:
            return None
        root = Path(workspace.root_dir)
        if not await asyncio.to_thread(root.is_dir):
            raise worded(
                ConfigError,
                "The workspace's folder {root} is not there any more.",
                {"root": root},
                hint=NO_FOLDER_HINT,
            )
        return root

    async def equip(self, plan: RunPlan, mode: AgentMode | None = None) -> RunPlan:
        """``plan`` answered by the agent in its workspace's folder. A
        workspace without a folder is refused, unless the agent has a
        knowledge base or the web to search: then it works with those alone."""
        goal = plan.user_message.text
        url = await self.search_url() if self._searcher is not None else None
        web = self._web(url)
        knowledge = await self._knowledge(plan.thread.kb_id)
        root = await self._root(plan.thread.workspace_id)
        if root is None and ((web is None and knowledge is None) or skill_call(goal) is not None):
            raise ConfigError(NO_FOLDER, hint=NO_FOLDER_HINT)
        scope = None
        memory, question = "", None
        if root is not None:
            scope = WorkspaceScope(root, developer_mode=await self.developer_mode())
            memory, question = await asyncio.to_thread(_notes, scope.root, goal)

        async def record(card: ToolCard, changes: tuple[FileChange, ...]) -> None:
            assert scope is not None  # only file tools change files
            await self._store.record_agent_changes(
                thread_id=plan.thread.id,
                message_id=plan.assistant.id,
                goal=goal,
                root=str(scope.root),
                call_id=card.call_id,
                changes=changes,
            )

        model = await self._store.get_model(plan.provider_name, plan.request.model)
        planning = plan.thread.mode == PLAN_MODE
        loop = AgentLoop(
            plan.provider,
            Toolbox(scope, web, read_only=planning, knowledge=knowledge),
            thread_id=plan.thread.id,
            message_id=plan.assistant.id,
            mode=mode or await self.mode(),
            on_changes=record,
            memory=memory,
            question=question,
            planning=planning,
            room=budget_for(model.context_window if model else None),
        )
        return replace(plan, provider=loop, agent=loop)

    async def _knowledge(self, kb_id: str | None) -> KnowledgeSearch | None:
        """The retrieval tool of the thread's knowledge base (PRODUCT.md §3
        path 3); None without one, or when it is gone."""
        if kb_id is None or self._rag is None:
            return None
        try:
            kb = await self._rag.knowledge_base(kb_id)
        except NotFoundError:
            log.info("the thread's knowledge base %s is gone: not offered", kb_id)
            return None
        return KnowledgeSearch(self._rag, kb.id, kb.name)

    def _web(self, url: str | None) -> WebSearch | None:
        if url is None or self._searcher is None:
            return None
        return WebSearch(self._searcher(url))

    async def rollback(
        self, message_id: str, call_id: str | None = None
    ) -> tuple[Message, list[str]]:
        """Put back the files the answer ``message_id`` changed — the call
        ``call_id``'s, or every call's not rolled back yet. Raises
        ``RollbackConflict`` (nothing written) when a file changed since.
        Returns the answer (its cards marked) and the files put back."""
        scope, calls, changes = await self._pending(message_id, call_id)
        restored = await asyncio.to_thread(rollback, scope, changes)
        message = await self._store.mark_rolled_back(message_id, [c["call_id"] for c in calls])
        log.info("rolled back %d file(s) of %s", len(restored), message_id)
        return message, restored

    async def conflicts(self, message_id: str, call_id: str | None = None) -> list[str]:
        """The files a rollback would refuse over (they changed since)."""
        scope, _, changes = await self._pending(message_id, call_id)
        return await asyncio.to_thread(conflicts, scope, changes)

    async def _pending(
        self, message_id: str, call_id: str | None
    ) -> tuple[WorkspaceScope, list[dict[str, Any]], list[FileChange]]:
        trace = await self._store.agent_trace(message_id)
        calls = [
            c
            for c in (trace or {}).get("calls", [])
            if not c.get("rolled_back") and (call_id is None or c.get("call_id") == call_id)
        ]
        if trace is None or not calls:
            raise ConfigError(NOTHING_TO_ROLL_BACK)
        changes = [FileChange.from_dict(d) for c in calls for d in c.get("changes", [])]
        return WorkspaceScope(trace["root"], developer_mode=True), calls, changes


def _notes(root: Path, message: str) -> tuple[str, str | None]:
    """The workspace's memory, and the message with its skill expanded (None
    without ``/skill:``); ToolRefused for a skill that is not there."""
    called = skill_call(message)
    if called is None:
        return memory(root), None
    name, rest = called
    return memory(root), expand_skill(load_skill(root, name), rest)
