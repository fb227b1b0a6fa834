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
#: where a ZIP export puts attachments (``attachments/{sha256[:12]}-{name}``)
ENTRY_PREFIX = "attachments/"


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
        # an entry is named after the hash and *one* of the names its content
        # was attached under: found by the hash's prefix whatever the name
        self._by_prefix: dict[str, list[zipfile.ZipInfo]] = {}
        for info in self._archive.infolist():
            prefix = info.filename[: len(ENTRY_PREFIX) + 13]
            if info.filename.startswith(ENTRY_PREFIX) and prefix.endswith("-"):
                self._by_prefix.setdefault(prefix, []).append(info)

    def read(self, record: AttachmentRecord) -> bytes | None:
        """The bytes of ``record``; None when they are not in the archive,
        too large, unreadable (damaged, encrypted…), or not the same content."""
        named = attachment_entry(record.sha256, record.name)
        entries = self._by_prefix.get(named[: len(ENTRY_PREFIX) + 13], [])
        entries = sorted(entries, key=lambda info: info.filename != named)  # its own name first
        for info in entries:
            data = self._read(info)
            if data is not None and hashlib.sha256(data).hexdigest() == record.sha256:
                return data
        if entries:
            log.warning("%s: no entry for %s holds its content", self._path, named)
        return None

    def _read(self, info: zipfile.ZipInfo) -> bytes | None:
        if info.file_size > MAX_ENTRY:
            log.warning(
                "%s: %s is too large to restore (%d bytes)",
                self._path,
                info.filename,
                info.file_size,
            )
            return None
        try:
            return self._archive.read(info)
        except Exception as exc:  # damaged (zlib, EOF), encrypted, unknown compression…
            log.warning("%s: cannot read %s (%s)", self._path, info.filename, exc)
            return None

    def close(self) -> None:
        self._archive.close()
