"""``RoleService``: creating, editing, duplicating, deleting and listing roles
(PRODUCT.md §1), with validation; and the two pure functions the chat paths use
to apply a role: :func:`role_system_prompt` (the hidden system prompt composed
from the role's fields) and :func:`apply_role` (that prompt plus the role's
temperature / top_p / max_tokens on a request). Binding a role to a thread is
the thread's business; nothing here depends on threads."""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.errors import ConfigError, NotFoundError
from ..core.models import ChatMessage, ChatRequest, Role
from .listeners import Listeners

if TYPE_CHECKING:
    from ..storage.store import Store

log = logging.getLogger(__name__)

MAX_NAME_LENGTH = 80
TEXT_FIELDS = (
    "description",
    "persona",
    "world_view",
    "scenario",
    "examples",
    "style",
    "constraints",
)
NUMERIC_FIELDS = ("temperature", "top_p", "max_tokens")

#: Headings of the composed prompt, in order (§1 field order).
_HEADINGS = {
    "description": "Description",
    "persona": "Persona",
    "world_view": "World view",
    "scenario": "Scenario",
    "examples": "Examples",
    "style": "Style",
    "constraints": "Constraints",
}


class RoleService(Listeners):
    """Listeners (``add_listener``) are called with no argument after each
    role created, edited, duplicated or deleted."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self._store = store

    async def list(self) -> list[Role]:
        return await self._store.list_roles()

    async def get(self, role_id: str) -> Role:
        return await self._store.get_role(role_id)

    async def get_by_name(self, name: str) -> Role:
        role = await self._store.find_role_by_name(name.strip())
        if role is None:
            raise NotFoundError(
                f'No role named "{name}".', hint="List them with `mira-desktop role list`."
            )
        return role

    async def create(self, name: str, **fields: Any) -> Role:
        """A new role; ``fields`` are any of the text and numeric fields."""
        values = validate_fields({"name": name, **fields})
        role = await self._store.create_role(Role(id="", **values))
        self.announce()
        return role

    async def edit(self, role_id: str, **fields: Any) -> Role:
        """Change some fields (``None`` clears a numeric parameter)."""
        role = await self._store.update_role(role_id, **validate_fields(fields))
        self.announce()
        return role

    async def duplicate(self, role_id: str) -> Role:
        """A copy named "Copy of …" ("Copy of … (2)" when taken)."""
        role = await self._store.get_role(role_id)
        taken = {r.name.casefold() for r in await self._store.list_roles()}
        name = f"Copy of {role.name}"[:MAX_NAME_LENGTH]
        number = 2
        while name.casefold() in taken:
            name = f"Copy of {role.name}"[: MAX_NAME_LENGTH - 6] + f" ({number})"
            number += 1
        values = {f: getattr(role, f) for f in (*TEXT_FIELDS, *NUMERIC_FIELDS)}
        copy = await self._store.create_role(Role(id="", name=name, **values))
        self.announce()
        return copy

    async def delete(self, role_id: str) -> int:
        """Delete a role; returns how many threads used it (they keep their history
        and simply have no role any more)."""
        used = await self._store.delete_role(role_id)
        self.announce()
        log.info("deleted role %s (used by %d thread(s))", role_id, used)
        return used


def validate_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Check and normalise role fields; raises ``ConfigError`` saying what is wrong."""
    unknown = set(fields) - {"name", *TEXT_FIELDS, *NUMERIC_FIELDS}
    if unknown:
        raise ConfigError(f"Unknown role field(s): {', '.join(sorted(unknown))}.")
    values: dict[str, Any] = {}
    for key, value in fields.items():
        if key == "name":
            values[key] = _name(value)
        elif key in TEXT_FIELDS:
            values[key] = "" if value is None else str(value).strip()
        elif key == "max_tokens":
            values[key] = _max_tokens(value)
        else:
            high = 2.0 if key == "temperature" else 1.0
            values[key] = _ranged(key, value, high)
    return values


def _name(value: Any) -> str:
    name = " ".join(str(value or "").split())
    if not name:
        raise ConfigError("A role needs a name.")
    if len(name) > MAX_NAME_LENGTH:
        raise ConfigError(f"A role name can have at most {MAX_NAME_LENGTH} characters.")
    return name


def _ranged(key: str, value: Any, high: float) -> float | None:
    if value is None:
        return None
    label = "Temperature" if key == "temperature" else "Top-p"
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{label} must be a number between 0 and {high:g}.") from None
    if math.isnan(number) or not 0.0 <= number <= high:
        raise ConfigError(f"{label} must be between 0 and {high:g} (got {value}).")
    return number


def _max_tokens(value: Any) -> int | None:
    if value is None:
        return None
    try:
        number = int(value)
        exact = float(value) == number
    except (TypeError, ValueError, OverflowError):
        exact = False
    if not exact or number <= 0:
        raise ConfigError(f"Max tokens must be a whole number above 0 (got {value}).")
    return number


def role_system_prompt(role: Role) -> str:
    """The role's text fields as one system prompt with a heading per field;
    empty fields are left out, and a role with no text gives ``""``."""
    blocks = [
        f"## {_HEADINGS[field]}\n{text}"
        for field in TEXT_FIELDS
        if (text := str(getattr(role, field) or "").strip())
    ]
    if not blocks:
        return ""
    intro = (
        f'You are playing the role "{role.name}". Stay in this role for the whole'
        " conversation; the sections below define it. Do not mention these"
        " instructions unless asked about them."
    )
    return "\n\n".join([intro, *blocks])


def apply_role(request: ChatRequest, role: Role | None) -> ChatRequest:
    """``request`` with the role's system prompt first and its numeric parameters
    set (parameters the request already sets win)."""
    if role is None:
        return request
    prompt = role_system_prompt(role)
    messages = request.messages
    if prompt:
        messages = (ChatMessage(role="system", content=prompt), *messages)
    return replace(
        request,
        messages=messages,
        temperature=request.temperature if request.temperature is not None else role.temperature,
        top_p=request.top_p if request.top_p is not None else role.top_p,
        max_tokens=request.max_tokens if request.max_tokens is not None else role.max_tokens,
    )
