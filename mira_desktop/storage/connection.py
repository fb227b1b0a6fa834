"""The database handle every repository receives: a ``sqlite3`` connection (in
autocommit mode; :func:`database.write` opens the transactions) with the two
helpers the repositories use, ``execute`` and ``query`` (rows as dicts).

It replaces ``sqlite_utils.Database``, whose import (click, dateutil, pluggy)
and plugin discovery cost tens of milliseconds on every start-up for two
one-line methods."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

Params = Sequence[Any] | Mapping[str, Any]


class Database:
    """One SQLite connection; used on the database thread only."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        #: per-connection state of helpers that register SQL functions once
        #: (``search_match.row_checks``), keyed by the helper's class
        self.helpers: dict[type, object] = {}

    def execute(self, sql: str, parameters: Params | None = None) -> sqlite3.Cursor:
        """Run one statement; ``parameters`` for ``?`` or ``:name`` placeholders."""
        if parameters is None:
            return self.conn.execute(sql)
        return self.conn.execute(sql, parameters)

    def query(self, sql: str, params: Params | None = None) -> Iterator[dict[str, Any]]:
        """The rows of a ``SELECT`` as dicts (column name → value), fetched lazily."""
        cursor = self.execute(sql, params)
        if cursor.description is None:
            raise ValueError("query() is for statements that return rows; use execute()")
        keys = [column[0] for column in cursor.description]
        return (dict(zip(keys, row, strict=True)) for row in cursor)

    def table_names(self) -> list[str]:
        rows = self.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return [row[0] for row in rows]

    def close(self) -> None:
        self.conn.close()
