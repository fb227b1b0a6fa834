"""The attachments a Mira ZIP export carries (``attachments/{hash}-{name}``,
``services/export/files.attachment_entry``), put back into the media store
on import, so a thread moved to another machine through a ZIP keeps its
files. An entry is taken only when its bytes hash to the attachment's
SHA-256 (a damaged or altered file is left out, and its attachment stays a
"not in this library" note); entries over ``MAX_ENTRY`` bytes are left out
unread. Blocking reads: call from a worker thread."""

from __future__ import annotations

import hashlib
import logging
import zipfile
from collections.abc import Sequence
from pathlib import Path

from ...core.transfer import AttachmentRecord, ThreadImport
from ..export.files import attachment_entry

log = logging.getLogger(__name__)

#: largest attachment read back from an archive (bytes)
MAX_ENTRY = 512 * 1024 * 1024


def carried(threads: Sequence[ThreadImport]) -> list[AttachmentRecord]:
    """Each attachment of ``threads`` once (by content)."""
    seen: dict[str, AttachmentRecord] = {}
    for thread in threads:
        for records in thread.attachments.values():
            for record in records:
                seen.setdefault(record.sha256, record)
    return list(seen.values())


class ArchiveFiles:
    """The attachments of one archive, read one at a time (each read in a
    worker thread, one after another: the archive's directory is read once,
    not for every file). Close it when done."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._archive = zipfile.ZipFile(path)

    def read(self, record: AttachmentRecord) -> bytes | None:
        """The bytes of ``record``; None when they are not in the archive,
        too large, unreadable, or not the same content."""
        entry = attachment_entry(record.sha256, record.name)
        try:
            info = self._archive.getinfo(entry)
        except KeyError:
            return None
        if info.file_size > MAX_ENTRY:
            log.warning(
                "%s: %s is too large to restore (%d bytes)", self._path, entry, info.file_size
            )
            return None
        try:
            data = self._archive.read(info)
        except (OSError, zipfile.BadZipFile) as exc:
            log.warning("%s: cannot read %s (%s)", self._path, entry, exc)
            return None
        if hashlib.sha256(data).hexdigest() != record.sha256:
            log.warning("%s: %s is not the attachment it names (hash differs)", self._path, entry)
            return None
        return data

    def close(self) -> None:
        self._archive.close()
