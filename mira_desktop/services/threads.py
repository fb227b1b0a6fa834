"""Reading and changing threads: the sidebar's pages, a thread's active branch,
renaming, the thread's model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.models import Message, Thread, Workspace
from .history import clean_title

if TYPE_CHECKING:
    from ..storage.store import Store


class ThreadService:
    def __init__(self, store: Store) -> None:
        self._store = store

    async def count_threads(self) -> int:
        return await self._store.count_threads()

    async def list_threads(self, offset: int = 0, limit: int = 100) -> list[Thread]:
        return await self._store.list_threads(offset, limit)

    async def get_thread(self, thread_id: str) -> Thread:
        return await self._store.get_thread(thread_id)

    async def find_thread(self, thread_id: str) -> Thread | None:
        return await self._store.find_thread(thread_id)

    async def get_active_messages(self, thread_id: str) -> list[Message]:
        return await self._store.active_branch(thread_id)

    async def rename(self, thread_id: str, title: str) -> Thread:
        title = clean_title(title)  # whole, up to the cap
        # a title the user chose: automatic titles (services/titles.py) keep off it
        return await self._store.update_thread(thread_id, title=title, title_source="manual")

    async def set_model(self, thread_id: str, provider_id: str, model: str) -> Thread:
        thread = await self._store.get_thread(thread_id)
        return await self._store.update_thread(
            thread_id, provider_id=provider_id, model=model, updated_at=thread.updated_at
        )

    async def set_role(self, thread_id: str, role_id: str | None) -> Thread:
        """Bind a role to the thread (``None`` unbinds it). Its prompt and
        parameters apply from the next request on, on every path."""
        if role_id is not None:
            await self._store.get_role(role_id)  # NotFoundError for an unknown role
        thread = await self._store.get_thread(thread_id)
        return await self._store.update_thread(
            thread_id, role_id=role_id, updated_at=thread.updated_at
        )

    async def set_tts(self, thread_id: str, enabled: bool) -> Thread:
        """The thread's TTS switch (PRODUCT.md §10): with it on, each completed
        answer from the next one on is read aloud (``services/speech.py``)."""
        thread = await self._store.get_thread(thread_id)
        if thread.tts_enabled == enabled:
            return thread
        return await self._store.update_thread(
            thread_id, tts_enabled=enabled, updated_at=thread.updated_at
        )

    async def set_image(self, thread_id: str, enabled: bool) -> Thread:
        """The thread's image switch (PRODUCT.md §10): with it on, a role and
        no knowledge base, each completed answer is illustrated
        (``services/illustration.py``)."""
        thread = await self._store.get_thread(thread_id)
        if thread.image_enabled == enabled:
            return thread
        return await self._store.update_thread(
            thread_id, image_enabled=enabled, updated_at=thread.updated_at
        )

    async def set_agent(self, thread_id: str, enabled: bool) -> Thread:
        """The thread's agent switch (PRODUCT.md §11): with it on, the next
        answers come from the agent in the workspace's folder
        (``services/agent``); a bound knowledge base waits meanwhile."""
        thread = await self._store.get_thread(thread_id)
        if thread.agent_enabled == enabled:
            return thread
        return await self._store.update_thread(
            thread_id, agent_enabled=enabled, updated_at=thread.updated_at
        )

    async def set_plan_mode(self, thread_id: str, enabled: bool) -> Thread:
        """The thread's plan mode (PRODUCT.md §11): the agent looks around and
        answers with a proposed plan, changing nothing, until it is off."""
        from ..core.agent import CHAT_MODE, PLAN_MODE

        thread = await self._store.get_thread(thread_id)
        mode = PLAN_MODE if enabled else CHAT_MODE
        if thread.mode == mode:
            return thread
        return await self._store.update_thread(thread_id, mode=mode, updated_at=thread.updated_at)

    async def default_workspace(self) -> Workspace:
        return await self._store.default_workspace()
