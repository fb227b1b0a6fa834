"""``ContextStore``: the async face of ``context_repo`` (and of attachment
parts as the chat path reads them) for the services. It shares the one
``DatabaseWorker`` with :class:`~mira_desktop.storage.store.Store`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from typing import Any

from ..core.attachments import Attachment
from ..core.models import Message, Thread
from . import attachments_repo
from . import context_repo as context
from .branch_cache import BranchCache
from .worker import DatabaseWorker

log = logging.getLogger(__name__)

#: (pending id or None for a fresh reference, attachment)
PendingPart = tuple[str | None, Attachment]


class ContextStore:
    def __init__(self, worker: DatabaseWorker, branches: BranchCache | None = None) -> None:
        """``branches``: the store's kept branches, which the question joins
        (``BranchCache.appending``) instead of being read again whole."""
        self.worker = worker
        self._branches = branches or BranchCache()

    async def commit_draft(
        self,
        thread: Thread,
        user_message: Message,
        assistant_message: Message,
        owner: str,
        parts: Sequence[PendingPart] = (),
    ) -> None:
        await self.worker.run(
            context.commit_draft, thread, user_message, assistant_message, owner, list(parts)
        )

    async def add_user_message(self, message: Message, parts: Sequence[PendingPart] = ()) -> None:
        write = partial(context.add_user_message, message=message, parts=list(parts))
        await self.worker.run(self._branches.appending, message, write)

    async def attachments(self, message_ids: Sequence[str]) -> dict[str, list[Attachment]]:
        if not message_ids:
            return {}
        return await self.worker.run(attachments_repo.list_attachments, list(message_ids))

    async def get_summary(self, thread_id: str) -> tuple[str | None, str | None, int]:
        return await self.worker.run(context.get_summary, thread_id)

    async def set_summary(
        self,
        thread_id: str,
        text: str | None,
        updated_at: str | None = None,
        message_count: int | None = None,
    ) -> None:
        await self.worker.run(context.set_summary, thread_id, text, updated_at, message_count)

    async def peak_prompt_tokens(self, thread_id: str) -> int:
        return await self.worker.run(context.peak_prompt_tokens, thread_id)

    async def fingerprint(self, thread_id: str) -> tuple[Any, ...] | None:
        return await self.worker.run(context.fingerprint, thread_id)
