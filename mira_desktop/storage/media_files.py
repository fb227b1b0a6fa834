"""The media folder on disk: content-addressed files ``<root>/<sha[:2]>/<sha>``.

Writing is two-step so a file is never seen half-written: :meth:`MediaFiles.stage`
writes the bytes to a temporary file in the final folder and fsyncs it;
:meth:`MediaFiles.commit` renames it into place (or drops it when the same
content is already there: same content, same file) and fsyncs the folder.
OS failures become :class:`~mira_desktop.core.errors.StorageError` with a clear
message, and leave no temporary file behind. This module knows nothing of the
database; ``media_repo`` decides when files may go."""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import StorageError

log = logging.getLogger(__name__)

TMP_PREFIX = ".tmp-"
_SHA = re.compile(r"^[0-9a-f]{64}$")
_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StagedFile:
    """Bytes written and synced to ``tmp_path``, not yet visible under their hash."""

    sha256: str
    size: int
    tmp_path: Path


@dataclass(frozen=True, slots=True)
class MediaEntry:
    """A file found in the media folder (see :meth:`MediaFiles.scan`)."""

    path: Path
    sha256: str | None  # None for a temporary file
    mtime: float


def is_sha256(text: str) -> bool:
    return bool(_SHA.match(text))


class MediaFiles:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, sha256: str) -> Path:
        if not is_sha256(sha256):
            raise ValueError(f"not a sha256 hex digest: {sha256!r}")
        return self.root / sha256[:2] / sha256

    def exists(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def read(self, sha256: str) -> bytes:
        try:
            return self.path(sha256).read_bytes()
        except FileNotFoundError as exc:
            raise StorageError(
                f"The stored file {sha256[:12]}… is missing from the media folder.",
                hint="Run `mira-desktop doctor` to check the data folder.",
            ) from exc
        except OSError as exc:
            raise _os_error(exc, "read a file from the media folder") from exc

    def stage(self, source: bytes | Path) -> StagedFile:
        """Write ``source`` (bytes, or a file to copy) next to its final place."""
        if isinstance(source, bytes | bytearray | memoryview):
            data = bytes(source)
            sha = hashlib.sha256(data).hexdigest()
            return self._write(sha, [data], len(data))
        sha, size = _hash_file(source)
        staged = self._write(sha, _chunks(source), size)
        if _hash_file(staged.tmp_path)[0] != sha:  # the source changed while we copied it
            self.discard(staged)
            raise StorageError(
                f'"{source.name}" changed while it was being stored.', hint="Attach it again."
            )
        return staged

    def commit(self, staged: StagedFile) -> Path:
        """Make the staged bytes visible under their hash (idempotent)."""
        final = self.path(staged.sha256)
        try:
            if final.is_file() and final.stat().st_size == staged.size:
                staged.tmp_path.unlink(missing_ok=True)  # same content: keep the one we have
                return final
            os.replace(staged.tmp_path, final)
            _fsync_dir(final.parent)
        except OSError as exc:
            self.discard(staged)
            raise _os_error(exc, "store a file in the media folder") from exc
        return final

    def discard(self, staged: StagedFile) -> None:
        try:
            staged.tmp_path.unlink(missing_ok=True)
        except OSError:
            log.warning("cannot remove temporary file %s", staged.tmp_path, exc_info=True)

    def remove(self, path: Path) -> bool:
        """Delete one file of the media folder; True when it was there."""
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise _os_error(exc, "remove a file from the media folder") from exc
        # The (at most 256) shard folders stay: removing an empty one could race
        # with a file being staged into it.
        return True

    def scan(self) -> Iterator[MediaEntry]:
        """Every content file and temporary file under the root (other names are
        left alone: they are not ours)."""
        if not self.root.is_dir():
            return
        for shard in self.root.iterdir():
            if not (len(shard.name) == 2 and shard.is_dir()):
                continue
            for entry in shard.iterdir():
                name = entry.name
                if is_sha256(name) and name.startswith(shard.name):
                    yield MediaEntry(entry, name, _mtime(entry))
                elif name.startswith(TMP_PREFIX):
                    yield MediaEntry(entry, None, _mtime(entry))

    def _write(self, sha: str, chunks: Iterator[bytes] | list[bytes], size: int) -> StagedFile:
        import uuid  # ~4 ms with platform: not before the first frame

        folder = self.path(sha).parent
        tmp = folder / f"{TMP_PREFIX}{uuid.uuid4().hex}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0))
            try:
                for chunk in chunks:
                    _write_all(fd, chunk)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            _unlink_quietly(tmp)
            raise _os_error(exc, f"store {_size(size)} in the media folder") from exc
        except BaseException:
            _unlink_quietly(tmp)
            raise
        return StagedFile(sha, size, tmp)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _hash_file(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise _os_error(exc, f'read "{path.name}"') from exc
    return digest.hexdigest(), size


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            yield chunk


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (POSIX); Windows cannot open folders, and needs not."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        log.debug("fsync of %s not supported", folder)
    finally:
        os.close(fd)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        log.warning("cannot remove temporary file %s", path, exc_info=True)


def _size(size: int) -> str:
    mb = 1024 * 1024
    return f"{size / mb:.1f} MB" if size >= mb // 10 else f"{max(size // 1024, 1)} KB"


def _os_error(exc: OSError, action: str) -> StorageError:
    """A person-readable StorageError for an OS failure while trying to ``action``."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return StorageError(
            f"The disk is full: could not {action}. Nothing was saved.",
            hint="Free some disk space, then try again.",
        )
    if exc.errno == errno.EFBIG:
        return StorageError(
            f"The file is too large for the disk: could not {action}. Nothing was saved.",
            hint="Free some space or raise the file size limit of the data folder's disk.",
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return StorageError(
            f"Mira is not allowed to write in the data folder: could not {action}.",
            hint="Check the permissions of the data folder (or choose another in Settings).",
        )
    return StorageError(f"Could not {action}: {exc.strerror or exc}.")
