"""Another data folder, chosen in Settings (PRODUCT.md §12, "data folder
location"), switched to at the window's next start.

Settings only *records* the switch (``paths.switch_file()``: from which folder
to which). The copy happens at the next start of the window, before anything
opens the database (``apply_switch``, called by ``bootstrap``): the window of
the old folder is closed by then, so the copy holds everything written up to
the last moment — a copy made while Mira runs would miss whatever the running
window writes after it, until the restart. An empty folder gets the database
(SQLite's backup), the attachments' files and the key file; a folder Mira used
before is taken as it is; any other non-empty folder is refused, and so is a
folder inside the current one or holding it. While it runs, the copy carries
a marker (``COPYING_MARKER``): a folder with the marker is an unfinished copy,
never trusted as Mira's data, emptied and copied again. Choosing the current
folder again cancels a switch not yet made. ``--data-dir`` and
``MIRA_DATA_DIR`` still win: a start naming its folder so leaves the switch
for a later start. The current folder is left as it was: people delete it
themselves once they are sure."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import ConfigError, MiraError, StorageError, worded
from ..paths import choose_data_dir, switch_file

log = logging.getLogger(__name__)

DB_FILENAME = "mira.sqlite3"  # the file a Mira data folder holds (storage.database)
#: in a folder while the data are copied into it: removed once the copy is complete
COPYING_MARKER = ".mira-copy-unfinished"
#: what a copy takes along besides the database: attachments and the key file
_ALONG = ("media", "secrets.json")
_OUTSIDE_HINT = "Choose a folder outside the current data folder, and not one that holds it."


@dataclass(frozen=True, slots=True)
class FolderChange:
    """A switch chosen in Settings: to ``folder`` at the next start, copying
    the current data there (``copy``) or taking the data it holds;
    ``cancelled``: a pending switch to ``folder`` was cancelled instead."""

    folder: Path
    copy: bool = False
    cancelled: bool = False


@dataclass(frozen=True, slots=True)
class FolderSwitch:
    """A switch made (or failed, ``error``) at a start: the folder the start
    uses (``folder``), the one it was asked to leave (``previous``)."""

    folder: Path
    previous: Path
    target: Path
    copied: bool = False
    error: MiraError | None = None


class CopyProgress:
    """How far the copy of a switch is, read by the window's start while
    another thread copies: ``done`` of ``total`` bytes (the database counted
    by its pages as SQLite's backup goes). Plain attribute writes: the reader
    only shows them."""

    __slots__ = ("_database", "_files", "total")

    def __init__(self) -> None:
        self.total = 0
        self._database = 0
        self._files = 0

    @property
    def done(self) -> int:
        return min(self.total, self._database + self._files)

    def database_pages(self, copied: int, pages: int, size: int) -> None:
        """The backup copied ``copied`` of ``pages`` pages of a ``size``-byte file."""
        self._database = size * copied // pages if pages else size

    def file_copied(self, size: int) -> None:
        self._files += size


def is_mira_folder(folder: Path) -> bool:
    """A folder holding Mira's data, and not an unfinished copy of them."""
    return (folder / DB_FILENAME).is_file() and not (folder / COPYING_MARKER).exists()


class DataFolderService:
    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir

    @property
    def data_dir(self) -> Path:
        return self._data_dir

    def pending(self) -> FolderChange | None:
        """The switch from this folder waiting for the next start, if any."""
        record = read_switch()
        if record is None or record[0] != self._data_dir.resolve():
            return None
        return FolderChange(record[1], copy=record[2])

    def plan(self, folder: Path) -> FolderChange:
        """What choosing ``folder`` does, without doing it; raises
        ``ConfigError`` for a folder Mira cannot switch to. Choosing the
        current folder cancels a pending switch (none pending: an error)."""
        target = folder.expanduser().resolve()
        current = self._data_dir.resolve()
        if target == current:
            pending = self.pending()
            if pending is None:
                raise ConfigError("Mira already uses this folder.")
            return FolderChange(pending.folder, copy=pending.copy, cancelled=True)
        return FolderChange(target, copy=_check_target(current, target))

    async def change_to(self, folder: Path, *, language: str = "system") -> FolderChange:
        """Record the switch to ``folder`` for the next start (or cancel the
        pending one, see ``plan``); ``language``: the one the start shows the
        copy's progress in (the settings are in the database being copied).
        Raises ``ConfigError`` for a folder it cannot use and ``StorageError``
        for one it cannot write to."""
        change = self.plan(folder)
        if change.cancelled:
            await asyncio.to_thread(clear_switch)
            log.info("the switch to %s is cancelled", change.folder)
            return change
        if change.copy:
            await asyncio.to_thread(_probe_writable, change.folder)
        await asyncio.to_thread(
            write_switch, self._data_dir.resolve(), change.folder, change.copy, language
        )
        log.info("switching to %s (copy: %s) at the next start", change.folder, change.copy)
        return change


def _check_target(current: Path, target: Path) -> bool:
    """Whether the data are to be copied into ``target`` (False: it holds
    Mira's data already); raises ``ConfigError`` when it cannot be used."""
    if target.is_relative_to(current) or current.is_relative_to(target):
        # Inside: the copy would copy itself, and deleting the old folder the new one.
        template = (
            '"{folder}" is inside the current data folder "{current}".'
            if target.is_relative_to(current)
            else '"{folder}" holds the current data folder "{current}".'
        )
        raise worded(
            ConfigError, template, {"folder": target, "current": current}, hint=_OUTSIDE_HINT
        )
    if is_mira_folder(target):
        return False
    if not _is_empty(target):
        raise worded(
            ConfigError,
            '"{folder}" is not empty and holds no Mira data.',
            {"folder": target},
            hint="Choose an empty folder, or a folder Mira used before.",
        )
    return True


def _is_empty(folder: Path) -> bool:
    """Missing, empty, or an unfinished copy (emptied before it is copied again)."""
    if not folder.exists():
        return True
    if not folder.is_dir():
        return False
    return (folder / COPYING_MARKER).exists() or not any(folder.iterdir())


def _probe_writable(folder: Path) -> None:
    """Fail now, not at the next start, for a folder Mira cannot write to."""
    probe = folder / COPYING_MARKER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        existed = probe.exists()
        probe.touch()
        if not existed:
            probe.unlink()
    except OSError as exc:
        raise worded(
            StorageError,
            'Cannot write to "{folder}": {detail}',
            {"folder": folder, "detail": exc.strerror or exc},
        ) from exc


# ---- the record of a pending switch -------------------------------------------------
def read_switch() -> tuple[Path, Path, bool] | None:
    """``(from, to, copy)`` of the switch waiting for the next start."""
    try:
        data = json.loads(switch_file().read_text(encoding="utf-8"))
        return Path(data["from"]), Path(data["to"]), bool(data["copy"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring an unreadable data folder switch: %s", exc)
        return None


def switch_language() -> str:
    """The language the switch waiting for the next start was chosen in
    ("system" when it does not say)."""
    try:
        language = json.loads(switch_file().read_text(encoding="utf-8")).get("language")
    except (OSError, ValueError, AttributeError):
        return "system"
    return language if isinstance(language, str) else "system"


def write_switch(source: Path, target: Path, copy: bool, language: str = "system") -> None:
    path = switch_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    record = {"from": str(source), "to": str(target), "copy": copy, "language": language}
    partial.write_text(json.dumps(record), encoding="utf-8")
    partial.replace(path)


def clear_switch() -> None:
    try:
        switch_file().unlink(missing_ok=True)
    except OSError as exc:
        log.error("cannot remove %s: %s", switch_file(), exc)


def _remember(target: Path) -> None:
    try:
        choose_data_dir(target)
    except OSError as exc:
        raise worded(
            StorageError,
            'Cannot write to "{folder}": {detail}',
            {"folder": switch_file().parent, "detail": exc.strerror or exc},
        ) from exc


# ---- the switch, at the window's start ------------------------------------------------
#: ``copy_database(source, target, on_pages)``: the closed database copied,
#: ``on_pages(copied, total)`` called as its pages are
CopyDatabase = Callable[[Path, Path, Callable[[int, int], None] | None], object]


def apply_switch(
    data_dir: Path, copy_database: CopyDatabase, progress: CopyProgress | None = None
) -> FolderSwitch | None:
    """Make the switch recorded from ``data_dir`` (None when there is none).

    Called before anything opens ``data_dir``'s database, by the window's
    start holding its folder's window lock (no other window writes it).
    ``copy_database`` copies a closed database file; ``progress`` (when
    given) follows the copy, for a window that shows it. On
    success the new folder is remembered (``paths.choose_data_dir``); on
    failure the current folder stays in use and nothing is left in the target.
    Either way the record is dropped: the start says what happened."""
    record = read_switch()
    if record is None:
        return None
    source, target, copy = record
    current = data_dir.resolve()
    if source != current:
        log.warning("dropping a switch from %s: this start uses %s", source, current)
        clear_switch()
        return None
    try:
        copied = _switch(current, target, copy, copy_database, progress or CopyProgress())
        _remember(target)
    except MiraError as exc:
        log.error("could not switch to the data folder %s: %s", target, exc)
        clear_switch()
        return FolderSwitch(current, current, target, error=exc)
    clear_switch()
    log.info("switched from the data folder %s to %s (copied: %s)", current, target, copied)
    return FolderSwitch(target, current, target, copied=copied)


def _switch(
    current: Path, target: Path, copy: bool, copy_database: CopyDatabase, progress: CopyProgress
) -> bool:
    if is_mira_folder(target):  # the folder chosen, or a copy finished before a crash
        return False
    if not copy:
        raise worded(ConfigError, '"{folder}" no longer holds Mira data.', {"folder": target})
    _check_target(current, target)  # again: it may have changed since it was chosen
    try:
        _copy_folder(current, target, copy_database, progress)
    except (OSError, StorageError) as exc:
        _empty(target)
        if isinstance(exc, StorageError):
            raise
        raise worded(
            StorageError,
            'Could not copy the data to "{folder}": {detail}',
            {"folder": target, "detail": exc},
        ) from exc
    return True


def _copy_folder(
    source: Path, target: Path, copy_database: CopyDatabase, progress: CopyProgress
) -> None:
    """Copy the data, the marker first and removed last: a copy cut short
    (the process killed, the disk full) is never taken as Mira's data."""
    database = source / DB_FILENAME
    database_size = _size(database) + _size(database.with_name(DB_FILENAME + "-wal"))
    progress.total = database_size + sum(_tree_sizes(source / name) for name in _ALONG)
    target.mkdir(parents=True, exist_ok=True)
    if (target / COPYING_MARKER).exists():
        _empty(target)  # an unfinished copy of an earlier start
    (target / COPYING_MARKER).write_text(f"copying from {source}\n", encoding="utf-8")
    copy_database(
        database,
        target / DB_FILENAME,
        lambda copied, pages: progress.database_pages(copied, pages, database_size),
    )
    progress.database_pages(1, 1, database_size)

    def copy_counted(src: str, dst: str) -> object:
        done = shutil.copy2(src, dst)  # the key file keeps its owner-only mode
        progress.file_copied(_size(Path(src)))
        return done

    for name in _ALONG:
        path = source / name
        if path.is_dir():
            shutil.copytree(path, target / name, dirs_exist_ok=True, copy_function=copy_counted)
        elif path.is_file():
            copy_counted(str(path), str(target / name))
    (target / COPYING_MARKER).unlink()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _tree_sizes(path: Path) -> int:
    """Bytes of the files under ``path`` (a file: its own)."""
    if not path.is_dir():
        return _size(path)
    return sum(_size(Path(folder, name)) for folder, _, names in os.walk(path) for name in names)


def _empty(target: Path) -> None:
    """Undo a copy (the folder was empty before, or held an unfinished copy)."""
    if not target.is_dir():
        return
    for path in target.iterdir():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
