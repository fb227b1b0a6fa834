"""Saving what can still be read from a damaged database (``mira-desktop doctor
--fix``, the window's Recover at start-up).

Mira writes nothing into a damaged file (it is read with ``query_only``;
SQLite may still fold the file's own WAL into it, as on any open): it is
moved, with its WAL, into ``backups/`` (``mira-<time>-damaged.sqlite3``), and
a new database with the current schema takes its place. Every table of the
new schema is then copied from the damaged file, the readable rows of each:
a window of rowids at a time read from both ends, a window that fails row
by row, and past an empty window to the next row that can be trusted (or by
leaps that double). The full-text indexes are not copied; the new file's
triggers rebuild them from the rows. References left dangling by lost rows
(a message whose thread was on a damaged page…) are the doctor's to repair
next (``services/doctor.py``), as for any other damage.

When nothing at all can be read (the file's header itself is damaged), the new
database starts empty and the report lists the backups made before updates,
the newest first."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.ids import utc_now
from .database import DB_FILENAME, connect, ensure_default_workspace, is_damage, migrate

log = logging.getLogger(__name__)

#: rows read at a time
CHUNK = 500
#: the largest rowid SQLite gives
_MAX_ROWID = 2**63 - 1


@dataclass(slots=True)
class SalvageReport:
    """What a salvage did: where the damaged file went, the rows copied per
    table, how many damaged spots were skipped, and the backups there are."""

    damaged_copy: Path
    readable: bool
    copied: dict[str, int] = field(default_factory=dict)
    damaged_spots: int = 0
    backups: list[Path] = field(default_factory=list)

    @property
    def threads(self) -> int:
        return self.copied.get("threads", 0)

    @property
    def messages(self) -> int:
        return self.copied.get("messages", 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "damaged_copy": str(self.damaged_copy),
            "readable": self.readable,
            "copied": dict(self.copied),
            "damaged_spots": self.damaged_spots,
            "backups": [str(path) for path in self.backups],
        }


def salvage_database(data_dir: Path) -> SalvageReport:
    """Move the damaged database of ``data_dir`` aside and copy what can be read
    into a new one. No other connection may be open on it.

    The new file is built beside the old one and takes its place only when
    complete: a salvage that fails (a full disk, say) puts the damaged file
    back where it was and raises."""
    backups = data_dir / "backups"
    backups.mkdir(parents=True, exist_ok=True)
    path = data_dir / DB_FILENAME
    stamp = utc_now().replace(":", "").replace("-", "").replace(".", "")
    damaged = backups / f"mira-{stamp}-damaged.sqlite3"
    building = data_dir / f"{DB_FILENAME}.salvage"
    _move(path, damaged)  # the WAL keeps its name beside it: SQLite finds it
    try:
        _remove(building)
        new = connect(building)
        try:
            migrate(new, backups)  # a new file: no backup is made
            # not the live file yet: a crash here only loses this attempt, so
            # no journal, no syncs (the copy went from 9 minutes to seconds)
            new.execute("PRAGMA journal_mode = OFF")
            new.execute("PRAGMA synchronous = OFF")
            report = _copy_all(new.conn, damaged)
            ensure_default_workspace(new)
            new.execute("PRAGMA synchronous = NORMAL")
            new.execute("PRAGMA journal_mode = WAL")
        finally:
            new.close()  # the last connection: its WAL is checkpointed and removed
        building.replace(path)
    except BaseException:
        _remove(building)
        _move(damaged, path)
        raise
    log.warning("moved the damaged database to %s", damaged)
    report.backups = _older_backups(backups, damaged)
    log.warning(
        "salvaged %d thread(s) and %d message(s); %d damaged spot(s) skipped",
        report.threads,
        report.messages,
        report.damaged_spots,
    )
    return report


def _move(source: Path, target: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{source}{suffix}")
        if part.exists():
            part.replace(Path(f"{target}{suffix}"))


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _copy_all(new: sqlite3.Connection, damaged: Path) -> SalvageReport:
    report = SalvageReport(damaged_copy=damaged, readable=False)
    try:
        old = sqlite3.connect(str(damaged), isolation_level=None)
        # read only; and the schema read even where a table's pages are gone
        # (a file cut short: its schema names pages past the end)
        old.execute("PRAGMA query_only = ON")
        old.execute("PRAGMA writable_schema = ON")
    except sqlite3.Error as exc:
        log.warning("cannot open the damaged database: %s", exc)
        return report
    try:
        try:
            old_tables = {
                row[0] for row in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as exc:
            log.warning("nothing can be read from the damaged database: %s", exc)
            return report
        report.readable = True
        new.execute("PRAGMA foreign_keys = OFF")  # rows arrive in any order; some are lost
        for table in _tables(new):
            columns = _common_columns(old, new, table) if table in old_tables else []
            if columns:
                new.execute("BEGIN IMMEDIATE")
                copied, spots = _copy_table(old, new, table, columns)
                new.execute("COMMIT")
                report.copied[table] = copied
                report.damaged_spots += spots
        new.execute("PRAGMA foreign_keys = ON")
    finally:
        old.close()
    return report


def _tables(conn: sqlite3.Connection) -> list[str]:
    """The new database's own tables: not the full-text indexes (virtual
    tables and their shadow tables, rebuilt by triggers), not SQLite's, not
    the migrations' record (the new file's is the current one)."""
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
    ).fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
    return [
        name
        for name, _ in rows
        if name not in virtual
        and not name.startswith(("sqlite_", "_migrations"))
        and not any(name.startswith(f"{v}_") for v in virtual)
    ]


def _common_columns(old: sqlite3.Connection, new: sqlite3.Connection, table: str) -> list[str]:
    """The columns both files have (an older file may lack newer ones)."""
    try:
        known = {row[1] for row in old.execute(f'PRAGMA table_info("{table}")')}
    except sqlite3.DatabaseError as exc:
        log.warning("cannot read the columns of %s: %s", table, exc)
        return []
    return [row[1] for row in new.execute(f'PRAGMA table_info("{table}")') if row[1] in known]


def _copy_table(
    old: sqlite3.Connection, new: sqlite3.Connection, table: str, columns: list[str]
) -> tuple[int, int]:
    """Copy the readable rows of ``table``, a window of ``CHUNK`` rowids at a
    time. A damaged page can yield made-up rows (filtered out by the window's
    bounds) and ends a scan that meets it, so each window is read upwards from
    its start and downwards from its end: together they reach every intact
    page of the window. A window that fails is read row by row. Past an empty
    window the next row is looked up; when that cannot be trusted, the step
    doubles (rowids can have gaps, and a damaged root can make the largest
    one huge). (rows copied, damaged spots)."""
    names = ", ".join(f'"{c}"' for c in columns)
    base = f'SELECT rowid, {names} FROM "{table}" WHERE rowid >= ? AND rowid < ?'
    upwards = f"{base} ORDER BY rowid LIMIT {CHUNK}"
    downwards = f"{base} ORDER BY rowid DESC LIMIT {CHUNK}"
    one = f'SELECT rowid, {names} FROM "{table}" WHERE rowid = ?'
    insert = f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'
    bounds = _bounds(old, table)
    if bounds is None:
        return 0, 0
    low, last = bounds
    copied = spots = 0
    step = CHUNK
    while low <= last:
        high = min(low + CHUNK, last + 1, _MAX_ROWID)
        try:
            rows = _within(old.execute(upwards, (low, high)).fetchall(), low, high)
            if len(rows) < high - low:  # a gap, or damage: read from the top too
                seen = {row[0] for row in rows}
                rows += [
                    row
                    for row in _within(old.execute(downwards, (low, high)).fetchall(), low, high)
                    if row[0] not in seen
                ]
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            spots += 1
            rows = _one_by_one(old, one, low, high)
        if rows:
            rows.sort(key=lambda row: row[0])
            copied += new.executemany(insert, [row[1:] for row in rows]).rowcount
            step = CHUNK
            low = high
        else:
            following = _next_rowid(old, table, one, high, last)
            if following is not None:
                low, step = following, CHUNK
            else:
                low, step = low + step, step * 2
        if high >= _MAX_ROWID:
            break
    return copied, spots


def _within(rows: list[Any], low: int, high: int) -> list[Any]:
    return [row for row in rows if low <= row[0] < high]


def _next_rowid(old: sqlite3.Connection, table: str, one: str, start: int, last: int) -> int | None:
    """The first rowid from ``start`` on, when it can be trusted (a real row
    there, within the table's bounds); None otherwise."""
    try:
        found = old.execute(
            f'SELECT rowid FROM "{table}" WHERE rowid >= ? ORDER BY rowid LIMIT 1', (start,)
        ).fetchone()
        if found is None or not start <= found[0] <= last:
            return None
        row = old.execute(one, (found[0],)).fetchone()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return None
    return int(found[0]) if row is not None and row[0] == found[0] else None


def _bounds(old: sqlite3.Connection, table: str) -> tuple[int, int] | None:
    """The smallest and largest rowid as far as they can be read (the
    extremes SQLite allows for one that cannot); None for an empty table."""
    bounds: list[int | None] = []
    for sql in (
        f'SELECT rowid FROM "{table}" ORDER BY rowid LIMIT 1',
        f'SELECT rowid FROM "{table}" ORDER BY rowid DESC LIMIT 1',
    ):
        try:
            row = old.execute(sql).fetchone()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            bounds.append(None)
        else:
            if row is None:
                return None  # read, and empty
            bounds.append(int(row[0]))
    first, last = bounds
    return (1 if first is None else first), (_MAX_ROWID if last is None else last)


def _one_by_one(old: sqlite3.Connection, one: str, low: int, high: int) -> list[Any]:
    """The rows of ``low`` ≤ rowid < ``high`` that can be read, one by one."""
    rows = []
    for rowid in range(low, high):
        try:
            row = old.execute(one, (rowid,)).fetchone()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            continue
        if row is not None and row[0] == rowid:
            rows.append(row)
    return rows


def _older_backups(backups: Path, damaged: Path) -> list[Path]:
    """The backups made before updates, the newest first (for people to choose
    from when little could be saved)."""
    found = [
        path
        for path in backups.glob("mira-*.sqlite3")
        if path != damaged and not path.name.endswith("-damaged.sqlite3")
    ]
    return sorted(found, key=lambda path: path.name, reverse=True)
