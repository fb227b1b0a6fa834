"""The workspace scope: paths resolve inside the root, escapes are refused,
and writes in .git/ and .agent/ follow PRODUCT.md §11."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.core.agent import ToolRefused
from mira_desktop.services.agent.scope import WorkspaceScope


def test_relative_absolute_and_empty_paths(scope: WorkspaceScope, root: Path) -> None:
    (root / "src").mkdir()
    assert scope.resolve("src/app.py") == root / "src" / "app.py"
    assert scope.resolve(str(root / "src")) == root / "src"
    assert scope.resolve("") == root
    assert scope.resolve("  ") == root
    assert scope.resolve("src/../README.md") == root / "README.md"
    assert scope.relative(root / "src" / "app.py") == "src/app.py"
    assert scope.relative(root) == "."


def test_root_is_resolved(tmp_path: Path, root: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    scope = WorkspaceScope(alias)
    assert scope.root == root
    assert scope.resolve(str(alias / "a.txt")) == root / "a.txt"


@pytest.mark.parametrize("path", ["..", "../x", "src/../../x", "/etc/passwd", "/"])
def test_escapes_are_refused(scope: WorkspaceScope, path: str) -> None:
    with pytest.raises(ToolRefused, match="outside the workspace folder"):
        scope.resolve(path)


def test_absolute_sibling_with_common_prefix_is_outside(tmp_path: Path, root: Path) -> None:
    sibling = tmp_path / "work-other"
    sibling.mkdir()
    with pytest.raises(ToolRefused, match="work-other"):
        WorkspaceScope(root).resolve(str(sibling / "x"))


def test_symlink_leaving_the_root_is_refused(
    scope: WorkspaceScope, root: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    (root / "out").symlink_to(secret)
    (root / "outdir").symlink_to(tmp_path)
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    for path in ("out", "outdir/secret.txt", "dangling"):
        with pytest.raises(ToolRefused, match="outside"):
            scope.resolve(path)


def test_symlink_inside_the_root_is_followed(scope: WorkspaceScope, root: Path) -> None:
    (root / "real.txt").write_text("x")
    (root / "link.txt").symlink_to(root / "real.txt")
    assert scope.resolve("link.txt") == root / "real.txt"


def test_unusable_path_is_refused(scope: WorkspaceScope) -> None:
    with pytest.raises(ToolRefused, match="not a usable path"):
        scope.resolve("a\0b")


def test_relative_refuses_an_outside_path(scope: WorkspaceScope, tmp_path: Path) -> None:
    with pytest.raises(ToolRefused):
        scope.relative(tmp_path)


@pytest.mark.parametrize(
    "path", ["notes.md", "src/a.py", ".agent/memory.md", ".agent/memory/2024.md", ".agentx/a"]
)
def test_writable_paths(scope: WorkspaceScope, path: str) -> None:
    scope.check_writable(scope.resolve(path))


@pytest.mark.parametrize(
    "path",
    [".agent/skills/x.md", ".agent/actions.json", ".agent/memory", ".agent", ".Agent/x.md"],
)
def test_agent_folder_is_protected_outside_developer_mode(scope: WorkspaceScope, path: str) -> None:
    with pytest.raises(ToolRefused, match=r"\.agent/memory\.md"):
        scope.check_writable(scope.resolve(path))


def test_developer_mode_may_write_the_agent_folder(root: Path) -> None:
    scope = WorkspaceScope(root, developer_mode=True)
    scope.check_writable(scope.resolve(".agent/skills/x.md"))
    with pytest.raises(ToolRefused, match=r"\.git"):
        scope.check_writable(scope.resolve(".git/config"))


@pytest.mark.parametrize("path", [".git/config", ".git/hooks/pre-commit", "vendor/lib/.git/HEAD"])
def test_git_folders_are_never_writable(scope: WorkspaceScope, path: str) -> None:
    with pytest.raises(ToolRefused, match=r"\.git folder"):
        scope.check_writable(scope.resolve(path))


def test_memory_reached_through_a_link_to_skills_is_refused(
    scope: WorkspaceScope, root: Path
) -> None:
    (root / ".agent" / "skills").mkdir(parents=True)
    (root / ".agent" / "skills" / "s.md").write_text("skill")
    (root / ".agent" / "memory.md").symlink_to(root / ".agent" / "skills" / "s.md")
    with pytest.raises(ToolRefused):
        scope.check_writable(scope.resolve(".agent/memory.md"))
