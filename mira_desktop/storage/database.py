"""Opening the one SQLite file: pragmas, migrations with a backup first, the default
workspace, and the write-transaction helper every repository uses.

Concurrency: the window and the CLI may open the same file at once. WAL lets
readers run beside one writer; every write goes through :func:`write` which takes
``BEGIN IMMEDIATE`` so two processes queue on the busy timeout instead of failing
half-way. Migrations run inside such a transaction too and re-check the version
after taking the lock, so two processes starting together migrate once.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..core.errors import StorageError, worded
from ..core.ids import new_id, utc_now
from ..core.models import DEFAULT_WORKSPACE_NAME
from .connection import Database
from .schema import MIGRATIONS

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 10_000
# The page cache of the connection (SQLite's default is 2 MiB): one search
# reads ~1–2 MB of pages (its FTS doclists and 200 message rows), so with the
# default a search as you type re-reads the pages of the previous keystroke
# from the OS. 32 MiB is heap filled only as pages are read, and serves the
# sidebar and opened threads too (the search benchmark on 1M messages: its
# storage query ~10 % faster). No mmap_size: a bounded map covers only the
# start of a large file (where old data lives), and first reads of pages not
# yet in the OS cache came out 1.6–2× slower through the map.
CACHE_SIZE_KIB = 32 * 1024
DB_FILENAME = "mira.sqlite3"


def connect(path: Path) -> Database:
    """Open (creating if needed) the database at ``path`` with Mira's pragmas.

    The connection is in autocommit mode; :func:`write` opens transactions."""
    try:
        conn = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
        )
    except sqlite3.Error as exc:
        raise StorageError(f"Cannot open the database {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA cache_size = -{CACHE_SIZE_KIB}")
    except sqlite3.Error as exc:  # the first read of the file: "file is not a database"
        conn.close()
        if is_damage(exc):
            raise damaged_error(path, exc) from exc
        raise StorageError(f"Cannot open the database {path}: {exc}") from exc
    return Database(conn)


@contextmanager
def write(db: Database) -> Iterator[sqlite3.Connection]:
    """One write transaction (``BEGIN IMMEDIATE`` … ``COMMIT``), rolled back on error.

    SQLite errors become :class:`StorageError` with a readable message (a full
    disk says so)."""
    conn = db.conn
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise _storage_error(exc) from exc
    try:
        yield conn
    except BaseException as exc:
        conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise _storage_error(exc) from exc
        raise
    else:
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            conn.execute("ROLLBACK")
            raise _storage_error(exc) from exc


#: how SQLite words a damaged file ("file is not a database", "database disk
#: image is malformed", SQLITE_CORRUPT's variants)
_DAMAGE_WORDS = ("malformed", "not a database", "corrupt")
DAMAGED_TEMPLATE = 'The database "{path}" is damaged ({detail}).'
DAMAGED_HINT = (
    "Run `mira-desktop doctor --fix`, or open Mira and choose Recover: the damaged file is "
    "moved to the backups folder and what can still be read is saved into a new database."
)


def is_damage(exc: BaseException) -> bool:
    """True when ``exc`` is SQLite saying the file is damaged."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    if getattr(exc, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
        return True
    return any(word in str(exc).lower() for word in _DAMAGE_WORDS)


def damaged_error(path: Path, exc: BaseException) -> StorageError:
    """The error people see for a damaged database, with what to do."""
    fields = {"path": str(path), "detail": str(exc)}
    return worded(StorageError, DAMAGED_TEMPLATE, fields, hint=DAMAGED_HINT, damaged=True)


def _storage_error(exc: sqlite3.Error) -> StorageError:
    fields = {"detail": str(exc)}
    lowered = fields["detail"].lower()
    if "full" in lowered:
        return worded(
            StorageError,
            "The disk is full; nothing was lost, but this change was not saved ({detail}).",
            fields,
            disk_full=True,
        )
    if "locked" in lowered or "busy" in lowered:
        return worded(
            StorageError,
            "The database is busy in another Mira window or command ({detail}).",
            fields,
            hint="Try again in a moment.",
        )
    return worded(StorageError, "Database error: {detail}", fields)


def schema_version(db: Database) -> int:
    if "_migrations" not in db.table_names():
        return 0
    row = db.execute("SELECT MAX(version) FROM _migrations").fetchone()
    return int(row[0] or 0)


Migration = tuple[int, str, str]


def pending_migrations(db: Database, migrations: Sequence[Migration] = MIGRATIONS) -> list[int]:
    current = schema_version(db)
    return [version for version, _, _ in migrations if version > current]


def backup(db: Database, backups_dir: Path, label: str) -> Path:
    """Copy the live database (consistently, WAL included) into ``backups_dir``."""
    backups_dir.mkdir(parents=True, exist_ok=True)
    stamp = utc_now().replace(":", "").replace("-", "").replace(".", "")
    return copy_to(db, backups_dir / f"mira-{stamp}-{label}.sqlite3")


def copy_to(db: Database, target: Path) -> Path:
    """Copy the live database (consistently, WAL included) to ``target``."""
    dest = sqlite3.connect(str(target))
    try:
        db.conn.backup(dest)
    finally:
        dest.close()
    return target


#: pages a backup step copies before it reports (``copy_file``'s ``on_pages``)
BACKUP_STEP_PAGES = 4096


def copy_file(
    source: Path,
    target: Path,
    on_pages: Callable[[int, int], None] | None = None,
    *,
    step_pages: int = BACKUP_STEP_PAGES,
) -> Path:
    """Copy the database file ``source`` (closed; a WAL left by a crash
    included) to ``target`` with SQLite's backup; ``on_pages(copied, total)``
    after each step of ``step_pages`` pages."""
    if not source.is_file():
        raise worded(StorageError, 'There is no database at "{path}".', {"path": source})
    src = sqlite3.connect(str(source), timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        dest = sqlite3.connect(str(target))
        try:
            if on_pages is None:
                src.backup(dest)
            else:
                src.backup(
                    dest,
                    pages=step_pages,
                    progress=lambda _status, left, total: on_pages(total - left, total),
                )
        finally:
            dest.close()
    except sqlite3.Error as exc:
        raise worded(
            StorageError,
            'Could not copy the database "{path}": {detail}',
            {"path": source, "detail": exc},
        ) from exc
    finally:
        src.close()
    return target


def migrate(
    db: Database, backups_dir: Path, migrations: Sequence[Migration] = MIGRATIONS
) -> list[int]:
    """Apply pending migrations, each in its own transaction; back up first when
    the file already holds a schema. Returns the versions applied here."""
    pending = pending_migrations(db, migrations)
    if not pending:
        return []
    if schema_version(db) > 0:
        path = backup(db, backups_dir, f"before-v{pending[0]}")
        log.info("backed up the database to %s before migrating", path)
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    applied: list[int] = []
    for version, name, sql in migrations:
        with write(db) as conn:
            if schema_version(db) >= version:
                continue  # another process migrated while we waited for the lock
            for statement in _split_sql(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO _migrations(version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, utc_now()),
            )
        applied.append(version)
        log.info("applied migration %s (%s)", version, name)
    return applied


def _split_sql(script: str) -> list[str]:
    """Split a migration script into statements (triggers contain ``;`` inside
    BEGIN … END, so use sqlite3.complete_statement to find the real ends)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


def ensure_default_workspace(db: Database) -> str:
    """Create "Mira BASE" if missing; return its id."""
    row = db.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()
    if row:
        return str(row[0])
    with write(db) as conn:
        row = conn.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()
        if row:
            return str(row[0])
        workspace_id = new_id()
        now = utc_now()
        conn.execute(
            "INSERT INTO workspaces(id, name, color, sort_order, is_default, created_at, updated_at)"
            " VALUES (?, ?, '#6366f1', 0, 1, ?, ?)",
            (workspace_id, DEFAULT_WORKSPACE_NAME, now, now),
        )
    return workspace_id


def open_database(data_dir: Path) -> Database:
    """Open and migrate the database of a data folder (creating the folder
    layout). A damaged file raises :func:`damaged_error`."""
    for sub in ("media", "backups", "logs"):
        folder = data_dir / sub
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # read-only, full, or a file in the folder's place
            if sub != "logs":  # the log can do without its folder (stderr)
                raise worded(
                    StorageError,
                    "Cannot use the data folder {folder}: {reason}",
                    {"folder": data_dir, "reason": exc.strerror or exc},
                    hint="Check that the folder can be written, or start with --data-dir"
                    " to use another one.",
                ) from exc
    path = data_dir / DB_FILENAME
    db = connect(path)
    try:
        migrate(db, data_dir / "backups")
        ensure_default_workspace(db)
    except StorageError as exc:
        db.close()
        if is_damage(exc.__cause__ or exc):
            raise damaged_error(path, exc.__cause__ or exc) from exc
        raise
    except sqlite3.Error as exc:
        db.close()
        if is_damage(exc):
            raise damaged_error(path, exc) from exc
        raise _storage_error(exc) from exc
    return db
