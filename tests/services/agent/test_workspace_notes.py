"""``.agent/`` read for the agent (PRODUCT.md §11): the memory file, and the
skills ``/skill:<name>`` expands — on real folders."""

from __future__ import annotations

import os
import sys
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

posix = pytest.mark.skipif(sys.platform == "win32", reason="links and pipes as on POSIX")


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


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the workspace, as ~/.aws/credentials would be."""
    outside = tmp_path / "outside"
    outside.mkdir()
    path = outside / "credentials"
    path.write_text("aws_secret_access_key = SECRET\n")
    return path


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    (folder / ".agent").mkdir(parents=True)
    return folder


@posix
def test_a_memory_linking_outside_is_not_read(
    work: Path, secret: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (work / ".agent" / "memory.md").symlink_to(secret)
    assert memory(work) == ""
    assert "links outside the workspace folder" in caplog.text


@posix
def test_an_agent_folder_linking_outside_is_not_read(work: Path, secret: Path) -> None:
    (work / ".agent").rmdir()
    (secret.parent / "memory.md").write_text("SECRET")
    (secret.parent / "skills" / "s").mkdir(parents=True)
    (secret.parent / "skills" / "s" / "SKILL.md").write_text("SECRET")
    (work / ".agent").symlink_to(secret.parent)
    assert memory(work) == ""
    with pytest.raises(ToolRefused, match="links outside the workspace folder"):
        load_skill(work, "s")


@posix
def test_a_skill_linking_outside_is_refused(work: Path, secret: Path) -> None:
    (skill_dir(work, "main") / "SKILL.md").symlink_to(secret)
    (skill_dir(work, "only") / "notes.md").symlink_to(secret)
    (work / ".agent" / "skills" / "folder").symlink_to(secret.parent)
    for name in ("main", "only", "folder"):
        with pytest.raises(ToolRefused, match="links outside the workspace folder") as refused:
            load_skill(work, name)
        assert "SECRET" not in str(refused.value)


@posix
def test_links_inside_the_workspace_are_still_followed(work: Path) -> None:
    (work / "docs").mkdir()
    (work / "docs" / "notes.md").write_text("Use make check.\n")
    (work / ".agent" / "memory.md").symlink_to(work / "docs" / "notes.md")
    (skill_dir(work, "s") / "SKILL.md").symlink_to(work / "docs" / "notes.md")
    assert memory(work) == "Use make check.\n"
    assert load_skill(work, "s").text == "Use make check.\n"


@posix
def test_a_pipe_is_not_read_and_a_huge_memory_only_in_part(work: Path) -> None:
    os.mkfifo(work / ".agent" / "memory.md")  # reading it would wait for a writer forever
    assert memory(work) == ""
    (work / ".agent" / "memory.md").unlink()
    with (work / ".agent" / "memory.md").open("wb") as handle:
        handle.truncate(200_000_000)  # sparse: reading all of it would take 200 MB
    kept = memory(work)
    assert kept.startswith("\0" * 100) and kept.endswith("(cut; the file has 200,000,000 bytes)")
