"""``ExportStore``: the async face of ``export_repo`` and ``import_repo`` for
the export and import services. It shares the one ``DatabaseWorker`` with ``Store``; ``*_sync``
variants are for a background thread (a ZIP export) that must read batches
without going through the event loop."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..core.models import Message
from ..core.transfer import (
    ImportedThread,
    SkippedThread,
    ThreadImport,
    ThreadSnapshot,
    UpdatedThread,
)
from . import export_repo as repo
from . import import_repo, messages_repo
from .worker import DatabaseWorker

log = logging.getLogger(__name__)


class ExportStore:
    def __init__(self, worker: DatabaseWorker) -> None:
        self.worker = worker
        self._media = worker.data_dir / "media"

    def media_bytes(self, sha256: str) -> bytes | None:
        """An attachment's stored bytes (blocking: an export's worker thread),
        None when the file is not in the media folder."""
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            return None
        try:
            return (self._media / sha256[:2] / sha256).read_bytes()
        except OSError:
            return None

    async def stored_media(self, sha256s: Sequence[str]) -> set[str]:
        """Which of these contents the media store holds."""
        return await self.worker.run(repo.stored_media, list(sha256s))

    async def snapshot(self, thread_id: str) -> ThreadSnapshot:
        return (await self.worker.run(repo.read_snapshots, [thread_id]))[0]

    async def snapshots(self, thread_ids: Sequence[str]) -> list[ThreadSnapshot]:
        return await self.worker.run(repo.read_snapshots, list(thread_ids))

    def snapshots_sync(self, thread_ids: Sequence[str]) -> list[ThreadSnapshot]:
        """Blocking read, for a worker thread (never the Qt thread)."""
        return self.worker.run_sync(repo.read_snapshots, list(thread_ids))

    async def message(self, message_id: str) -> Message:
        return await self.worker.run(messages_repo.get_message, message_id)

    async def thread_ids(
        self, *, include_archived: bool = True, include_trashed: bool = False
    ) -> list[str]:
        return await self.worker.run(
            repo.list_thread_ids,
            include_archived=include_archived,
            include_trashed=include_trashed,
        )

    async def insert_imports(
        self,
        imports: Sequence[ThreadImport],
        *,
        workspace_id: str | None = None,
        merge_known: bool = False,
        progress: import_repo.Progress | None = None,
    ) -> tuple[list[ImportedThread], list[UpdatedThread], list[SkippedThread]]:
        """See ``import_repo.insert_imports``."""
        return await self.worker.run(
            import_repo.insert_imports,
            list(imports),
            workspace_id=workspace_id,
            merge_known=merge_known,
            progress=progress,
        )
