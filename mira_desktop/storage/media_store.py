"""``MediaStore``: the async face of the media folder and the ``media`` table
that services use (attachments now; chat media and knowledge bases later).

Hashing and writing bytes run in a worker thread (``asyncio.to_thread``); the
row changes — and the rename that makes a file visible — run on the database
thread in one transaction. The clock is injected (epoch seconds) so tests can
move time past the collector's grace period."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..core.attachments import Attachment
from . import attachments_repo, media_repo
from .connection import Database
from .database import write
from .media_files import MediaFiles
from .worker import DatabaseWorker

log = logging.getLogger(__name__)

#: Stray files and freshly released rows younger than this are never collected.
DEFAULT_GRACE_SECONDS = 3600.0

Source = bytes | Path
T = TypeVar("T")


class MediaStore:
    def __init__(
        self,
        worker: DatabaseWorker,
        root: Path,
        *,
        clock: Callable[[], float] = time.time,
        grace_seconds: float = DEFAULT_GRACE_SECONDS,
        owner: str | None = None,
    ) -> None:
        """``owner``: this process (``host:pid:start``), recorded with the
        composer's pending references."""
        self._worker = worker
        self._owner = owner
        self.files = MediaFiles(root)
        self._clock = clock
        self.grace_seconds = grace_seconds

    def now(self) -> float:
        return self._clock()

    def path(self, sha256: str) -> Path:
        return self.files.path(sha256)

    async def put(self, source: Source, mime: str, *, refs: int = 0) -> str:
        """Store content (deduplicated) with ``refs`` references; returns its sha256.
        With ``refs=0`` the row is only protected by the grace period: add a
        reference soon, or pass ``refs``."""
        staged = await asyncio.to_thread(self.files.stage, source)
        await self._worker.run(
            media_repo.store_staged, self.files, staged, mime, refs=refs, now=self._iso()
        )
        return staged.sha256

    async def put_pending(self, source: Source, mime: str) -> tuple[str, str]:
        """Store content held by the composer: ``(sha256, pending_id)``."""
        staged = await asyncio.to_thread(self.files.stage, source)
        pending_id = await self._worker.run(
            media_repo.store_staged,
            self.files,
            staged,
            mime,
            pending=True,
            now=self._iso(),
            owner=self._owner,
        )
        assert pending_id is not None
        return staged.sha256, pending_id

    async def add_ref(self, sha256: str, count: int = 1) -> int:
        return await self._transaction(media_repo.add_ref, sha256, count, self._iso())

    async def release(self, sha256: str, count: int = 1) -> int:
        return await self._transaction(media_repo.release, sha256, count, self._iso())

    async def ref_count(self, sha256: str) -> int | None:
        return await self._worker.run(media_repo.ref_count, sha256)

    async def read(self, sha256: str) -> bytes:
        return await asyncio.to_thread(self.files.read, sha256)

    async def discard_pending(self, pending_id: str) -> list[Path]:
        """Release a composer's reference and, if nothing else holds the content,
        delete it at once (a removed chip leaves nothing behind)."""
        sha256 = await self._transaction(media_repo.drop_pending, pending_id, self._iso())
        return await self.collect_garbage(only=[sha256]) if sha256 else []

    async def expire_pending(
        self,
        older_than_seconds: float,
        owner_alive: Callable[[str | None], bool] | None = None,
    ) -> list[str]:
        before = media_repo.iso(self.now() - older_than_seconds)
        return await self._transaction(media_repo.expire_pending, before, self._iso(), owner_alive)

    async def collect_garbage(self, *, only: Collection[str] | None = None) -> list[Path]:
        return await self._worker.run(
            media_repo.collect_garbage,
            self.files,
            now=self.now(),
            grace=self.grace_seconds,
            only=only,
        )

    # attachments (message parts that reference media)
    async def attach(
        self, message_id: str, parts: Sequence[attachments_repo.PendingPart]
    ) -> list[Attachment]:
        return await self._worker.run(attachments_repo.attach, message_id, parts)

    async def attachments(self, message_ids: Sequence[str]) -> dict[str, list[Attachment]]:
        return await self._worker.run(attachments_repo.list_attachments, message_ids)

    async def kept_transcript(self, sha256: str) -> str | None:
        """The transcript an earlier attachment of this audio content keeps."""
        return await self._worker.run(attachments_repo.kept_transcript, sha256)

    async def release_messages(self, message_ids: Iterable[str]) -> list[Path]:
        """Drop the attachments of these messages and delete media nothing else uses."""
        released = await self._worker.run(attachments_repo.release_messages, list(message_ids))
        return await self.collect_garbage(only=released) if released else []

    def _iso(self) -> str:
        return media_repo.iso(self.now())

    async def _transaction(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(conn, *args)`` in one write transaction on the database thread."""

        def run(db: Database) -> T:
            with write(db) as conn:
                return fn(conn, *args)

        return await self._worker.run(run)
