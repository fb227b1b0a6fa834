"""``ConversationService``: the conversation tree of a thread as the user moves
through it (PRODUCT.md §5) — the versions of a message ("‹ k/n ›"), switching
the active branch, showing another branch, undoing the last turn and restoring
it. Producing new versions (edit, regenerate) streams an answer and belongs to
``ChatService``; this service never calls a model.

Switching and undo are refused while the thread is answering: the running
answer owns the end of the active branch until it is saved.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import ConfigError
from ..core.models import Message, Thread

if TYPE_CHECKING:
    from ..storage.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TurnUndone:
    """What "Undo last turn" did: the trashed message ids (user message first),
    the new active leaf (None when the thread's branch is now empty) and the
    new active branch, ready to show."""

    thread_id: str
    message_ids: tuple[str, ...]
    active_leaf_id: str | None
    branch: tuple[Message, ...]


def _never_busy(thread_id: str) -> bool:
    return False


class ConversationService:
    def __init__(self, store: Store, is_busy: Callable[[str], bool] = _never_busy) -> None:
        """``is_busy(thread_id)`` says whether an answer is streaming in a thread
        (``ChatService.is_running``)."""
        self._store = store
        self._is_busy = is_busy

    async def active_branch(self, thread_id: str) -> list[Message]:
        """The messages the thread shows and sends: root → active leaf."""
        return await self._store.active_branch(thread_id)

    async def branch_through(self, thread_id: str, message_id: str) -> list[Message]:
        """Another branch, without switching to it: root → message → its most
        recently created descendants."""
        return await self._store.branch_through(thread_id, message_id)

    async def siblings(self, thread_id: str, message_id: str) -> list[Message]:
        """The versions of a message (itself included), oldest first; the
        message's ``sibling_index``/``sibling_count`` index into this list."""
        return await self._store.siblings(thread_id, message_id)

    async def switch_branch(self, thread_id: str, message_id: str) -> list[Message]:
        """Make the branch through ``message_id`` active (persisted) and return it."""
        self._refuse_if_busy(thread_id)
        leaf = await self._store.switch_branch(thread_id, message_id)
        log.debug("thread %s now shows the branch ending at %s", thread_id, leaf)
        return await self._store.active_branch(thread_id)

    async def switch_sibling(self, thread_id: str, message_id: str, step: int) -> list[Message]:
        """The "‹" (``step=-1``) and "›" (``step=+1``) buttons of a message with
        versions: switch to the neighbouring version (clamped at the ends) and
        return the new active branch."""
        versions = await self._store.siblings(thread_id, message_id)
        index = next(i for i, m in enumerate(versions) if m.id == message_id)
        target = versions[max(0, min(len(versions) - 1, index + step))]
        return await self.switch_branch(thread_id, target.id)

    async def undo_last_turn(self, thread_id: str) -> TurnUndone:
        """Move the last user message and its answer to the trash; the active
        branch ends at the answer before it. Reversible with :meth:`restore_turn`."""
        self._refuse_if_busy(thread_id)
        trashed, leaf = await self._store.undo_turn(thread_id)
        branch = await self._store.active_branch(thread_id)
        return TurnUndone(thread_id, tuple(trashed), leaf, tuple(branch))

    async def restore_turn(self, thread_id: str, message_id: str | None = None) -> list[Message]:
        """Bring back an undone turn — the one holding ``message_id``, else the
        most recently undone — and make its branch active; returns that branch."""
        self._refuse_if_busy(thread_id)
        await self._store.restore_turn(thread_id, message_id)
        return await self._store.active_branch(thread_id)

    async def branch_into_new_thread(
        self, thread_id: str, message_id: str, title: str | None = None
    ) -> Thread:
        """A new thread holding this branch from its start down to
        ``message_id`` (PRODUCT.md §5), titled ``title`` (default: "Branch · "
        and the thread's title, seen first in a narrow list); the thread itself is left as
        it is. Refused while ``message_id`` or a message before it is still
        being written."""
        thread = await self._store.get_thread(thread_id)
        name = (title or "").strip() or f"Branch · {thread.title or 'New chat'}"
        copy_id = await self._store.copy_branch(thread_id, message_id, name)
        return await self._store.get_thread(copy_id)

    def _refuse_if_busy(self, thread_id: str) -> None:
        if self._is_busy(thread_id):
            raise ConfigError("This thread is still answering.", hint="Stop it first, then retry.")
