"""Ingestion: files and folders into a knowledge base, off the event loop.

Folders are walked recursively; hidden entries (``.git``, ``.DS_Store``) and
files the readers do not support (images, archives…) are skipped. Each file is
one unit of work: stat → (unchanged size and time: skipped) → read and chunk
in a worker thread (the attachment readers) → (same SHA-256 as stored: only
the time is updated) → embed the new passages when the base has an embedding
model → one write transaction for the document and all its passages.

While a document is written (on the database thread, mostly SQLite's
trigram indexing, which holds no GIL), the next file is already read and
chunked in a worker thread. The next read starts only once the document's
write is decided, so a cancel during it never keeps back a document that
was about to be written.

A file that cannot be read — refused by its reader, or failing in a way
nobody foresaw — is that file's failure, reported with the reason; the
other files are still indexed.

Cancellation (any object with ``is_set()``, e.g. ``threading.Event``) is
checked before and after each file's work, and by the reader between the
pages, slides, sheets or paragraphs of the file it is reading (a long PDF
stops at the next page, not at its end, and the base's lock is let go at
once): documents already written stay, the one in progress is never
written, so the base is always consistent.
Progress goes to a callback as :class:`IngestProgress` steps.

An audio file named on its own (a recorded lecture or meeting; not one found
in a folder, where a music collection would be sent off to be transcribed)
is indexed as what is said in it: the worker thread reads and hashes it (the
same content as indexed is not sent again, whatever its time), then the
speech-to-text model (``transcriber``) is awaited here on the event loop —
a cancel stops it at once, and nothing waits on a thread."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...core.audio_formats import AUDIO_SKIPPED, AUDIO_TYPES
from ...core.errors import MiraError, ReaderError, worded
from ...core.knowledge import (
    NOT_FOUND,
    ChunkInput,
    DocumentInput,
    IngestFailure,
    IngestProgress,
    IngestReport,
    IngestStatus,
    KbDocument,
    KnowledgeBase,
    StoredChunks,
)
from ..readers import TEXT_EXTENSIONS, Document, read_document
from ..readers.document import short_reason
from ..readers.limits import CancelCheck, ReadCancelledError
from ..readers.registry import extension
from .chunking import CHUNK_OVERLAP, CHUNK_SIZE, Chunk, chunk_document
from .embedding import EmbeddingClient

if TYPE_CHECKING:
    from ...storage.kb_store import KnowledgeStore

log = logging.getLogger(__name__)

#: Knowledge-base files may be larger than chat attachments.
KB_MAX_BYTES = 64 * 1024 * 1024
#: how often a transcription under way looks at the cancel token (seconds)
CANCEL_POLL_S = 0.2
_OFFICE = frozenset({"pdf", "docx", "pptx", "xlsx"})

ProgressCallback = Callable[[IngestProgress], None]
#: what is said in an audio file's bytes (named), written down by a model
Transcriber = Callable[[bytes, str], Coroutine[Any, Any, str]]


class CancelToken(Protocol):
    def is_set(self) -> bool: ...


class Reader(Protocol):
    """Reads one file (in a worker thread), polling ``cancel`` as it goes:
    raises :class:`~..readers.limits.ReadCancelledError` once it says so."""

    def __call__(self, path: Path, cancel: CancelCheck | None = None) -> Document: ...


def default_reader(path: Path, cancel: CancelCheck | None = None) -> Document:
    return read_document(path, max_bytes=KB_MAX_BYTES, cancel=cancel)


def indexable(name: str) -> bool:
    """Whether a file found in a folder is worth reading (text or office)."""
    ext = extension(name)
    return ext in _OFFICE or ext in TEXT_EXTENSIONS


def collect_files(paths: Sequence[Path]) -> tuple[list[Path], list[tuple[str, str]]]:
    """The files to index from ``paths`` (files, and folders walked
    recursively), resolved and de-duplicated; plus skipped ``(path, reason)``.
    A file named explicitly is always tried; in folders, hidden entries and
    unsupported types are skipped."""
    files: dict[Path, None] = {}
    skipped: list[tuple[str, str]] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            _walk(path.resolve(), files, skipped)
        elif path.exists():
            files[path.resolve()] = None
        else:
            skipped.append((str(path), NOT_FOUND))
    return list(files), skipped


def _walk(root: Path, files: dict[Path, None], skipped: list[tuple[str, str]]) -> None:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = Path(folder) / name
            if indexable(name) and path.is_file():
                files[path] = None
            elif is_audio(name) and Path(name).suffix.lower() not in _VIDEOS:
                skipped.append((str(path), AUDIO_SKIPPED))
            else:
                skipped.append((str(path), "unsupported type"))


def is_audio(name: str) -> bool:
    return Path(name).suffix.lower() in AUDIO_TYPES


#: containers speech-to-text takes that are mostly videos (skipped in folders as such)
_VIDEOS = frozenset({".mp4", ".mpeg", ".webm"})


def _audio(path: Path, stat: os.stat_result, known: KbDocument | None, force: bool) -> _Read:
    """An audio file read and hashed (in the worker thread), to be written
    down on the event loop; the content already indexed is not sent again
    (a touched or copied-back file, a full re-index), and a file the endpoint
    would refuse for its size is not read at all."""
    from ..transcription import check_size  # refuses past the 25 MB the endpoints take

    check_size(stat.st_size)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise worded(
            ReaderError,
            'Cannot read "{path}": {detail}.',
            {"path": path.name, "detail": exc.strerror or exc},
        ) from exc
    sha256 = hashlib.sha256(data).hexdigest()
    if known is not None and known.sha256 == sha256:  # its passages stay as they are
        same = Document(path.name, AUDIO_TYPES[path.suffix.lower()], "audio", len(data), sha256)
        return _Read(stat, same)
    return _Read(stat, audio=data, sha256=sha256, forced=force)


@dataclass
class _Tally:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    stored: int = 0
    shared: int = 0
    failed: list[IngestFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    embed_off: bool = False

    def wrote(self, stored: StoredChunks, *, new: bool) -> tuple[IngestStatus, str]:
        """Count one document write; its progress status and message."""
        self.stored += stored.stored
        self.shared += stored.shared
        if new:
            self.added += 1
        else:
            self.updated += 1
        status = IngestStatus.INDEXED if new else IngestStatus.UPDATED
        return status, f"{stored.stored + stored.shared} passages"

    def report(self, skipped: Sequence[tuple[str, str]], cancelled: bool) -> IngestReport:
        return IngestReport(
            added=self.added,
            updated=self.updated,
            unchanged=self.unchanged,
            removed=self.removed,
            chunks_stored=self.stored,
            chunks_shared=self.shared,
            failed=tuple(self.failed),
            skipped=tuple(skipped),
            warnings=tuple(self.warnings),
            cancelled=cancelled,
        )


@dataclass(frozen=True)
class _Read:
    """One file as the worker thread found it: ``stat`` None when it could
    not be stat'ed, ``document`` None when it was not read (the size and
    time already indexed), ``error`` the reader's message when it failed."""

    stat: os.stat_result | None
    document: Document | None = None
    chunks: list[Chunk] = field(default_factory=list)
    error: str | None = None
    cause: MiraError | None = None
    cancelled: bool = False  # the read stopped at the cancel token: nothing to report
    forced: bool = False  # read again on purpose: indexed even with the same content
    #: an audio file's bytes and hash, to be written down on the event loop
    audio: bytes | None = None
    sha256: str = ""


class Ingestor:
    """Indexes files into a base (see the module docstring)."""

    def __init__(
        self,
        store: KnowledgeStore,
        embeddings: EmbeddingClient | None = None,
        reader: Reader = default_reader,
        transcriber: Transcriber | None = None,
    ) -> None:
        self._store = store
        self._embeddings = embeddings
        self._reader = reader
        self._transcriber = transcriber

    async def ingest(
        self,
        kb: KnowledgeBase,
        files: Sequence[Path],
        *,
        skipped: Sequence[tuple[str, str]] = (),
        removed: int = 0,
        force: bool = False,
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> IngestReport:
        """Index ``files`` (resolved paths); ``force`` re-reads unchanged ones."""
        known = {doc.path: doc for doc in await self._store.documents(kb.id)}
        tally = _Tally(removed=removed)
        total = len(files)
        settings = _chunk_settings(kb)

        def read(i: int) -> asyncio.Task[_Read]:
            path = files[i]
            return asyncio.ensure_future(
                asyncio.to_thread(self._read, path, known.get(str(path)), force, settings, cancel)
            )

        ahead: asyncio.Task[_Read] | None = None  # the next file, read while one is written

        def read_next(i: int) -> None:
            nonlocal ahead
            if i < total:
                ahead = read(i)

        try:
            for done, path in enumerate(files):
                if cancel is not None and cancel.is_set():
                    return tally.report(skipped, cancelled=True)
                _notify(progress, done, total, path, IngestStatus.READING)
                task, ahead = (ahead or read(done)), None
                found = await task
                if found.cancelled:
                    return tally.report(skipped, cancelled=True)
                if found.audio is not None:  # written down here, where a cancel reaches it
                    heard = await self._hear(path, found, settings, cancel)
                    if heard is None:
                        return tally.report(skipped, cancelled=True)
                    found = heard
                status, message = await self._one(
                    kb,
                    path,
                    found,
                    known.get(str(path)),
                    tally,
                    cancel,
                    partial(read_next, done + 1),
                )
                if status is None:
                    return tally.report(skipped, cancelled=True)
                _notify(progress, done + 1, total, path, status, message)
            return tally.report(skipped, cancelled=False)
        finally:
            if ahead is not None:  # cancelled meanwhile: its thread ends alone, unread
                ahead.cancel()
                if ahead.done() and not ahead.cancelled():
                    ahead.exception()  # a failure of a file never indexed: nothing to report

    async def _one(
        self,
        kb: KnowledgeBase,
        path: Path,
        found: _Read,
        known: KbDocument | None,
        tally: _Tally,
        cancel: CancelToken | None,
        writing: Callable[[], None],
    ) -> tuple[IngestStatus | None, str]:
        """Index one file from what :meth:`_read` found; ``(None, "")`` when
        cancelled before its write. ``writing()`` is called as the write starts."""
        if found.error is not None:
            tally.failed.append(IngestFailure(str(path), found.error, found.cause))
            if known is not None and found.stat is not None:  # there, but unreadable
                detail = found.cause.to_dict() if found.cause is not None else None
                await self._store.mark_failed(known.id, found.error, detail)
            return IngestStatus.FAILED, found.error
        stat, document = found.stat, found.document
        if stat is None or document is None:  # the size and time already indexed
            tally.unchanged += 1
            return IngestStatus.UNCHANGED, ""
        if known is not None and not found.forced and known.sha256 == document.sha256:
            await self._store.touch_document(known.id, stat.st_size, stat.st_mtime)
            tally.unchanged += 1
            return IngestStatus.UNCHANGED, ""
        inputs = await self._with_vectors(kb, found.chunks, tally)
        if cancel is not None and cancel.is_set():
            return None, ""
        doc = DocumentInput(
            str(path), path.name, document.sha256, document.mime, stat.st_size, stat.st_mtime
        )
        writing()
        stored = await self._store.write_document(kb.id, doc, inputs)
        return tally.wrote(stored, new=known is None)

    def _read(
        self,
        path: Path,
        known: KbDocument | None,
        force: bool,
        settings: tuple[int, int],
        cancel: CancelToken | None,
    ) -> _Read:
        """Stat, read and chunk one file (in a worker thread); a file of the
        size and time already indexed is not read, unless ``force``."""
        try:
            stat = path.stat()
        except OSError as exc:
            return _Read(None, error=str(exc))
        if not force and known and known.size == stat.st_size and known.mtime == stat.st_mtime:
            return _Read(stat)
        try:
            if is_audio(path.name) and self._transcriber is not None:
                return _audio(path, stat, known, force)
            document = self._reader(path, cancel.is_set if cancel is not None else None)
            chunks = chunk_document(document, size=settings[0], overlap=settings[1])
        except ReadCancelledError:
            return _Read(stat, cancelled=True)
        except MiraError as exc:
            return _Read(stat, error=exc.message, cause=exc)
        except Exception as exc:  # a reader's bug: this file fails, the others go on
            log.warning("reading %s failed unexpectedly", path, exc_info=exc)
            error = worded(
                ReaderError,
                'Cannot read "{path}": {detail}.',
                {"path": path.name, "detail": short_reason(exc)},
            )
            return _Read(stat, error=error.message, cause=error)
        return _Read(stat, document, chunks, forced=force)

    async def _hear(
        self,
        path: Path,
        found: _Read,
        settings: tuple[int, int],
        cancel: CancelToken | None,
    ) -> _Read | None:
        """The audio ``found`` read as what is said in it: the model is
        awaited, the cancel token looked at while it works (None: cancelled,
        the request dropped); a refusal fails this file only."""
        assert self._transcriber is not None and found.audio is not None
        work = asyncio.ensure_future(self._transcriber(found.audio, path.name))
        try:
            while not work.done():
                if cancel is not None and cancel.is_set():
                    return None
                await asyncio.wait({work}, timeout=CANCEL_POLL_S)
            text = work.result()
        except MiraError as exc:
            return _Read(found.stat, error=exc.message, cause=exc)
        except Exception as exc:  # a closed client at shut-down, a bug: this file fails
            log.warning("transcribing %s failed", path.name, exc_info=exc)
            return _Read(found.stat, error=str(exc) or type(exc).__name__)
        finally:
            work.cancel()  # a no-op once done; else the upload stops with us
        mime = AUDIO_TYPES[path.suffix.lower()]
        document = Document(path.name, mime, "audio", len(found.audio), found.sha256, text=text)
        chunks = chunk_document(document, size=settings[0], overlap=settings[1])
        return _Read(found.stat, document, chunks, forced=found.forced)

    async def _with_vectors(
        self, kb: KnowledgeBase, chunks: Sequence[Chunk], tally: _Tally
    ) -> list[ChunkInput]:
        """The passages to store, with embeddings when the base has a model
        (already-stored vectors reused). A failing embedding server leaves the
        passages without vectors (``kb embed`` fills them in later)."""
        plain = [ChunkInput(c.ordinal, c.text, c.location, c.sha256) for c in chunks]
        if kb.embedding is None or self._embeddings is None or tally.embed_off or not chunks:
            return plain
        known = await self._store.stored_vectors(kb.id, [c.sha256 for c in chunks])
        missing = [c for c in chunks if c.sha256 not in known]
        try:
            fresh = await self._embeddings.embed(kb.embedding, [c.text for c in missing])
        except MiraError as exc:
            log.warning("embedding for %s failed: %s", kb.name, exc)
            tally.embed_off = True
            tally.warnings.append(f"Embedding failed; passages stored for keyword search: {exc}")
            return plain
        known.update((c.sha256, pair) for c, pair in zip(missing, fresh, strict=True))
        return [
            ChunkInput(c.ordinal, c.text, c.location, c.sha256, *known[c.sha256]) for c in chunks
        ]


def _chunk_settings(kb: KnowledgeBase) -> tuple[int, int]:
    size = kb.settings.get("chunk_size")
    overlap = kb.settings.get("chunk_overlap")
    return (
        size if isinstance(size, int) and size >= 200 else CHUNK_SIZE,
        overlap if isinstance(overlap, int) and overlap >= 0 else CHUNK_OVERLAP,
    )


def _notify(
    progress: ProgressCallback | None,
    done: int,
    total: int,
    path: Path,
    status: IngestStatus,
    message: str = "",
) -> None:
    if progress is not None:
        progress(IngestProgress(done, total, str(path), status, message))
