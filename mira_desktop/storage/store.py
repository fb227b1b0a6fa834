"""``Store``: the async face of storage that services use. Every method runs its
SQL on the database thread (``DatabaseWorker``) and returns core value types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.models import Message, ModelInfo, ProviderConfig, Role, Thread, Usage, Workspace
from . import branch_copy_repo
from . import messages_repo as messages
from . import providers_repo as providers
from . import roles_repo as roles
from . import threads_repo as threads
from . import tree_repo as tree
from .branch_cache import BranchCache
from .worker import DatabaseWorker

if TYPE_CHECKING:
    from ..core.agent import FileChange
    from ..core.answer_media import MadePart
    from .context_store import ContextStore
    from .doctor_repo import Finding
    from .salvage import SalvageReport


class Store:
    def __init__(self, worker: DatabaseWorker) -> None:
        self.worker = worker
        self._branches = BranchCache()

    @classmethod
    def open(cls, data_dir: Path) -> Store:
        return cls(DatabaseWorker(data_dir))

    @property
    def data_dir(self) -> Path:
        return self.worker.data_dir

    @cached_property
    def context(self) -> ContextStore:
        """The chat path's context queries (``context_store.py``) on this worker."""
        from .context_store import ContextStore  # the chat path's, not start-up's

        return ContextStore(self.worker, self._branches)

    def close(self) -> None:
        self.worker.close()

    # workspaces and threads
    async def default_workspace(self) -> Workspace:
        return await self.worker.run(threads.default_workspace)

    async def list_workspaces(self) -> list[Workspace]:
        return await self.worker.run(threads.list_workspaces)

    async def create_thread(self, thread: Thread) -> Thread:
        return await self.worker.run(threads.create_thread, thread)

    async def get_thread(self, thread_id: str) -> Thread:
        return await self.worker.run(threads.get_thread, thread_id)

    async def find_thread(self, thread_id: str) -> Thread | None:
        return await self.worker.run(threads.find_thread, thread_id)

    async def count_threads(self) -> int:
        return await self.worker.run(threads.count_threads)

    async def list_threads(self, offset: int = 0, limit: int = 100) -> list[Thread]:
        return await self.worker.run(threads.list_threads, offset, limit)

    async def update_thread(self, thread_id: str, **fields: Any) -> Thread:
        write = partial(threads.update_thread, thread_id=thread_id, **fields)
        if "active_leaf_id" in fields:  # another version of the conversation
            return await self.worker.run(write)
        return await self.worker.run(self._branches.beside, write)

    # messages
    async def get_message(self, message_id: str) -> Message:
        return await self.worker.run(messages.get_message, message_id)

    async def active_branch(self, thread_id: str) -> list[Message]:
        """The thread's active branch, root first (read again only after a
        write: ``branch_cache.py``)."""
        return await self.worker.run(self._branches.active_branch, thread_id)

    async def branch(self, leaf_id: str) -> list[Message]:
        return await self.worker.run(messages.branch, leaf_id)

    async def commit_draft(
        self, thread: Thread, user_message: Message, assistant_message: Message, owner: str
    ) -> None:
        await self.worker.run(messages.commit_draft, thread, user_message, assistant_message, owner)

    async def add_message(
        self, message: Message, *, owner: str | None = None, make_active: bool = True
    ) -> None:
        if not make_active:
            await self.worker.run(messages.add_message, message, owner=owner, make_active=False)
            return
        await self.worker.run(
            self._branches.appending,
            message,
            partial(messages.add_message, message=message, owner=owner),
        )

    async def update_stream(
        self,
        message_id: str,
        *,
        text: str,
        thinking: str,
        thinking_ms: int | None,
        status: str | None = None,
        usage: Usage | None = None,
        error: dict[str, Any] | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        write = partial(
            messages.update_stream,
            message_id=message_id,
            text=text,
            thinking=thinking,
            thinking_ms=thinking_ms,
            status=status,
            usage=usage,
            error=error,
            data=data,
        )
        await self.worker.run(self._branches.updating, message_id, write)

    async def record_agent_changes(
        self,
        *,
        thread_id: str,
        message_id: str,
        goal: str,
        root: str,
        call_id: str,
        changes: Sequence[FileChange],
    ) -> None:
        """The agent's journal (``agent_runs_repo``): files one call changed."""
        from . import agent_runs_repo  # only once an agent changes a file

        write = partial(
            agent_runs_repo.record_changes,
            thread_id=thread_id,
            message_id=message_id,
            goal=goal,
            root=root,
            call_id=call_id,
            changes=changes,
        )
        await self.worker.run(write)

    async def agent_trace(self, message_id: str) -> dict[str, Any] | None:
        from . import agent_runs_repo

        return await self.worker.run(agent_runs_repo.run_trace, message_id)

    async def mark_rolled_back(self, message_id: str, call_ids: Sequence[str]) -> Message:
        from . import agent_runs_repo

        write = partial(agent_runs_repo.mark_rolled_back, message_id=message_id, call_ids=call_ids)
        return await self.worker.run(self._branches.updating, message_id, write)

    async def save_answer_media(
        self, message_id: str, key: str, summary: dict[str, Any], part: MadePart | None
    ) -> Message:
        """Media made after an answer (its audio, its image) or why there is
        none: ``answer_media_repo``."""
        from . import answer_media_repo  # only once an answer is read aloud or illustrated

        return await self.worker.run(
            answer_media_repo.save_answer_media, message_id, key, summary, part
        )

    async def recover_streaming(self, owner_alive: Callable[[str | None], bool]) -> int:
        return await self.worker.run(messages.recover_streaming, owner_alive)

    # the conversation tree (tree_repo)
    async def live_path(self, thread_id: str, message_id: str) -> list[Message]:
        return await self.worker.run(tree.live_path, thread_id, message_id)

    async def branch_through(self, thread_id: str, message_id: str) -> list[Message]:
        return await self.worker.run(tree.branch_through, thread_id, message_id)

    async def siblings(self, thread_id: str, message_id: str) -> list[Message]:
        return await self.worker.run(tree.siblings, thread_id, message_id)

    async def switch_branch(self, thread_id: str, message_id: str) -> str:
        return await self.worker.run(tree.switch_branch, thread_id, message_id)

    async def copy_branch(self, thread_id: str, message_id: str, title: str) -> str:
        """A new thread holding root → ``message_id`` of ``thread_id``; its id."""
        return await self.worker.run(branch_copy_repo.copy_branch, thread_id, message_id, title)

    async def undo_turn(self, thread_id: str) -> tuple[list[str], str | None]:
        return await self.worker.run(tree.undo_turn, thread_id)

    async def restore_turn(
        self, thread_id: str, message_id: str | None = None
    ) -> tuple[list[str], str]:
        return await self.worker.run(tree.restore_turn, thread_id, message_id)

    # the data check (doctor_repo, imported by the first check)
    async def doctor_scan(self, created_before: str) -> list[Finding]:
        from . import doctor_repo as doctor

        return await self.worker.run(doctor.scan, created_before)

    async def quick_check(self) -> list[str]:
        """SQLite's ``quick_check`` (at most 20 lines; ``["ok"]`` when sound)."""
        from . import doctor_repo as doctor

        return await self.worker.run(doctor.quick_check)

    async def referenced_media(self) -> dict[str, str]:
        from . import doctor_repo as doctor

        return await self.worker.run(doctor.referenced_media)

    async def copy_database_to(self, target: Path) -> None:
        """A consistent copy of the live database (SQLite's backup) at ``target``."""
        from .database import copy_to

        await self.worker.run(copy_to, target)

    async def salvage(self) -> SalvageReport:
        """Replace a damaged database by what can be read of it."""
        return await self.worker.salvage()

    async def known_media(self, hashes: list[str]) -> set[str]:
        from . import doctor_repo as doctor

        return await self.worker.run(doctor.known_media, hashes)

    async def used_media(self, hashes: list[str]) -> set[str]:
        """Which of ``hashes`` attachments or chips refer to."""
        from . import doctor_repo as doctor

        return await self.worker.run(doctor.used_media, hashes)

    async def apply_repairs(self, repairs: dict[str, Any]) -> list[str]:
        """Repairs by kind (``doctor_repo.Repairs`` fields); returns the media
        hashes whose rows were deleted."""
        from . import doctor_repo as doctor

        return await self.worker.run(doctor.apply_repairs, doctor.Repairs(**repairs))

    # roles (roles_repo)
    async def list_roles(self) -> list[Role]:
        return await self.worker.run(roles.list_roles)

    async def get_role(self, role_id: str) -> Role:
        return await self.worker.run(roles.get_role, role_id)

    async def find_role_by_name(self, name: str) -> Role | None:
        return await self.worker.run(roles.find_role_by_name, name)

    async def create_role(self, role: Role) -> Role:
        return await self.worker.run(roles.create_role, role)

    async def update_role(self, role_id: str, **fields: Any) -> Role:
        return await self.worker.run(roles.update_role, role_id, **fields)

    async def delete_role(self, role_id: str) -> int:
        return await self.worker.run(roles.delete_role, role_id)

    # providers, models, settings
    async def list_providers(self) -> list[ProviderConfig]:
        return await self.worker.run(providers.list_providers)

    async def get_provider(self, name: str) -> ProviderConfig:
        return await self.worker.run(providers.get_provider, name)

    async def get_provider_by_id(self, provider_id: str) -> ProviderConfig | None:
        return await self.worker.run(providers.get_provider_by_id, provider_id)

    async def add_provider(
        self, name: str, kind: str, base_url: str, has_key: bool
    ) -> ProviderConfig:
        return await self.worker.run(providers.add_provider, name, kind, base_url, has_key)

    async def update_provider(self, name: str, /, **fields: Any) -> ProviderConfig:
        return await self.worker.run(providers.update_provider, name, **fields)

    async def remove_provider(self, name: str) -> None:
        await self.worker.run(providers.remove_provider, name)

    async def list_models(self, provider_name: str | None = None) -> list[ModelInfo]:
        return await self.worker.run(providers.list_models, provider_name)

    async def get_model(self, provider_name: str, model: str) -> ModelInfo | None:
        return await self.worker.run(providers.get_model, provider_name, model)

    async def save_listed_models(self, provider_name: str, names: list[str]) -> None:
        await self.worker.run(providers.save_listed_models, provider_name, names)

    async def update_model_settings(
        self, provider_name: str, model: str, settings: dict[str, Any]
    ) -> ModelInfo:
        return await self.worker.run(
            providers.update_model_settings, provider_name, model, settings
        )

    async def get_setting(self, key: str) -> Any:
        return await self.worker.run(providers.get_setting, key)

    async def set_setting(self, key: str, value: Any) -> None:
        write = partial(providers.set_setting, key=key, value=value)
        await self.worker.run(self._branches.beside, write)

    def set_settings_now(self, values: dict[str, Any]) -> None:
        """Blocking write of several settings, for shutdown paths (window close)."""

        def write_all(db: Any) -> None:
            for key, value in values.items():
                providers.set_setting(db, key, value)

        self.worker.run_sync(write_all)
