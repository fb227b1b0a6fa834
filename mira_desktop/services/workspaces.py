"""``WorkspaceService``: workspaces (PRODUCT.md §1, §8, §13) — create, rename,
colour, optional root folder, list, move threads between them, and delete.

Deleting a workspace never deletes history: its threads move to the trash of
Mira BASE (restorable there), then the workspace goes; ask first, with
:meth:`WorkspaceService.workspace_thread_count`. Mira BASE itself cannot be
deleted or renamed."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import ConfigError, NotFoundError, worded
from ..core.ids import format_time
from ..core.models import DEFAULT_WORKSPACE_NAME, Workspace
from .timeframes import Now, utc_clock

if TYPE_CHECKING:
    from ..storage.history_store import HistoryStore
    from ..storage.store import Store

log = logging.getLogger(__name__)

NAME_LIMIT = 80
DEFAULT_COLOR = "#64748b"
#: Colour names accepted besides ``#rgb`` / ``#rrggbb`` (the sidebar's palette).
PALETTE = {
    "red": "#ef4444",
    "orange": "#f97316",
    "yellow": "#eab308",
    "green": "#22c55e",
    "teal": "#14b8a6",
    "blue": "#3b82f6",
    "indigo": "#6366f1",
    "purple": "#a855f7",
    "pink": "#ec4899",
    "gray": DEFAULT_COLOR,
    "grey": DEFAULT_COLOR,
}
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}")


def normalise_color(color: str | None) -> str:
    """``#rrggbb`` (lower case) from a hex colour or a palette name."""
    if color is None or not color.strip():
        return DEFAULT_COLOR
    text = color.strip().lower()
    if text in PALETTE:
        return PALETTE[text]
    if not _HEX.fullmatch(text):
        raise ConfigError(
            f"Not a colour: {color!r}.",
            hint=f"Use #rrggbb, #rgb or one of: {', '.join(sorted(PALETTE))}.",
        )
    if len(text) == 4:
        text = "#" + "".join(c * 2 for c in text[1:])
    return text


def normalise_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise ConfigError("A workspace needs a name.")
    if len(name) > NAME_LIMIT:
        raise ConfigError(f"A workspace name has at most {NAME_LIMIT} characters.")
    return name


def _resolve_root(root_dir: str) -> str:
    path = Path(root_dir).expanduser()
    if not path.is_dir():
        raise worded(
            ConfigError,
            "The folder {folder} does not exist.",
            {"folder": root_dir},
            hint="Choose an existing folder.",
        )
    return str(path.resolve())


class WorkspaceService:
    def __init__(self, history: HistoryStore, store: Store, *, now: Now = utc_clock) -> None:
        self._history = history
        self._store = store
        self._now = now

    async def list_workspaces(self) -> list[Workspace]:
        """Mira BASE first, then by sort order and name."""
        return await self._store.list_workspaces()

    async def default_workspace(self) -> Workspace:
        return await self._store.default_workspace()

    async def get(self, workspace_id: str) -> Workspace:
        return await self._history.get_workspace(workspace_id)

    async def find(self, name_or_id: str) -> Workspace:
        """A workspace by id or name (case-insensitive); NotFoundError otherwise."""
        found = await self._history.find_workspace(name_or_id)
        if found is None:
            names = ", ".join(w.name for w in await self.list_workspaces())
            raise NotFoundError(f'No workspace named "{name_or_id}".', hint=f"Known: {names}.")
        return found

    async def create(
        self, name: str, *, color: str | None = None, root_dir: str | None = None
    ) -> Workspace:
        root = await asyncio.to_thread(_resolve_root, root_dir) if root_dir else None
        return await self._history.create_workspace(
            normalise_name(name), normalise_color(color), root
        )

    async def rename(self, workspace_id: str, new_name: str) -> Workspace:
        workspace = await self.get(workspace_id)
        name = normalise_name(new_name)
        if workspace.is_default and name != workspace.name:
            raise ConfigError(
                f'"{DEFAULT_WORKSPACE_NAME}" is the default workspace; it keeps its name.',
                hint="Create a new workspace instead (mira-desktop workspace add NAME).",
            )
        return await self._history.update_workspace(workspace_id, name=name)

    async def update(
        self, workspace_id: str, *, name: str, color: str, root_dir: str | None
    ) -> Workspace:
        """Set the name, colour and folder (None or "": none) together, as the
        window's Edit dialog shows them: each is checked first — a name that is
        free, a colour, a folder that exists — and all are saved in one
        transaction, or none is."""
        workspace = await self.get(workspace_id)
        new_name = normalise_name(name)
        if workspace.is_default and new_name != workspace.name:
            raise ConfigError(
                f'"{DEFAULT_WORKSPACE_NAME}" is the default workspace; it keeps its name.'
            )
        fields: dict[str, str | None] = {"color": normalise_color(color)}
        if new_name != workspace.name:
            fields["name"] = new_name
        root_dir = (root_dir or "").strip() or None
        if root_dir != workspace.root_dir:  # one kept as it is may be gone: still kept
            root = await asyncio.to_thread(_resolve_root, root_dir) if root_dir else None
            if root != workspace.root_dir:
                fields["root_dir"] = root
        return await self._history.update_workspace(workspace_id, **fields)

    async def set_color(self, workspace_id: str, color: str) -> Workspace:
        return await self._history.update_workspace(workspace_id, color=normalise_color(color))

    async def set_root_dir(self, workspace_id: str, root_dir: str | None) -> Workspace:
        """Set (or with None/"" clear) the folder the agent and @-search see."""
        root = await asyncio.to_thread(_resolve_root, root_dir) if root_dir else None
        return await self._history.update_workspace(workspace_id, root_dir=root)

    async def workspace_thread_count(self, workspace_id: str) -> int:
        """Threads a deletion would move to the trash (ask with this number)."""
        return await self._history.workspace_thread_count(workspace_id)

    async def delete(self, workspace_id: str) -> int:
        """Move its threads to Mira BASE's trash and delete the workspace, in one
        transaction. Returns how many threads moved."""
        workspace = await self.get(workspace_id)
        if workspace.is_default:
            raise ConfigError(
                f'"{DEFAULT_WORKSPACE_NAME}" is the default workspace and cannot be deleted.'
            )
        moved = await self._history.delete_workspace(workspace_id, format_time(self._now()))
        log.info("deleted workspace %s; %d thread(s) moved to the trash", workspace_id, moved)
        return moved

    async def move_threads(self, thread_ids: Sequence[str], workspace_id: str) -> int:
        """Move threads (right-click, drag, batch mode) to a workspace."""
        return await self._history.move_threads(thread_ids, workspace_id)
