"""What an approval shows before a call runs: a summary and, for write and
edit, the unified diff; nothing is written, and impossible calls are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.core.agent import ToolPreview, ToolRefused
from mira_desktop.services.agent.previews import preview
from mira_desktop.services.agent.scope import WorkspaceScope


def test_write_preview_of_a_new_file(scope: WorkspaceScope, root: Path) -> None:
    shown = preview("write", {"path": "notes/todo.md", "content": "a\n买菜\n"}, scope)
    assert shown.summary == "Create notes/todo.md (2 lines)"
    assert shown.diff == ("--- a/notes/todo.md\n+++ b/notes/todo.md\n@@ -0,0 +1,2 @@\n+a\n+买菜\n")
    assert not (root / "notes").exists()


def test_write_preview_of_an_overwrite_without_final_newline(
    scope: WorkspaceScope, root: Path
) -> None:
    (root / "a.txt").write_text("old\n")
    shown = preview("write", {"path": "a.txt", "content": "new"}, scope)
    assert shown.summary == "Overwrite a.txt (1 line)"
    assert shown.diff == (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n\\ No newline at end of file\n"
    )
    assert (root / "a.txt").read_text() == "old\n"


def test_edit_preview_has_three_lines_of_context(scope: WorkspaceScope, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    shown = preview(
        "edit", {"path": "src/app.py", "old_string": "line 5\n", "new_string": "five\n"}, scope
    )
    assert shown.summary == "Edit src/app.py: 1 replacement"
    assert shown.diff.splitlines() == [
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "@@ -2,7 +2,7 @@",
        " line 2",
        " line 3",
        " line 4",
        "-line 5",
        "+five",
        " line 6",
        " line 7",
        " line 8",
    ]
    assert "line 5\n" in (root / "src" / "app.py").read_text()
    all_lines = preview(
        "edit",
        {"path": "src/app.py", "old_string": "line", "new_string": "row", "replace_all": True},
        scope,
    )
    assert all_lines.summary == "Edit src/app.py: 10 replacements"


def test_other_tools_get_a_one_line_summary(scope: WorkspaceScope, root: Path) -> None:
    (root / "src").mkdir()
    assert preview("bash", {"command": "rm -rf build"}, scope) == ToolPreview("rm -rf build")
    assert (
        preview("read", {"path": "a.txt", "offset": 5}, scope).summary == "Read a.txt from line 5"
    )
    assert preview("read", {"path": "a.txt"}, scope).summary == "Read a.txt"
    assert preview("ls", {}, scope).summary == "List ."
    assert preview("find", {"pattern": "**/*.py", "path": "src"}, scope).summary == (
        "Find **/*.py in src"
    )
    assert preview("grep", {"pattern": "TODO", "glob": "*.py"}, scope).summary == (
        "Search . (*.py) for 'TODO'"
    )
    assert preview("ls", {}, scope).diff == ""


def test_impossible_calls_are_refused_by_the_preview(scope: WorkspaceScope, root: Path) -> None:
    (root / "a.txt").write_text("hello")
    cases = [
        ("write", {"path": "../x", "content": "x"}, "outside"),
        ("write", {"path": ".agent/skills/x.md", "content": "x"}, r"\.agent/"),
        ("edit", {"path": "a.txt", "old_string": "bye", "new_string": "x"}, "not found"),
        ("edit", {"path": "gone.txt", "old_string": "a", "new_string": "b"}, "does not exist"),
        ("read", {"path": "/etc/passwd"}, "outside"),
        ("grep", {"pattern": "x", "path": ".."}, "outside"),
        ("write", {"path": "a.txt"}, "'content' is missing"),
        ("launch", {}, "no tool named 'launch'"),
    ]
    for name, arguments, message in cases:
        with pytest.raises(ToolRefused, match=message):
            preview(name, arguments, scope)
    assert (root / "a.txt").read_text() == "hello"


def test_bad_patterns_are_refused_by_the_preview(scope: WorkspaceScope) -> None:
    with pytest.raises(ToolRefused, match="Invalid regular expression"):
        preview("grep", {"pattern": "[unclosed"}, scope)
    with pytest.raises(ToolRefused, match="relative glob"):
        preview("find", {"pattern": "../*"}, scope)
    with pytest.raises(ToolRefused, match="relative glob"):
        preview("grep", {"pattern": "x", "glob": "/abs/*.py"}, scope)
