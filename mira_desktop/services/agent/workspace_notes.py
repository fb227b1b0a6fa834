"""What a workspace's ``.agent/`` folder tells the agent (PRODUCT.md §11):
its memory (``.agent/memory.md``, which the agent itself may write) goes
with every run's instructions, and ``/skill:<name>`` at the start of a
message expands the skill ``.agent/skills/<name>/`` (its ``SKILL.md``, or
the folder's only Markdown file) in front of the rest of the message.

They are read through the workspace scope: a link that leads out of the
workspace folder (a cloned repository's ``.agent/memory.md`` pointing at
``~/.aws/credentials``) is not followed, since what is read goes to the
model's provider — the memory is then left out (and logged), a skill is
refused saying why. Only regular files are read, and only as much as is
kept. Blocking file reads: call from a worker thread."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ...core.agent import ToolRefused
from ...core.errors import worded
from .scope import AGENT_DIR, MEMORY_FILE, WorkspaceScope

log = logging.getLogger(__name__)

#: characters of memory or of one skill given to the model
NOTE_LIMIT = 20_000
SKILLS = "skills"
SKILL_HINT = "Each skill is a folder there with a SKILL.md file."
OUTSIDE_HINT = "Skills are read only from inside the workspace folder."
_SKILL = re.compile(r"\s*/skill:([^\s/\\]+)(?:\s+|$)")


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    text: str


def memory(root: Path) -> str:
    """The workspace's ``.agent/memory.md`` (empty when there is none, or
    when it links out of the workspace folder)."""
    scope = WorkspaceScope(root)
    try:
        path = scope.resolve(f"{AGENT_DIR}/{MEMORY_FILE}")
    except ToolRefused:
        log.warning("%s/%s links outside the workspace folder: not read", AGENT_DIR, MEMORY_FILE)
        return ""
    return _read(path)


def skill_call(message: str) -> tuple[str, str] | None:
    """``(name, the rest of the message)`` when it starts with ``/skill:<name>``."""
    found = _SKILL.match(message)
    if found is None:
        return None
    return found.group(1), message[found.end() :]


def load_skill(root: Path, name: str) -> Skill:
    """The skill ``name`` of the workspace; ToolRefused when it has none,
    or when it links out of the workspace folder."""
    scope = WorkspaceScope(root)
    folder = _skill_path(scope, name, f"{AGENT_DIR}/{SKILLS}/{name}")
    if name.startswith(".") or not folder.is_dir():
        raise worded(
            ToolRefused,
            "There is no skill named {name} in .agent/skills/.",
            {"name": name},
            hint=SKILL_HINT,
        )
    main = _skill_path(scope, name, scope.relative(folder / "SKILL.md"))
    if not main.is_file():
        notes = sorted(
            path
            for note in folder.glob("*.md")
            if (path := _skill_path(scope, name, scope.relative(note))).is_file()
        )
        if len(notes) != 1:
            raise worded(
                ToolRefused,
                "The skill {name} has no SKILL.md file.",
                {"name": name},
                hint=SKILL_HINT,
            )
        main = notes[0]
    return Skill(name, _read(main))


def expand_skill(skill: Skill, rest: str) -> str:
    """The message the model gets: the skill's instructions, then the rest."""
    request = rest.strip() or "Apply the skill."
    return f'<skill name="{skill.name}">\n{skill.text.strip()}\n</skill>\n\n{request}'


def _skill_path(scope: WorkspaceScope, name: str, path: str) -> Path:
    """The real path of a skill's folder or file; ToolRefused when a link
    leads out of the workspace folder."""
    try:
        return scope.resolve(path)
    except ToolRefused as exc:
        log.warning("the skill %s links outside the workspace folder (%s): not read", name, path)
        raise worded(
            ToolRefused,
            "The skill {name} links outside the workspace folder, so it was not read.",
            {"name": name},
            hint=OUTSIDE_HINT,
        ) from exc


def _read(path: Path) -> str:
    """The start of a regular file, as text (a pipe or a device: nothing)."""
    most = NOTE_LIMIT * 4 + 1  # bytes enough for NOTE_LIMIT characters and one more
    try:
        if not path.is_file():
            return ""
        with path.open("rb") as handle:
            data = handle.read(most)
            size = handle.seek(0, 2)
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if len(data) == most and size > most:
        return text[:NOTE_LIMIT] + f"\n… (cut; the file has {size:,} bytes)"
    if len(text) > NOTE_LIMIT:
        text = text[:NOTE_LIMIT] + f"\n… ({len(text) - NOTE_LIMIT:,} more characters)"
    return text
