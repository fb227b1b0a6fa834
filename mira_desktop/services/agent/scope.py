"""The workspace folder the agent works in (PRODUCT.md §11).

Every path a tool receives goes through :class:`WorkspaceScope`: relative
paths are taken from the root, absolute ones only when inside it, and a path
that leaves the root, by ``..`` or through a symbolic link, is refused. Writes
are further limited: never inside ``.git/``, and inside ``.agent/`` only the
agent's memory (``.agent/memory.md`` and ``.agent/memory/``) unless developer
mode is on."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ...core.agent import ToolRefused

AGENT_DIR = ".agent"
MEMORY_FILE = "memory.md"
MEMORY_DIR = "memory"


class WorkspaceScope:
    """The root folder of a workspace and the rules for paths inside it."""

    def __init__(self, root: str | Path, *, developer_mode: bool = False) -> None:
        self.root = Path(root).expanduser().resolve()
        self.developer_mode = developer_mode

    def __repr__(self) -> str:
        return f"WorkspaceScope({str(self.root)!r}, developer_mode={self.developer_mode})"

    def resolve(self, path: str) -> Path:
        """The real path ``path`` names (symbolic links followed); an empty
        path is the root. Raises :class:`ToolRefused` outside the root."""
        if not path or not path.strip():
            return self.root
        try:
            given = Path(path)
            target = (given if given.is_absolute() else self.root / given).resolve()
        except (OSError, ValueError, RuntimeError) as exc:  # NUL byte, link loop
            raise ToolRefused(f'"{path}" is not a usable path: {exc}.') from exc
        if not target.is_relative_to(self.root):
            raise ToolRefused(
                f'"{path}" is outside the workspace folder {self.root}; '
                "use a path inside it (relative paths start at the workspace folder).",
            )
        return target

    def relative(self, path: Path) -> str:
        """``path`` relative to the root with ``/`` separators; ``"."`` for the root."""
        try:
            inside = path.relative_to(self.root)
        except ValueError as exc:
            raise ToolRefused(f'"{path}" is outside the workspace folder {self.root}.') from exc
        return PurePosixPath(*inside.parts).as_posix()

    def check_writable(self, path: Path) -> None:
        """Refuse writing ``path`` (a resolved path inside the root) when it is
        in ``.git/`` or, outside developer mode, in ``.agent/`` other than the
        agent's memory."""
        relative = self.relative(path)
        parts = PurePosixPath(relative).parts
        if any(part.casefold() == ".git" for part in parts):
            raise ToolRefused(
                f'"{relative}" is inside a .git folder, which the agent may not change.'
            )
        if not parts or parts[0].casefold() != AGENT_DIR or self.developer_mode:
            return
        if parts[1:] == (MEMORY_FILE,) or (len(parts) > 2 and parts[1] == MEMORY_DIR):
            return
        raise ToolRefused(
            f'"{relative}" is inside {AGENT_DIR}/, where the agent may only write '
            f"{AGENT_DIR}/{MEMORY_FILE} and files under {AGENT_DIR}/{MEMORY_DIR}/ "
            "(developer mode lifts this).",
        )
