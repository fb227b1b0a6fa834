"""``DoctorService``: the data check behind ``mira-desktop doctor`` and the
window's Help → Check data. It finds damage a crash, an old bug or a hand edit
can leave in the data folder, and repairs it on request:

* threads with no messages, threads whose workspace is missing, messages whose
  thread is missing (the thread is recreated: nothing typed is thrown away);
* messages whose parent is missing, in another thread, or part of a loop (the
  message then starts a branch of its own);
* threads whose active leaf is missing, in another thread or in the trash;
* answers left ``streaming`` by a process that is gone;
* media rows nobody refers to or whose reference count is wrong, files
  under ``media/ab/abcdef…`` without a row (recorded again when attachments
  still use them, else deleted), and attachments whose file is gone
  (reported: nothing can bring it back but the file itself);
* a damaged database file (SQLite's ``quick_check``): repaired by moving it to
  ``backups/`` and saving what can be read into a new one
  (``storage/salvage.py``), then checking and repairing that as above.

``fix()`` repairs everything in one database transaction and deletes files only
after it committed, then checks again; ``fix(dry_run=True)`` reports what it
would do and changes nothing. Anything younger than ``grace_seconds`` that
could be another window's work in progress (an empty thread, an unreferenced
media row or file) is left alone.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import StorageError
from ..core.ids import format_time, parse_time, utc_now
from .listeners import Listeners
from .process_owner import owner_alive as _owner_alive

if TYPE_CHECKING:
    from ..storage.doctor_repo import Finding
    from ..storage.salvage import SalvageReport
    from ..storage.store import Store

log = logging.getLogger(__name__)

GRACE_SECONDS = 900.0
_SHA256 = re.compile(r"[0-9a-f]{64}")
_BRANCH_OF_ITS_OWN = "make the message the start of a branch of its own"

FIXES: dict[str, str] = {
    "empty_thread": "delete the empty thread",
    "thread_workspace_missing": "move the thread to Mira BASE",
    "message_thread_missing": "recreate the thread as “Recovered conversation” in Mira BASE",
    "message_parent_missing": _BRANCH_OF_ITS_OWN,
    "message_parent_other_thread": _BRANCH_OF_ITS_OWN,
    "message_parent_cycle": "break the loop here: " + _BRANCH_OF_ITS_OWN,
    "active_leaf_invalid": "make the thread's newest live message its active one",
    "streaming_leftover": "mark the answer as stopped (its text is kept)",
    "media_unreferenced": "delete the media row and its file",
    "media_count_mismatch": "set the reference count to the real number",
    "media_file_orphan": "delete the file",
    "media_row_missing": "record the file again, counting the attachments that use it",
    "media_file_missing": "none: put the file back at that place to restore the attachment",
    "database_damaged": (
        "move the damaged file to the backups folder and save what can still be read"
        " into a new database"
    ),
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem: ``code`` (stable, see ``FIXES``), the id it is about
    (thread, message or media hash), a sentence for people, and the fix."""

    code: str
    subject: str
    thread_id: str | None
    detail: str
    fix: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "subject": self.subject,
            "thread_id": self.thread_id,
            "detail": self.detail,
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class DoctorReport:
    """``mode`` is ``check``, ``dry-run`` or ``fix``. ``actions`` are the repairs
    done (fix) or that would be done (dry-run); ``remaining`` is what is still
    wrong afterwards (the same as ``problems`` unless fixed)."""

    mode: str
    problems: tuple[Problem, ...]
    actions: tuple[str, ...]
    remaining: tuple[Problem, ...]
    #: what saving a damaged database did (a fix that had to)
    salvage: SalvageReport | None = None

    @property
    def healthy(self) -> bool:
        return not self.remaining

    def to_dict(self) -> dict[str, Any]:
        data = {
            "mode": self.mode,
            "healthy": self.healthy,
            "problems": [p.to_dict() for p in self.problems],
            "actions": list(self.actions),
            "remaining": [p.to_dict() for p in self.remaining],
        }
        if self.salvage is not None:
            data["salvage"] = self.salvage.to_dict()
        return data


class DoctorService(Listeners):
    """Listeners (``add_listener``) are called with no argument after a
    repair that changed something."""

    def __init__(
        self,
        store: Store,
        media_dir: Path,
        *,
        owner_alive: Callable[[str | None], bool] = _owner_alive,
        grace_seconds: float = GRACE_SECONDS,
    ) -> None:
        super().__init__()
        self._store = store
        self._media_dir = media_dir
        self._owner_alive = owner_alive
        self._grace = grace_seconds

    async def check(self) -> DoctorReport:
        problems = await self._find()
        return DoctorReport("check", problems, (), problems)

    async def fix(
        self, *, dry_run: bool = False, salvaged: SalvageReport | None = None
    ) -> DoctorReport:
        """Repair what is found. ``salvaged``: a salvage already done before
        the database could be opened (reported with this fix)."""
        problems = await self._find()
        actions = [f"{p.fix} ({p.subject})" for p in problems if p.code != "media_file_missing"]
        if dry_run:
            return DoctorReport("dry-run", problems, tuple(actions), problems)
        salvage = salvaged
        if any(p.code == "database_damaged" for p in problems):  # found open
            salvage = await self._store.salvage()
            found = await self._find()  # in the new database
            problems = (*problems, *found)
            actions += [f"{p.fix} ({p.subject})" for p in found if p.code != "media_file_missing"]
            await self._repair(found)
        else:
            await self._repair(problems)
        if actions or salvage is not None:
            self.announce()  # stored: the window reloads what it shows
        remaining = await self._find()
        return DoctorReport("fix", problems, tuple(actions), remaining, salvage)

    async def _repair(self, problems: tuple[Problem, ...]) -> None:
        if not problems:
            return
        repairs: dict[str, Any] = dict(_repairs(problems))
        kept = [p.subject for p in problems if p.code == "media_row_missing"]
        if kept:
            repairs["recreate_media"] = await asyncio.to_thread(_sizes, self._media_dir, kept)
        deleted_rows = await self._store.apply_repairs(repairs)
        orphans = [p.subject for p in problems if p.code == "media_file_orphan"]
        await self._delete_files([*deleted_rows, *orphans])
        log.info("doctor repaired %d problem(s)", len(problems))

    async def _find(self) -> tuple[Problem, ...]:
        damage = await self._damage()
        if damage is not None:  # the scans below would read damaged pages
            return (damage,)
        cutoff = format_time(parse_time(utc_now()) - timedelta(seconds=self._grace))
        try:
            findings = await self._store.doctor_scan(cutoff)
        except StorageError as exc:
            if not exc.damaged:
                raise
            return (damaged_problem(exc.message),)
        problems = [_problem(f) for f in findings if self._is_problem(f)]
        problems += await self._orphan_files()
        problems += await self._missing_files()
        return tuple(problems)

    async def _damage(self) -> Problem | None:
        try:
            lines = await self._store.quick_check()
        except StorageError as exc:
            if not exc.damaged:
                raise
            return damaged_problem(exc.message)
        if lines == ["ok"]:
            return None
        found = [line.strip() for text in lines for line in text.splitlines() if line.strip()]
        found = [line for line in found if not line.startswith("***")] or found
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        return damaged_problem(f"SQLite's check found damage: {found[0]}{more}")

    async def _missing_files(self) -> list[Problem]:
        referenced = await self._store.referenced_media()
        media = self._media_dir
        missing = await asyncio.to_thread(
            lambda: [sha for sha in referenced if not (media / sha[:2] / sha).is_file()]
        )
        return [
            Problem(
                "media_file_missing",
                sha,
                None,
                f'The file of the attachment "{referenced[sha]}" (media/{sha[:2]}/{sha}) is'
                " missing; the attachment shows as unavailable.",
                FIXES["media_file_missing"],
            )
            for sha in sorted(missing)
        ]

    def _is_problem(self, finding: Finding) -> bool:
        if finding.code == "streaming_leftover":
            return not self._owner_alive(finding.data.get("owner"))
        return True

    async def _orphan_files(self) -> list[Problem]:
        """Files without a media row: deleted, unless an attachment still uses
        one (its row was lost — a damaged page, a salvage): that one is
        recorded again, never deleted."""
        files = await asyncio.to_thread(_media_files, self._media_dir, time.time() - self._grace)
        rowless = sorted(set(files) - await self._store.known_media(sorted(files)))
        used = await self._store.used_media(rowless)
        return [
            Problem(
                "media_row_missing",
                sha,
                None,
                f"The file media/{sha[:2]}/{sha} has no media row, but attachments use it.",
                FIXES["media_row_missing"],
            )
            if sha in used
            else Problem(
                "media_file_orphan",
                sha,
                None,
                f"The file media/{sha[:2]}/{sha} has no media row.",
                FIXES["media_file_orphan"],
            )
            for sha in rowless
        ]

    async def _delete_files(self, hashes: list[str]) -> None:
        """Remove the files of hashes that (still) have no row: content is
        shared by hash, so a row re-added meanwhile keeps its file."""
        known = await self._store.known_media(hashes)
        paths = [self._media_dir / sha[:2] / sha for sha in hashes if sha not in known]
        await asyncio.to_thread(_unlink_all, paths)


def damaged_problem(detail: str) -> Problem:
    """The problem of a damaged database file (``detail``: what SQLite said)."""
    return Problem("database_damaged", "database", None, detail, FIXES["database_damaged"])


def _problem(finding: Finding) -> Problem:
    return Problem(
        finding.code, finding.subject, finding.thread_id, finding.detail, FIXES[finding.code]
    )


_REPAIR_OF: dict[str, str] = {
    "empty_thread": "delete_empty_threads",
    "thread_workspace_missing": "rehome_threads",
    "message_thread_missing": "recreate_threads",
    "message_parent_missing": "detach_messages",
    "message_parent_other_thread": "detach_messages",
    "message_parent_cycle": "detach_messages",
    "active_leaf_invalid": "repair_leaves",
    "streaming_leftover": "stop_streaming",
    "media_unreferenced": "recount_media",
    "media_count_mismatch": "recount_media",
}


def _repairs(problems: tuple[Problem, ...]) -> dict[str, list[str]]:
    """The database repairs, by kind (``storage.doctor_repo.Repairs`` fields);
    orphan files need none."""
    repairs: dict[str, list[str]] = {}
    for problem in problems:
        kind = _REPAIR_OF.get(problem.code)
        if kind is not None:
            repairs.setdefault(kind, []).append(problem.subject)
    return repairs


def _media_files(media_dir: Path, older_than: float) -> dict[str, Path]:
    """Files laid out as ``media/ab/abcdef…`` (sha256), older than a timestamp.
    Anything else (temporary files of a write in progress) is not ours to judge."""
    found: dict[str, Path] = {}
    if not media_dir.is_dir():
        return found
    for sub in media_dir.iterdir():
        if not (sub.is_dir() and len(sub.name) == 2):
            continue
        for path in sub.iterdir():
            name = path.name
            if _SHA256.fullmatch(name) and name.startswith(sub.name) and path.is_file():
                if path.stat().st_mtime < older_than:
                    found[name] = path
    return found


def _sizes(media_dir: Path, hashes: list[str]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for sha in hashes:
        try:
            sizes[sha] = (media_dir / sha[:2] / sha).stat().st_size
        except OSError:
            log.warning("media file %s went before it could be recorded again", sha)
    return sizes


def _unlink_all(paths: list[Path]) -> None:
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError:
            log.warning("could not delete %s", path, exc_info=True)
