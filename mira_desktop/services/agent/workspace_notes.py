"""What a workspace's ``.agent/`` folder tells the agent (PRODUCT.md §11):
its memory (``.agent/memory.md``, which the agent itself may write) goes
with every run's instructions, and ``/skill:<name>`` at the start of a
message expands the skill ``.agent/skills/<name>/`` (its ``SKILL.md``, or
the folder's only Markdown file) in front of the rest of the message.
Blocking file reads: call from a worker thread."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...core.agent import ToolRefused
from ...core.errors import worded
from .scope import AGENT_DIR, MEMORY_FILE

#: characters of memory or of one skill given to the model
NOTE_LIMIT = 20_000
SKILLS = "skills"
SKILL_HINT = "Each skill is a folder there with a SKILL.md file."
_SKILL = re.compile(r"\s*/skill:([^\s/\\]+)(?:\s+|$)")


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    text: str


def memory(root: Path) -> str:
    """The workspace's ``.agent/memory.md`` (empty when there is none)."""
    return _read(root / AGENT_DIR / MEMORY_FILE)


def skill_call(message: str) -> tuple[str, str] | None:
    """``(name, the rest of the message)`` when it starts with ``/skill:<name>``."""
    found = _SKILL.match(message)
    if found is None:
        return None
    return found.group(1), message[found.end() :]


def load_skill(root: Path, name: str) -> Skill:
    """The skill ``name`` of the workspace; ToolRefused when it has none."""
    folder = root / AGENT_DIR / SKILLS / name
    if name.startswith(".") or not folder.is_dir():
        raise worded(
            ToolRefused,
            "There is no skill named {name} in .agent/skills/.",
            {"name": name},
            hint=SKILL_HINT,
        )
    main = folder / "SKILL.md"
    if not main.is_file():
        notes = sorted(p for p in folder.glob("*.md") if p.is_file())
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


def _read(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if len(text) > NOTE_LIMIT:
        text = text[:NOTE_LIMIT] + f"\n… ({len(text) - NOTE_LIMIT:,} more characters)"
    return text
