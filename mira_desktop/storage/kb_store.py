"""``KnowledgeStore``: the async face of knowledge-base storage (``kb_repo``,
``kb_search_sql``) for the knowledge-base services. It shares the one
``DatabaseWorker`` (one connection, one thread) with ``Store``; every method runs
its SQL there and returns core value types."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.knowledge import (
    ChunkInput,
    ChunkRecord,
    DocumentInput,
    KbDocument,
    KnowledgeBase,
    KnowledgeBaseStats,
    StoredChunks,
    TermStats,
)
from ..core.models import Thread
from . import kb_repo as repo
from . import kb_search_sql as search
from . import threads_repo
from .worker import DatabaseWorker

log = logging.getLogger(__name__)


class KnowledgeStore:
    def __init__(self, worker: DatabaseWorker) -> None:
        self.worker = worker

    # knowledge bases
    async def create(self, name: str, settings: dict[str, Any]) -> KnowledgeBase:
        return await self.worker.run(repo.create_kb, name, settings)

    async def get(self, kb_id: str) -> KnowledgeBase:
        return await self.worker.run(repo.get_kb, kb_id)

    async def find(self, name_or_id: str) -> KnowledgeBase | None:
        return await self.worker.run(repo.find_kb, name_or_id)

    async def list_all(self) -> list[KnowledgeBase]:
        return await self.worker.run(repo.list_kbs)

    async def rename(self, kb_id: str, name: str) -> KnowledgeBase:
        return await self.worker.run(repo.rename_kb, kb_id, name)

    async def set_settings(
        self, kb_id: str, settings: dict[str, Any], *, clear_vectors: bool = False
    ) -> KnowledgeBase:
        return await self.worker.run(
            repo.set_settings, kb_id, settings, clear_vectors=clear_vectors
        )

    async def delete(self, kb_id: str) -> int:
        return await self.worker.run(repo.delete_kb, kb_id)

    async def stats(self, kb_id: str | None = None) -> list[KnowledgeBaseStats]:
        return await self.worker.run(repo.kb_stats, kb_id)

    async def index_version(self, kb_id: str) -> int:
        return await self.worker.run(repo.index_version, kb_id)

    # threads
    async def bind_thread(self, thread_id: str, kb_id: str | None) -> None:
        await self.worker.run(repo.bind_thread, thread_id, kb_id)

    async def get_thread(self, thread_id: str) -> Thread:
        return await self.worker.run(threads_repo.get_thread, thread_id)

    # documents
    async def documents(self, kb_id: str) -> list[KbDocument]:
        return await self.worker.run(repo.list_documents, kb_id)

    async def write_document(
        self, kb_id: str, doc: DocumentInput, chunks: Sequence[ChunkInput]
    ) -> StoredChunks:
        return await self.worker.run(repo.write_document, kb_id, doc, list(chunks))

    async def touch_document(self, document_id: str, size: int, mtime: float) -> None:
        await self.worker.run(repo.touch_document, document_id, size, mtime)

    async def mark_failed(
        self, document_id: str, error: str, detail: Mapping[str, Any] | None = None
    ) -> None:
        await self.worker.run(repo.mark_failed, document_id, error, detail)

    async def remove_document(self, document_id: str) -> KbDocument:
        return await self.worker.run(repo.remove_document, document_id)

    # retrieval
    async def chunk_count(self, kb_id: str) -> int:
        return await self.worker.run(search.chunk_count, kb_id)

    async def term_stats(self, long_terms: Sequence[str], short_terms: Sequence[str]) -> TermStats:
        return await self.worker.run(search.term_stats, list(long_terms), list(short_terms))

    async def ranked_matches(
        self, kb_id: str, phrases: Sequence[str], limit: int
    ) -> list[tuple[int, str]]:
        return await self.worker.run(search.ranked_matches, kb_id, list(phrases), limit)

    async def recent_matches(
        self, kb_id: str, phrases: Sequence[str], limit: int
    ) -> list[tuple[int, str]]:
        return await self.worker.run(search.recent_matches, kb_id, list(phrases), limit)

    async def scan_terms(
        self, kb_id: str, terms: Sequence[str], limit: int
    ) -> list[tuple[int, str]]:
        return await self.worker.run(search.scan_terms, kb_id, list(terms), limit)

    async def chunk_records(self, seqs: Sequence[int]) -> dict[int, ChunkRecord]:
        return await self.worker.run(search.chunk_records, list(seqs))

    # vectors
    async def signatures(self, kb_id: str) -> tuple[int, list[int], list[bytes]]:
        return await self.worker.run(search.signatures, kb_id)

    async def embeddings(self, seqs: Sequence[int]) -> dict[int, bytes]:
        return await self.worker.run(search.embeddings, list(seqs))

    async def stored_vectors(
        self, kb_id: str, hashes: Sequence[str]
    ) -> dict[str, tuple[bytes, bytes]]:
        return await self.worker.run(search.stored_vectors, kb_id, list(hashes))

    async def pending_embeddings(self, kb_id: str, limit: int) -> list[tuple[int, str]]:
        return await self.worker.run(search.pending_embeddings, kb_id, limit)

    async def set_embeddings(self, kb_id: str, rows: Sequence[tuple[int, bytes, bytes]]) -> None:
        await self.worker.run(search.set_embeddings, kb_id, list(rows))
