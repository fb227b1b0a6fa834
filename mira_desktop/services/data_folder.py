"""``DataFolderService``: another data folder, chosen in Settings (PRODUCT.md
§12, "data folder location"), used from Mira's next start.

The running window holds its database open, so the switch happens at the next
start (``paths.resolve_data_dir`` reads the choice; ``--data-dir`` and
``MIRA_DATA_DIR`` still win). An empty folder gets a copy of the current data
first — the database copied consistently while Mira runs (SQLite's backup),
the attachments' files and the key file when there is one; a folder Mira used
before is taken as it is; any other non-empty folder is refused. The current
folder is left as it was: people delete it themselves once they are sure."""

from __future__ import annotations

import asyncio
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import ConfigError, StorageError, worded
from ..paths import choose_data_dir

if TYPE_CHECKING:
    from ..storage.store import Store

log = logging.getLogger(__name__)

DB_FILENAME = "mira.sqlite3"  # the file a Mira data folder holds (storage.database)
#: what a copy takes along besides the database: attachments and the key file
_ALONG = ("media", "secrets.json")


@dataclass(frozen=True, slots=True)
class FolderChange:
    """The folder Mira uses from its next start; ``copied``: the current data
    were copied there (False: it already held Mira's data)."""

    folder: Path
    copied: bool


class DataFolderService:
    def __init__(self, store: Store, data_dir: Path) -> None:
        self._store = store
        self._data_dir = data_dir

    @property
    def data_dir(self) -> Path:
        return self._data_dir

    async def change_to(self, folder: Path) -> FolderChange:
        """Use ``folder`` from the next start, copying the data there when it
        is empty. Raises ``ConfigError`` for a folder it cannot use and
        ``StorageError`` when the copy fails (nothing is left half-copied)."""
        target = folder.expanduser().resolve()
        if target == self._data_dir.resolve():
            raise ConfigError("Mira already uses this folder.")
        if (target / DB_FILENAME).is_file():
            await asyncio.to_thread(choose_data_dir, target)
            return FolderChange(target, copied=False)
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise worded(
                ConfigError,
                '"{folder}" is not empty and holds no Mira data.',
                {"folder": target},
                hint="Choose an empty folder, or a folder Mira used before.",
            )
        try:
            await self._copy_into(target)
        except (OSError, StorageError) as exc:
            await asyncio.to_thread(_empty, target)
            if isinstance(exc, StorageError):
                raise
            raise worded(
                StorageError,
                'Could not copy the data to "{folder}": {detail}',
                {"folder": target, "detail": exc},
            ) from exc
        await asyncio.to_thread(choose_data_dir, target)
        log.info("the data were copied to %s, used from the next start", target)
        return FolderChange(target, copied=True)

    async def _copy_into(self, target: Path) -> None:
        await asyncio.to_thread(target.mkdir, parents=True, exist_ok=True)
        await self._store.copy_database_to(target / DB_FILENAME)
        await asyncio.to_thread(_copy_along, self._data_dir, target)


def _copy_along(source: Path, target: Path) -> None:
    for name in _ALONG:
        path = source / name
        if path.is_dir():
            shutil.copytree(path, target / name, dirs_exist_ok=True)
        elif path.is_file():
            shutil.copy2(path, target / name)  # the key file keeps its owner-only mode


def _empty(target: Path) -> None:
    """Undo a copy that failed half-way (the folder was empty before)."""
    if not target.is_dir():
        return
    for path in target.iterdir():
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
