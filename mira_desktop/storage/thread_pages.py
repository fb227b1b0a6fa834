"""The sidebar's paged views read by key (PRODUCT.md §8): the page after a
thread is the rows that sort after that thread's place *as it was listed* —
its pin, pin order, last activity or deletion time, and its ``seq`` — in the
order of ``history_repo.list_threads``. Unlike ``OFFSET``, a row another
process removed, trashed or moved meanwhile never shifts the next page, so
nothing is skipped for good; each order follows an index, so a deep page
costs what the first does.

The listed thread may be gone since (purged elsewhere): its ``seq`` is then
unknown and the page starts at its time, ties included (the list drops a
thread it already holds)."""

from __future__ import annotations

from typing import Any

from ..core.history import ThreadView
from ..core.models import Thread
from . import rows
from .connection import Database
from .history_repo import _PIN_ORDER, _where
from .threads_repo import _THREAD_COLUMNS

#: the ``seq`` of a listed thread no longer in the table: after every tie
_NO_SEQ = 2**63 - 1
_SEQ_OF = f"COALESCE((SELECT seq FROM threads WHERE id = ?), {_NO_SEQ})"


def list_threads_after(
    db: Database,
    after: Thread | None,
    limit: int = 100,
    workspace_id: str | None = None,
    view: ThreadView = ThreadView.ACTIVE,
) -> list[Thread]:
    """The page of ``view`` after ``after`` (None: the first page)."""
    view, limit = ThreadView(view), max(0, limit)
    where, params = _where(view, workspace_id)
    values: list[Any]
    if view is ThreadView.ACTIVE:
        return _active_after(db, after, limit, where, params)
    if view is ThreadView.TRASH:
        order, key = "deleted_at DESC, seq DESC", "(deleted_at, seq) < (?, {seq})"
        values = [after.deleted_at or ""] if after else []
    else:
        order, key = (
            "pinned DESC, updated_at DESC, seq DESC",
            "(pinned, updated_at, seq) < (?, ?, {seq})",
        )
        values = [int(after.pinned), after.updated_at] if after else []
    if after is not None:
        where += " AND " + key.format(seq=_SEQ_OF)
        params = [*params, *values, after.id]
    sql = f"SELECT {_THREAD_COLUMNS} FROM threads WHERE {where} ORDER BY {order} LIMIT ?"
    return _threads(db, sql, [*params, limit])


def _active_after(
    db: Database, after: Thread | None, limit: int, where: str, params: list[Any]
) -> list[Thread]:
    """Pins are few: all read (with their ``seq``), those after ``after`` kept;
    then the unpinned rows after it in index order."""
    page: list[Thread] = []
    if after is None or after.pinned:
        pinned = db.query(
            f"SELECT {_THREAD_COLUMNS}, seq FROM threads WHERE {where} AND pinned = 1"
            f" ORDER BY {_PIN_ORDER}",
            params,
        )
        if after is not None:
            seq = _seq(db, after.id)
            pinned = (r for r in pinned if _pin_after(r, after, seq))
        for row in pinned:
            if len(page) == limit:
                return page
            page.append(rows.thread(row))
    sql = f"SELECT {_THREAD_COLUMNS} FROM threads WHERE {where} AND pinned = 0"
    if after is not None and not after.pinned:
        sql += f" AND (updated_at, seq) < (?, {_SEQ_OF})"
        params = [*params, after.updated_at, after.id]
    sql += " ORDER BY updated_at DESC, seq DESC LIMIT ?"
    return page + _threads(db, sql, [*params, limit - len(page)])


def _pin_after(row: dict[str, Any], after: Thread, seq: int) -> bool:
    """Whether the pinned ``row`` sorts after ``after`` in ``_PIN_ORDER``."""
    place = (row["pin_order"] is None, row["pin_order"] or 0)
    mark = (after.pin_order is None, after.pin_order or 0)
    if place != mark:
        return place > mark
    if row["updated_at"] != after.updated_at:
        return bool(row["updated_at"] < after.updated_at)
    return bool(row["seq"] < seq)


def _seq(db: Database, thread_id: str) -> int:
    found = db.execute("SELECT seq FROM threads WHERE id = ?", [thread_id]).fetchone()
    return int(found[0]) if found else _NO_SEQ


def _threads(db: Database, sql: str, params: list[Any]) -> list[Thread]:
    return [rows.thread(r) for r in db.query(sql, params)]
