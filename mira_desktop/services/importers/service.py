"""``ImportService``: importing a file of conversations (PRODUCT.md §9).

Accepted: a Mira JSON export (one ``mira.thread`` document, or a list of
them), a ZIP of such files (a batch export with ``--inner json``), ChatGPT's
``conversations.json`` and the ZIP ChatGPT mails (it holds
``conversations.json`` and the pictures, which come in on their messages).
The kind is detected unless given. A Mira ZIP's attachment files go back into
the media store.

Everything is read and checked in a worker thread before anything is written;
then all threads go into the database in ONE transaction. A malformed file
raises :class:`InvalidImportError` and imports nothing. A ChatGPT conversation
imported before (same ``source_ref``) is not imported again: what is new in it
(it went on in ChatGPT after the earlier export) is added to the thread here,
and it is skipped when nothing is."""

from __future__ import annotations

import asyncio
import io
import logging
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import InvalidImportError
from ...core.illustration import ImageInfo
from ...core.media_keys import IMAGE_KEY
from ...core.models import Message, MessageRole
from ...core.transfer import (
    AssetRef,
    AttachmentRecord,
    ImportedThread,
    SkippedThread,
    ThreadImport,
    UpdatedThread,
)
from ...paths import resource_path
from ..export.json_format import SCHEMA_FILE
from ..export.schema_check import Validator, load_schema
from . import chatgpt, chatgpt_files, mira, zip_files
from .reading import MAX_IMPORT_BYTES, read_file

if TYPE_CHECKING:
    from ...storage.export_store import ExportStore
    from ...storage.media_store import MediaStore

log = logging.getLogger(__name__)


class ImportFormat(StrEnum):
    MIRA = "mira"
    CHATGPT = "chatgpt"


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """``stage``: ``"checking"`` (conversations read) or ``"writing"``."""

    stage: str
    done: int
    total: int


@dataclass(frozen=True, slots=True)
class ImportReport:
    """``files_restored``: attachments put back into the media store from a
    ZIP; ``files_missing``: attachments whose files were not brought along
    (they stay notes naming the file); ``updated``: threads imported before
    that got the messages new in this export."""

    format: ImportFormat
    imported: list[ImportedThread] = field(default_factory=list)
    skipped: list[SkippedThread] = field(default_factory=list)
    files_restored: int = 0
    files_missing: int = 0
    updated: list[UpdatedThread] = field(default_factory=list)

    @property
    def new_messages(self) -> int:
        """Messages added to the threads imported before."""
        return sum(t.new_messages for t in self.updated)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": str(self.format),
            "imported": [t.to_dict() for t in self.imported],
            "skipped": [s.to_dict() for s in self.skipped],
            "files_restored": self.files_restored,
            "files_missing": self.files_missing,
            "updated": [t.to_dict() for t in self.updated],
            "new_messages": self.new_messages,
        }


ProgressCallback = Callable[[ImportProgress], Any]


def detect(data: Any) -> ImportFormat:
    if mira.is_mira_document(data) or (
        isinstance(data, list) and data and all(mira.is_mira_document(d) for d in data)
    ):
        return ImportFormat.MIRA
    if chatgpt.is_chatgpt_export(data):
        return ImportFormat.CHATGPT
    if isinstance(data, dict) and isinstance(data.get("format"), str):
        raise InvalidImportError(f"Unknown export format “{data['format']}”.")
    raise InvalidImportError("This file is neither a Mira export nor a ChatGPT export.")


class ImportService:
    def __init__(
        self,
        store: ExportStore,
        *,
        media: MediaStore | None = None,
        schema_path: Path | None = None,
        max_bytes: int = MAX_IMPORT_BYTES,
    ) -> None:
        """``media``: where the files a Mira ZIP carries are put back
        (without it, attachments not stored here stay notes); ``max_bytes``:
        the largest file (or ZIP entry, unpacked) read."""
        self._store = store
        self._media = media
        self._max_bytes = max_bytes
        self._schema_path = schema_path or resource_path(*SCHEMA_FILE)

    def _plan(
        self, path: Path, wanted: ImportFormat | None, report: Callable[[ImportProgress], None]
    ) -> tuple[ImportFormat, list[ThreadImport], list[SkippedThread]]:
        """Read, detect and check everything (blocking; a worker thread)."""
        data = read_file(path, self._max_bytes)
        found = detect(data)
        if wanted is not None and wanted is not found:
            raise InvalidImportError(f"{path.name} is a {found} export, not a {wanted} export.")
        if found is ImportFormat.CHATGPT:
            threads, skipped = chatgpt.parse_conversations(
                data, lambda done, total: report(ImportProgress("checking", done, total))
            )
            return found, threads, skipped
        validator = Validator(load_schema(self._schema_path))
        documents = data if isinstance(data, list) else [data]
        threads = mira.parse_documents(documents, validator)
        report(ImportProgress("checking", len(threads), len(threads)))
        return found, threads, []

    async def import_file(
        self,
        path: Path,
        *,
        format: ImportFormat | str | None = None,
        workspace_id: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        """Import every thread of ``path`` (into ``workspace_id``, else the
        workspace named in a Mira file, else Mira BASE). ``progress`` is called
        on the event loop's thread."""
        wanted = _format(format)
        loop = asyncio.get_running_loop()

        def report(event: ImportProgress) -> None:
            if progress is not None:
                loop.call_soon_threadsafe(progress, event)

        found, threads, skipped = await asyncio.to_thread(self._plan, path, wanted, report)
        if found is ImportFormat.CHATGPT:
            threads, restored, missing = await self._restore_pictures(path, threads)
        else:
            restored, missing = await self._restore_files(path, found, threads)
        imported, updated, known = await self._store.insert_imports(
            threads,
            workspace_id=workspace_id,
            merge_known=found is ImportFormat.CHATGPT,
            progress=lambda done, total: report(ImportProgress("writing", done, total)),
        )
        result = ImportReport(found, imported, skipped + known, restored, missing, updated)
        log.info(
            "imported %d thread(s) from %s (%s); %d new message(s) in %d imported before;"
            " %d skipped",
            len(imported),
            path,
            found,
            result.new_messages,
            len(updated),
            len(result.skipped),
        )
        return result

    async def _restore_pictures(
        self, path: Path, threads: list[ThreadImport]
    ) -> tuple[list[ThreadImport], int, int]:
        """Put the pictures a ChatGPT export ZIP holds on their messages
        (``chatgpt_files``): each stored in the media store before the threads
        are written, which reference it; a question's listed in its
        ``data["attachments"]``, an answer's as its ``data["image"]`` (the
        timeline shows both). Returns the threads (messages that got their
        pictures lose the placeholders), pictures restored, missing."""
        wanted = sum(len(refs) for t in threads for refs in t.assets.values())
        if not wanted:
            return threads, 0, 0
        if self._media is None or not await asyncio.to_thread(zipfile.is_zipfile, path):
            return threads, 0, wanted
        try:
            pictures = await asyncio.to_thread(chatgpt_files.ExportPictures, path)
        except (OSError, zipfile.BadZipFile) as exc:
            log.warning("%s: pictures not imported (%s)", path, exc)
            return threads, 0, wanted
        restored = 0
        done: list[ThreadImport] = []
        try:
            for thread in threads:
                attachments: dict[str, tuple[AttachmentRecord, ...]] = dict(thread.attachments)
                edited: dict[str, Message] = {}
                for message in thread.messages:
                    found: list[AttachmentRecord] = []
                    text = message.text
                    made: dict[str, Any] | None = None
                    for ref in thread.assets.get(message.id, ()):
                        picture = await asyncio.to_thread(pictures.find, ref)
                        if picture is None:
                            continue
                        name, data, mime = picture
                        sha = await self._media.put(data, mime)
                        found.append(AttachmentRecord(name, mime, sha, len(data), "image"))
                        text = text.replace(ref.placeholder, "", 1)
                        if message.role is not MessageRole.USER:
                            made = await asyncio.to_thread(_drawn, message, ref, found[-1], data)
                    if found:
                        restored += len(found)
                        attachments[message.id] = (*attachments.get(message.id, ()), *found)
                        if made is not None:  # an answer's picture, shown as one Mira drew
                            summary = {**(message.data or {}), IMAGE_KEY: made}
                        else:
                            shown = [
                                *(message.data or {}).get("attachments", []),
                                *map(_summary, found),
                            ]
                            summary = {**(message.data or {}), "attachments": shown}
                        # a picture alone: no text
                        edited[message.id] = replace(message, text=text.strip(), data=summary)
                messages = tuple(edited.get(m.id, m) for m in thread.messages)
                done.append(replace(thread, messages=messages, attachments=attachments))
        finally:
            await asyncio.to_thread(pictures.close)
        log.info("%s: %d of %d picture(s) imported", path, restored, wanted)
        return done, restored, wanted - restored

    async def _restore_files(
        self, path: Path, found: ImportFormat, threads: list[ThreadImport]
    ) -> tuple[int, int]:
        """Put the attachments a Mira ZIP carries into the media store, one
        at a time (before the threads are written, which then reference
        them; if the import fails, the collector removes them after its
        grace period). Returns (restored, missing) attachments."""
        records = zip_files.carried(threads)
        if not records:
            return 0, 0
        stored = await self._store.stored_media([r.sha256 for r in records])
        wanted = [r for r in records if r.sha256 not in stored]
        if not wanted or self._media is None or found is not ImportFormat.MIRA:
            return 0, len(wanted)
        if not await asyncio.to_thread(zipfile.is_zipfile, path):
            return 0, len(wanted)
        try:
            archive = await asyncio.to_thread(zip_files.ArchiveFiles, path)
        except (OSError, zipfile.BadZipFile) as exc:
            log.warning("%s: attachments not restored (%s)", path, exc)
            return 0, len(wanted)
        restored = 0
        try:
            for record in wanted:
                data = await asyncio.to_thread(archive.read, record)
                if data is not None:
                    await self._media.put(data, record.mime)
                    restored += 1
        finally:
            await asyncio.to_thread(archive.close)
        log.info("%s: %d of %d attachment file(s) restored", path, restored, len(wanted))
        return restored, len(wanted) - restored


def _drawn(
    message: Message, ref: AssetRef, record: AttachmentRecord, data: bytes
) -> dict[str, Any]:
    """``data["image"]`` of an imported answer's picture (``ImageInfo``):
    its size from the export, else from its bytes; the prompt it was drawn
    from; the model the answer names."""
    width, height = ref.width, ref.height
    if not (width and height):
        width, height = picture_size(data)
    info = ImageInfo(
        "ready",
        sha256=record.sha256,
        name=record.name,
        mime=record.mime,
        size=record.size,
        width=width,
        height=height,
        model=message.model or "ChatGPT",
        prompt=ref.prompt,
    )
    return info.to_dict()


def picture_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a picture's bytes; (0, 0) when they cannot be read."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as picture:
            width, height = picture.size
    except (UnidentifiedImageError, OSError, ValueError):
        return 0, 0
    return int(width), int(height)


def _summary(record: AttachmentRecord) -> dict[str, Any]:
    """What a message's ``data["attachments"]`` says of a file (the timeline
    shows a question's pictures from it), as a send writes it."""
    return {
        "name": record.name,
        "mime": record.mime,
        "size": record.size,
        "kind": record.kind,
        "sha256": record.sha256,
    }


def _format(value: ImportFormat | str | None) -> ImportFormat | None:
    if value is None:
        return None
    try:
        return ImportFormat(str(value).lower())
    except ValueError:
        raise InvalidImportError(
            f"Unknown import format “{value}”.", hint="Use mira or chatgpt (or leave it out)."
        ) from None
