"""Batch export: a ZIP with one file per thread (PRODUCT.md §8 batch mode, §9),
and the threads' attachments under ``attachments/`` (each content once; one
whose file is gone is left out, its thread's file still names it).

:func:`write_zip` is the blocking job (run it in a worker thread): it reads
threads in batches, renders each, and writes the archive to a hidden
``.part`` file beside the target, renamed into place only when every thread
is in. Cancellation (the ``cancelled`` callable, checked between threads) or
any error deletes the part file: a cancelled export leaves no ZIP behind."""

from __future__ import annotations

import logging
import os
import secrets
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...core.transfer import ThreadSnapshot
from .files import attachment_entry, thread_filename

log = logging.getLogger(__name__)

BATCH = 50


@dataclass(frozen=True, slots=True)
class ExportProgress:
    """``done`` of ``total`` threads written; ``title`` of the last one."""

    done: int
    total: int
    title: str = ""


@dataclass(frozen=True, slots=True)
class ZipExportResult:
    """``path`` is None when the export was cancelled (nothing was written)."""

    path: Path | None
    exported: int
    total: int
    cancelled: bool = False
    seconds: float = 0.0
    attachments: int = 0

    def to_dict(self) -> dict[str, object]:
        return {
            "path": str(self.path) if self.path else None,
            "exported": self.exported,
            "total": self.total,
            "cancelled": self.cancelled,
            "attachments": self.attachments,
        }


Reader = Callable[[Sequence[str]], list[ThreadSnapshot]]
Renderer = Callable[[ThreadSnapshot], str]
#: an attachment's stored bytes by hash (None: its file is not there)
MediaReader = Callable[[str], "bytes | None"]


class _Names:
    """Unique entry names inside one archive."""

    def __init__(self) -> None:
        self._used: set[str] = set()

    def take(self, snapshot: ThreadSnapshot, ext: str) -> str:
        name = thread_filename(snapshot.thread.title, snapshot.thread.id, ext)
        stem, number = name[: -len(ext) - 1], 2
        while name.lower() in self._used:
            name, number = f"{stem}-{number}.{ext}", number + 1
        self._used.add(name.lower())
        return name


def _part_path(target: Path) -> Path:
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}.part")


def write_zip(
    target: Path,
    thread_ids: Sequence[str],
    read: Reader,
    render: Renderer,
    ext: str,
    *,
    progress: Callable[[ExportProgress], None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    batch: int = BATCH,
    media: MediaReader | None = None,
) -> ZipExportResult:
    """Write every thread into ``target`` (replacing it only on success);
    with ``media``, their attachments' files too."""
    part = _part_path(target)
    names, done, total = _Names(), 0, len(thread_ids)
    written: set[str] = set()
    finished = False
    try:
        with zipfile.ZipFile(
            part, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6
        ) as archive:
            for start in range(0, total, batch):
                if cancelled():
                    return ZipExportResult(None, done, total, cancelled=True)
                for snapshot in read(thread_ids[start : start + batch]):
                    if cancelled():
                        return ZipExportResult(None, done, total, cancelled=True)
                    archive.writestr(names.take(snapshot, ext), render(snapshot))
                    if media is not None:
                        _write_attachments(archive, snapshot, media, written)
                    done += 1
                    if progress is not None:
                        progress(ExportProgress(done, total, snapshot.thread.title))
        os.replace(part, target)
        finished = True
        return ZipExportResult(target, done, total, attachments=len(written))
    finally:
        if not finished:
            part.unlink(missing_ok=True)
            log.info("zip export to %s stopped after %d of %d thread(s)", target, done, total)


def _write_attachments(
    archive: zipfile.ZipFile, snapshot: ThreadSnapshot, media: MediaReader, written: set[str]
) -> None:
    for records in snapshot.attachments.values():
        for record in records:
            if not record.available or record.sha256 in written:
                continue
            data = media(record.sha256)
            if data is None:
                continue
            archive.writestr(attachment_entry(record.sha256, record.name), data)
            written.add(record.sha256)
