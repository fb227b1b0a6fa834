"""A full disk for real, on the app's own connection: SQLite's
``max_page_count`` caps the database file at its current size, so every write
that needs a new page fails with SQLITE_FULL, as on a full disk. Run these on
the database thread (``services.store.worker.run(fill_the_disk)``)."""

from __future__ import annotations

from mira_desktop.storage.connection import Database

#: SQLite's default page limit: the cap lifted
_NO_CAP = 1073741823


def fill_the_disk(db: Database) -> None:
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")


def free_the_disk(db: Database) -> None:
    db.execute(f"PRAGMA max_page_count = {_NO_CAP}")
