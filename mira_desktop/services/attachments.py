"""``AttachmentService``: files and images a person attaches to a message
(PRODUCT.md §7), from the composer's chip to the stored message part.

* ``prepare(path)`` reads and validates the file off the event loop (the
  readers refuse what cannot be used, with the reason) and stores its bytes in
  the media store under a *pending* reference: the chip holds the file. An
  audio file (a voice memo, a recorded meeting) is attached as what was said
  in it: the speech-to-text model writes it down once, the transcript is kept
  with the attachment (``info["transcript"]``) and read from there by every
  later request — and by the same content attached again, anywhere; no model chosen, or a server that fails, refuses the file
  with the reason.
* ``discard(prepared)`` drops that reference; content nothing else uses is
  deleted at once, so removing a chip leaves nothing behind.
* ``attach_to_message(message_id, prepared)`` writes the message parts and
  turns the pending references into theirs, in one transaction.
* ``release_message_media(message_ids)`` is for deletes and purges.
* ``collect()`` at start-up releases the pending references of a process that
  is gone (Mira closed or crashed while composing; those of an older version,
  which did not record their process, after a day) and runs the garbage
  collector. A running window's chips are never released under it, however
  long they wait (a command line run beside it collects too).

The ``@`` picker's search lives in ``workspace_files`` and is re-exported here."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.attachments import Attachment
from ..core.audio_formats import AUDIO_TYPES
from .readers import Document, read_document_bytes, read_file_bytes
from .readers.document import MB
from .workspace_files import resolve_workspace_file, search_workspace_files

if TYPE_CHECKING:
    from ..storage.media_store import MediaStore
    from .settings import SettingsService
    from .transcription import TranscriptionService

log = logging.getLogger(__name__)

MAX_MB_KEY = "attachments.max_mb"
DEFAULT_MAX_MB = 8
#: Pending references older than this were left by a crash, not a live composer.
PENDING_MAX_AGE_SECONDS = 24 * 3600.0


@dataclass(frozen=True, slots=True)
class PreparedAttachment:
    """A validated file held by the composer. ``document`` has the extracted
    text (or the image facts and thumbnail) for the chip and the request."""

    pending_id: str
    attachment: Attachment
    document: Document

    @property
    def name(self) -> str:
        return self.attachment.name

    @property
    def sha256(self) -> str:
        return self.attachment.sha256

    @property
    def is_image(self) -> bool:
        return self.attachment.is_image


@dataclass(frozen=True, slots=True)
class CollectReport:
    expired_pending: int = 0
    removed: list[Path] = field(default_factory=list)


class AttachmentService:
    def __init__(
        self,
        media: MediaStore,
        settings: SettingsService,
        transcription: TranscriptionService | None = None,
    ) -> None:
        self._media = media
        self._settings = settings
        self._transcription = transcription

    async def max_bytes(self) -> int:
        value = await self._settings.get(MAX_MB_KEY, DEFAULT_MAX_MB)
        try:
            megabytes = float(value)
        except (TypeError, ValueError):
            log.warning("ignoring invalid %s setting %r", MAX_MB_KEY, value)
            megabytes = DEFAULT_MAX_MB
        return int(max(megabytes, 0.001) * MB)

    async def prepare(self, path: str | Path) -> PreparedAttachment:
        """Read, validate and hold a file; raises ``ReaderError`` with the reason."""
        path = Path(path)
        limit = await self.max_bytes()
        data = await asyncio.to_thread(read_file_bytes, path, max_bytes=limit)
        return await self._prepare(data, path.name, limit)

    async def prepare_data(self, data: bytes, name: str) -> PreparedAttachment:
        """The same for content without a file (a pasted image)."""
        return await self._prepare(data, name, await self.max_bytes())

    async def prepare_workspace_file(self, root: str | Path, relative: str) -> PreparedAttachment:
        """A file chosen in the ``@`` picker (refused if it lies outside ``root``)."""
        path = await asyncio.to_thread(resolve_workspace_file, root, relative)
        return await self.prepare(path)

    async def _prepare(self, data: bytes, name: str, limit: int) -> PreparedAttachment:
        if is_audio(name):
            document = await self._transcribed(data, name)
        else:
            document = await _read_cancellable(data, name, limit)
        sha256, pending_id = await self._media.put_pending(data, document.mime)
        attachment = Attachment(
            sha256=sha256,
            name=name,
            mime=document.mime,
            kind="image" if document.kind == "image" else "file",
            size=document.size,
            info=document.summary(),
        )
        log.info("prepared attachment %s (%s, %d bytes)", name, document.kind, document.size)
        return PreparedAttachment(pending_id, attachment, document)

    async def _transcribed(self, data: bytes, name: str) -> Document:
        """An audio file as the words said in it (the transcription service
        refuses an empty or too large file and says why it cannot work)."""
        if self._transcription is None:
            raise RuntimeError("audio attachments need the transcription service")
        sha256 = await asyncio.to_thread(lambda: hashlib.sha256(data).hexdigest())
        text = await self._media.kept_transcript(sha256)  # attached before: not paid twice
        if text is None:
            text = (await self._transcription.transcribe(data, name)).text
        mime = AUDIO_TYPES[Path(name).suffix.lower()]
        return Document(name, mime, "audio", len(data), sha256, text=text)

    async def discard(self, prepared: PreparedAttachment) -> None:
        """The chip was removed (or the draft abandoned)."""
        await self._media.discard_pending(prepared.pending_id)

    async def attach_to_message(
        self, message_id: str, prepared: list[PreparedAttachment]
    ) -> list[Attachment]:
        """Write the parts of an already saved message; returns them with ids."""
        if not prepared:
            return []
        return await self._media.attach(
            message_id, [(p.pending_id, p.attachment) for p in prepared]
        )

    async def attachments(self, message_ids: list[str]) -> dict[str, list[Attachment]]:
        return await self._media.attachments(message_ids)

    async def load_document(self, attachment: Attachment) -> Document:
        """Read a stored attachment again (its text for a later request); an
        audio file's is the transcript kept with it (one without — kept by an
        older export — is written down again)."""
        if is_audio(attachment.name) or attachment.info.get("kind") == "audio":
            kept = audio_document(attachment)
            if kept.text or self._transcription is None:
                return kept
            data = await self._media.read(attachment.sha256)
            return await self._transcribed(data, attachment.name)
        data = await self._media.read(attachment.sha256)
        return await asyncio.to_thread(
            read_document_bytes, data, attachment.name, max_bytes=max(len(data), 1)
        )

    async def read_bytes(self, attachment: Attachment) -> bytes:
        """The stored content of an attachment (an image for a vision request)."""
        return await self._media.read(attachment.sha256)

    async def release_message_media(self, message_ids: list[str]) -> list[Path]:
        """Messages deleted for good: drop their parts' references and files."""
        return await self._media.release_messages(message_ids)

    async def collect(self) -> CollectReport:
        """Start-up clean-up: stale pending references, then garbage collection."""
        from .process_owner import owner_alive

        expired = await self._media.expire_pending(PENDING_MAX_AGE_SECONDS, owner_alive)
        removed: list[Path] = []
        if expired:
            log.info("released %d attachment(s) left pending by an earlier run", len(expired))
            removed += await self._media.collect_garbage(only=expired)
        removed += await self._media.collect_garbage()
        return CollectReport(expired_pending=len(expired), removed=removed)

    async def search_workspace_files(
        self, root: str | Path, keyword: str, limit: int = 20
    ) -> list[str]:
        return await search_workspace_files(root, keyword, limit)


__all__ = [
    "AttachmentService",
    "CollectReport",
    "PreparedAttachment",
    "search_workspace_files",
]


def is_audio(name: str) -> bool:
    """A file speech-to-text takes (by its extension)."""
    return Path(name).suffix.lower() in AUDIO_TYPES


def audio_document(attachment: Attachment) -> Document:
    """An attached audio file as its kept transcript."""
    transcript = attachment.info.get("transcript")
    return Document(
        attachment.name,
        attachment.mime,
        "audio",
        attachment.size,
        attachment.sha256,
        text=transcript if isinstance(transcript, str) else "",
    )


async def _read_cancellable(data: bytes, name: str, limit: int) -> Document:
    """``read_document_bytes`` in a worker thread that stops at the reader's
    next page, sheet or slide once the awaiting task is cancelled (a chip
    removed, Ctrl+C), instead of reading on alone up to its time limit."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(
            read_document_bytes, data, name, max_bytes=limit, cancel=stop.is_set
        )
    except asyncio.CancelledError:
        stop.set()
        raise
