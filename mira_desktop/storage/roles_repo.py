"""SQL for roles (PRODUCT.md §1): named personas whose fields become a hidden
system prompt, with optional sampling parameters. Deleting a role leaves the
threads that used it in place (the foreign key sets ``role_id`` to NULL)."""

from __future__ import annotations

import logging
from typing import Any

from ..core.errors import ConfigError, NotFoundError
from ..core.ids import new_id, utc_now
from ..core.models import Role
from . import rows
from .connection import Database
from .database import write
from .threads_repo import insert

log = logging.getLogger(__name__)

ROLE_FIELDS = (
    "name",
    "description",
    "persona",
    "world_view",
    "scenario",
    "examples",
    "style",
    "constraints",
    "temperature",
    "top_p",
    "max_tokens",
)


def list_roles(db: Database) -> list[Role]:
    return [rows.role(r) for r in db.query("SELECT * FROM roles ORDER BY name COLLATE NOCASE")]


def get_role(db: Database, role_id: str) -> Role:
    row = next(db.query("SELECT * FROM roles WHERE id = ?", [role_id]), None)
    if row is None:
        raise NotFoundError(f"No role with id {role_id}.")
    return rows.role(row)


def find_role_by_name(db: Database, name: str) -> Role | None:
    """Exact name first, then the one role whose name matches ignoring case."""
    row = next(db.query("SELECT * FROM roles WHERE name = ?", [name]), None)
    if row is None:
        found = list(db.query("SELECT * FROM roles WHERE name = ? COLLATE NOCASE", [name]))
        row = found[0] if len(found) == 1 else None
    return rows.role(row) if row else None


def create_role(db: Database, role: Role) -> Role:
    now = utc_now()
    values = {field: getattr(role, field) for field in ROLE_FIELDS}
    role_id = role.id or new_id()
    with write(db) as conn:
        _check_name_free(conn, role.name, None)
        insert(conn, "roles", {"id": role_id, **values, "created_at": now, "updated_at": now})
    return get_role(db, role_id)


def update_role(db: Database, role_id: str, **fields: Any) -> Role:
    unknown = set(fields) - set(ROLE_FIELDS)
    if unknown:
        raise ValueError(f"unknown role fields: {sorted(unknown)}")
    if not fields:
        return get_role(db, role_id)
    values = {**fields, "updated_at": utc_now()}
    assignments = ", ".join(f"{k} = ?" for k in values)
    with write(db) as conn:
        if "name" in fields:
            _check_name_free(conn, fields["name"], role_id)
        cursor = conn.execute(
            f"UPDATE roles SET {assignments} WHERE id = ?", (*values.values(), role_id)
        )
        if cursor.rowcount == 0:
            raise NotFoundError(f"No role with id {role_id}.")
    return get_role(db, role_id)


def delete_role(db: Database, role_id: str) -> int:
    """Delete a role; returns how many threads used it (they keep their history)."""
    with write(db) as conn:
        used = conn.execute("SELECT COUNT(*) FROM threads WHERE role_id = ?", [role_id]).fetchone()
        cursor = conn.execute("DELETE FROM roles WHERE id = ?", [role_id])
        if cursor.rowcount == 0:
            raise NotFoundError(f"No role with id {role_id}.")
    return int(used[0])


def _check_name_free(conn: Any, name: str, role_id: str | None) -> None:
    row = conn.execute(
        "SELECT id FROM roles WHERE name = ? COLLATE NOCASE AND id IS NOT ?", (name, role_id)
    ).fetchone()
    if row is not None:
        raise ConfigError(f'A role named "{name}" already exists.', hint="Choose another name.")
