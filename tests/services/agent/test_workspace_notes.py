"""``.agent/`` read for the agent (PRODUCT.md §11): the memory file, and the
skills ``/skill:<name>`` expands — on real folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.core.agent import ToolRefused
from mira_desktop.services.agent.workspace_notes import (
    NOTE_LIMIT,
    expand_skill,
    load_skill,
    memory,
    skill_call,
)


def skill_dir(root: Path, name: str) -> Path:
    folder = root / ".agent" / "skills" / name
    folder.mkdir(parents=True)
    return folder


def test_skill_calls_are_found_only_at_the_start() -> None:
    assert skill_call("/skill:review check it") == ("review", "check it")
    assert skill_call("  /skill:review") == ("review", "")
    assert skill_call("please /skill:review") is None
    assert skill_call("/skill:") is None
    assert skill_call("/skill:a/b go") is None


def test_a_skill_is_its_skill_md_or_its_only_markdown_file(tmp_path: Path) -> None:
    (skill_dir(tmp_path, "one") / "SKILL.md").write_text("Main.\n")
    (tmp_path / ".agent" / "skills" / "one" / "extra.md").write_text("x")
    assert load_skill(tmp_path, "one").text == "Main.\n"
    (skill_dir(tmp_path, "two") / "howto.md").write_text("只有一个。")
    assert load_skill(tmp_path, "two").text == "只有一个。"
    three = skill_dir(tmp_path, "three")
    (three / "a.md").write_text("a")
    (three / "b.md").write_text("b")
    with pytest.raises(ToolRefused, match=r"has no SKILL\.md"):
        load_skill(tmp_path, "three")
    with pytest.raises(ToolRefused, match="no skill named missing"):
        load_skill(tmp_path, "missing")
    skill_dir(tmp_path, ".hidden")
    with pytest.raises(ToolRefused):
        load_skill(tmp_path, ".hidden")


def test_the_expanded_question_and_a_long_memory_cut(tmp_path: Path) -> None:
    (skill_dir(tmp_path, "s") / "SKILL.md").write_text("  Do X.  \n")
    assert (
        expand_skill(load_skill(tmp_path, "s"), "")
        == '<skill name="s">\nDo X.\n</skill>\n\nApply the skill.'
    )
    assert memory(tmp_path) == ""
    (tmp_path / ".agent" / "memory.md").write_text("m" * (NOTE_LIMIT + 10))
    kept = memory(tmp_path)
    assert kept.startswith("m" * NOTE_LIMIT) and kept.endswith("(10 more characters)")
