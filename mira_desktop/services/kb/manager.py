"""``KnowledgeBaseService``: knowledge bases as the window and the CLI manage
them (PRODUCT.md §1, §3 path 2, §13).

Create, rename, delete (threads bound to the base are unbound and keep their
history), list with counts and index size; add files and folders with progress
and cancellation; remove documents; incremental re-index (changed files only,
deleted files removed, new files in added folders picked up); bind and unbind
threads; configure the embedding and rerank models and embed the passages that
have no vector yet; search. Reading and chunking run in worker threads and SQL
on the database thread, so the event loop never waits on them. One ingestion
at a time per base (a lock), so two adds cannot interleave their writes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import ConfigError, NotFoundError
from ...core.knowledge import (
    IngestProgress,
    IngestReport,
    IngestStatus,
    KbDocument,
    KnowledgeBase,
    KnowledgeBaseStats,
    ModelRef,
)
from ..listeners import Listeners
from .embedding import EmbeddingClient, ProviderLookup
from .ingest import (
    CancelToken,
    Ingestor,
    ProgressCallback,
    Reader,
    Transcriber,
    collect_files,
    default_reader,
)
from .retrieval import Retriever, SearchResult

if TYPE_CHECKING:
    from ...storage.kb_store import KnowledgeStore

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 80
#: Passages embedded per request round by :meth:`embed_pending`.
EMBED_ROUND = 64
#: settings key: files removed by hand from a remembered folder (kept out of re-indexing)
LEFT_OUT_KEY = "left_out"


class KnowledgeBaseService(Listeners):
    """Listeners (``add_listener``) are called with no argument after a base
    was created, renamed or deleted, or its embeddings set or turned off."""

    def __init__(
        self,
        store: KnowledgeStore,
        providers: ProviderLookup | None = None,
        *,
        reader: Reader = default_reader,
        transcriber: Transcriber | None = None,
    ) -> None:
        super().__init__()
        self._store = store
        self._embeddings = EmbeddingClient(providers) if providers is not None else None
        self._ingestor = Ingestor(store, self._embeddings, reader, transcriber)
        self.retriever = Retriever(store, self._embeddings)
        self._locks: dict[str, asyncio.Lock] = {}

    # -- the bases
    async def create(self, name: str, *, settings: dict[str, Any] | None = None) -> KnowledgeBase:
        kb = await self._store.create(_valid_name(name), settings or {})
        self.announce()
        return kb

    async def rename(self, kb_id: str, name: str) -> KnowledgeBase:
        kb = await self._store.rename(kb_id, _valid_name(name))
        self.announce()
        return kb

    async def delete(self, kb_id: str) -> int:
        """Delete a base with its documents; returns how many threads were
        unbound (they keep all their messages)."""
        async with self._lock(kb_id):  # after any ingestion in progress
            unbound = await self._store.delete(kb_id)
        self._locks.pop(kb_id, None)
        self.announce()
        log.info("deleted knowledge base %s (%d threads unbound)", kb_id, unbound)
        return unbound

    async def get(self, kb_id: str) -> KnowledgeBase:
        return await self._store.get(kb_id)

    async def resolve(self, name_or_id: str) -> KnowledgeBase:
        """A base by id or (case-insensitive) name."""
        kb = await self._store.find(name_or_id.strip())
        if kb is None:
            raise NotFoundError(
                f'No knowledge base named "{name_or_id}".',
                hint="List them with `mira-desktop kb list`, or create one with `kb create NAME`.",
            )
        return kb

    async def list_all(self) -> list[KnowledgeBaseStats]:
        """Every base with its document and passage counts and index size."""
        return await self._store.stats()

    async def stats(self, kb_id: str) -> KnowledgeBaseStats:
        return (await self._store.stats(kb_id))[0]

    async def documents(self, kb_id: str) -> list[KbDocument]:
        return await self._store.documents(kb_id)

    # -- content
    async def add(
        self,
        kb_id: str,
        paths: Sequence[str | Path],
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> IngestReport:
        """Index files and folders (recursively). Folders are remembered, so
        :meth:`reindex` picks up files added to them later."""
        kb = await self._store.get(kb_id)
        given = [Path(p).expanduser() for p in paths]
        files, skipped = await asyncio.to_thread(collect_files, given)
        folders = await asyncio.to_thread(lambda: [str(p.resolve()) for p in given if p.is_dir()])
        async with self._lock(kb_id):
            kb = await self._store.get(kb_id)  # settings as they are now
            if folders:
                kb = await self._remember_folders(kb, folders)
            kb = await self._take_back(kb, [str(p) for p in files], folders)
            return await self._ingestor.ingest(
                kb, files, skipped=skipped, progress=progress, cancel=cancel
            )

    async def reindex(
        self,
        kb_id: str,
        *,
        full: bool = False,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> IngestReport:
        """Re-read what changed: files whose size or time changed are read,
        and re-indexed when their SHA-256 changed; deleted files are removed;
        new files in remembered folders are added. ``full`` re-reads all."""
        async with self._lock(kb_id):
            kb = await self._store.get(kb_id)
            documents = await self._store.documents(kb_id)
            missing, present, found = await asyncio.to_thread(_survey, kb, documents)
            for doc in missing:
                await self._store.remove_document(doc.id)
                if progress is not None:
                    progress(IngestProgress(0, 0, doc.path, IngestStatus.REMOVED))
            files = list(dict.fromkeys([*present, *found]))
            return await self._ingestor.ingest(
                kb, files, removed=len(missing), force=full, progress=progress, cancel=cancel
            )

    async def remove_document(self, kb_id: str, which: str) -> KbDocument:
        """Remove a document given by id, path or file name."""
        document = _pick_document(await self._store.documents(kb_id), which)
        async with self._lock(kb_id):
            removed = await self._store.remove_document(document.id)
            # a file removed by hand stays out: a re-index of its folder must
            # not bring it back (adding it, or its folder, again does)
            kb = await self._store.get(kb_id)
            left_out = list(dict.fromkeys([*_left_out(kb), document.path]))
            await self._store.set_settings(kb_id, {**kb.settings, LEFT_OUT_KEY: left_out})
            return removed

    # -- threads
    async def bind(self, thread_id: str, kb_id: str) -> None:
        await self._store.bind_thread(thread_id, kb_id)

    async def unbind(self, thread_id: str) -> None:
        await self._store.bind_thread(thread_id, None)

    # -- models
    async def configure_embeddings(self, kb_id: str, provider: str, model: str) -> KnowledgeBase:
        """Use ``provider``'s ``model`` for vectors. A different model than
        before drops the stored vectors (they are not comparable); call
        :meth:`embed_pending` to compute them."""
        kb = await self._store.get(kb_id)
        ref = ModelRef(provider.strip(), model.strip())
        await self._client().embedder(ref)  # refuses providers that cannot embed
        changed = kb.embedding != ref
        settings = {**kb.settings, "embedding": {"provider": ref.provider, "model": ref.model}}
        kb = await self._store.set_settings(kb_id, settings, clear_vectors=changed)
        self.announce()
        return kb

    async def disable_embeddings(self, kb_id: str) -> KnowledgeBase:
        kb = await self._store.get(kb_id)
        settings = {k: v for k, v in kb.settings.items() if k != "embedding"}
        kb = await self._store.set_settings(kb_id, settings, clear_vectors=True)
        self.announce()
        return kb

    async def configure_rerank(
        self, kb_id: str, provider: str | None, model: str | None
    ) -> KnowledgeBase:
        """Rerank with ``provider``'s ``model``; ``None`` turns reranking off."""
        kb = await self._store.get(kb_id)
        settings = {k: v for k, v in kb.settings.items() if k != "rerank"}
        if provider and model:
            settings["rerank"] = {"provider": provider.strip(), "model": model.strip()}
        return await self._store.set_settings(kb_id, settings)

    async def embed_pending(
        self,
        kb_id: str,
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> int:
        """Embed every passage without a vector; returns how many were embedded.
        Each round is written as it completes, so a cancel keeps the work done."""
        kb = await self._store.get(kb_id)
        if kb.embedding is None:
            raise ConfigError(
                f'Knowledge base "{kb.name}" has no embedding model.',
                hint="Set one with `mira-desktop kb embed NAME --provider P --model M`.",
            )
        client = self._client()
        stats = await self.stats(kb_id)
        total, done = stats.chunks - stats.embedded_chunks, 0
        async with self._lock(kb_id):
            while not (cancel is not None and cancel.is_set()):
                rows = await self._store.pending_embeddings(kb_id, EMBED_ROUND)
                if not rows:
                    break
                vectors = await client.embed(kb.embedding, [text for _, text in rows])
                await self._store.set_embeddings(
                    kb_id, [(seq, v, s) for (seq, _), (v, s) in zip(rows, vectors, strict=True)]
                )
                done += len(rows)
                if progress is not None:
                    progress(IngestProgress(done, total, kb.name, IngestStatus.INDEXED))
        return done

    async def search(self, kb_id: str, query: str, *, limit: int = 8) -> SearchResult:
        kb = await self._store.get(kb_id)
        return await self.retriever.search(kb, query, limit=limit)

    # -- helpers
    def _client(self) -> EmbeddingClient:
        if self._embeddings is None:
            raise ConfigError("Embeddings need a provider service (none was given).")
        return self._embeddings

    def _lock(self, kb_id: str) -> asyncio.Lock:
        return self._locks.setdefault(kb_id, asyncio.Lock())

    async def _take_back(
        self, kb: KnowledgeBase, files: list[str], folders: list[str]
    ) -> KnowledgeBase:
        """Files removed by hand that are added again (by name, or with a
        folder named again) are no longer left out."""
        left_out = _left_out(kb)
        if not left_out:
            return kb
        named = set(files)
        kept = [
            path
            for path in left_out
            if path not in named and not any(_inside(path, folder) for folder in folders)
        ]
        if kept == left_out:
            return kb
        return await self._store.set_settings(kb.id, {**kb.settings, LEFT_OUT_KEY: kept})

    async def _remember_folders(self, kb: KnowledgeBase, folders: list[str]) -> KnowledgeBase:
        known = list(kb.settings.get("folders") or [])
        merged = list(dict.fromkeys([*known, *folders]))
        if merged == known:
            return kb
        return await self._store.set_settings(kb.id, {**kb.settings, "folders": merged})


def _valid_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise ConfigError("A knowledge base needs a name.")
    if len(name) > MAX_NAME_LENGTH:
        raise ConfigError(f"A knowledge base name has at most {MAX_NAME_LENGTH} characters.")
    return name


def _survey(
    kb: KnowledgeBase, documents: Sequence[KbDocument]
) -> tuple[list[KbDocument], list[Path], list[Path]]:
    """(documents whose file is gone, paths still present, files now in the
    remembered folders but for those removed by hand) — file-system work, run
    in a worker thread."""
    missing = [doc for doc in documents if not Path(doc.path).is_file()]
    present = [Path(doc.path) for doc in documents if Path(doc.path).is_file()]
    folders = [Path(f) for f in kb.settings.get("folders") or [] if Path(f).is_dir()]
    found, _ = collect_files(folders) if folders else ([], [])
    left_out = set(_left_out(kb))
    return missing, present, [path for path in found if str(path) not in left_out]


def _left_out(kb: KnowledgeBase) -> list[str]:
    value = kb.settings.get(LEFT_OUT_KEY)
    return [p for p in value if isinstance(p, str)] if isinstance(value, list) else []


def _inside(path: str, folder: str) -> bool:
    try:
        Path(path).relative_to(folder)
    except ValueError:
        return False
    return True


def _pick_document(documents: Sequence[KbDocument], which: str) -> KbDocument:
    for doc in documents:
        if which in (doc.id, doc.path):
            return doc
    resolved = str(Path(which).expanduser().resolve())
    by_path = [doc for doc in documents if doc.path == resolved]
    by_name = [doc for doc in documents if doc.name == which]
    matches = by_path or by_name
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFoundError(
            f'No document "{which}" in this knowledge base.',
            hint="List them with `mira-desktop kb list NAME`.",
        )
    raise ConfigError(f'Several documents are named "{which}".', hint="Give the full path instead.")
