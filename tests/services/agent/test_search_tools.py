"""find (glob) and grep (regular expression) over a real folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.core.agent import ToolRefused
from mira_desktop.services.agent import search_tools
from mira_desktop.services.agent.scope import WorkspaceScope
from mira_desktop.services.agent.search_tools import find, glob_regex, grep


@pytest.fixture
def tree(root: Path) -> Path:
    files = {
        "app.py": "import os\nprint('hi')\n",
        "README.md": "# Demo\n中文说明：搜索测试\n",
        "src/core/model.py": "class Model:\n    name = 'Model'\n",
        "src/core/view.ts": "export const view = 1;\n",
        "src/.hidden.py": "secret = 1\n",
        "docs/guide.md": "See Model for details.\r\nEnd\r\n",
        ".git/config": "[core] Model\n",
        "node_modules/pkg/index.py": "Model\n",
        "src/__pycache__/model.cpython.py": "Model\n",
        ".venv/lib/site.py": "Model\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    (root / "logo.bin").write_bytes(b"Model\0\0")
    return root


def test_find_globs_with_pathlib_semantics(scope: WorkspaceScope, tree: Path) -> None:
    assert find(scope, "*.py").output == "app.py"
    assert find(scope, "**/*.py").output.splitlines() == [
        "app.py",
        "src/.hidden.py",
        "src/core/model.py",
    ]
    assert find(scope, "src/**/*.ts").output == "src/core/view.ts"
    assert find(scope, "*.py", path="src/core").output == "src/core/model.py"
    assert find(scope, "**/core").output == "src/core/"
    assert find(scope, "**/[mv]*.?s").output == "src/core/view.ts"
    assert find(scope, "**/*.rs").output == "No files match **/*.rs in the workspace folder."


def test_find_refusals(scope: WorkspaceScope, tree: Path) -> None:
    for pattern in ("/etc/*", "../*", ""):
        with pytest.raises(ToolRefused, match="relative glob"):
            find(scope, pattern)
    with pytest.raises(ToolRefused, match="not a folder"):
        find(scope, "*", path="app.py")
    with pytest.raises(ToolRefused, match="outside"):
        find(scope, "*", path="..")


def test_find_caps_results(
    scope: WorkspaceScope, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_tools, "MAX_FIND", 10)
    for n in range(15):
        (root / f"f{n:02}.txt").touch()
    lines = find(scope, "*.txt").output.splitlines()
    assert lines[:10] == [f"f{n:02}.txt" for n in range(10)]
    assert lines[10] == "… 5 more matches not shown; narrow the pattern or path."


def test_glob_regex_components() -> None:
    assert glob_regex("**/*.py").match("a/b/c.py")
    assert glob_regex("**/*.py").match("c.py")
    assert not glob_regex("*.py").match("a/c.py")
    assert glob_regex("a/**").match("a/b/c")
    assert glob_regex("[!a]?.md").match("bc.md")
    assert not glob_regex("[!a]?.md").match("ac.md")
    assert glob_regex("a+b(1).txt").match("a+b(1).txt")


def test_bad_globs_are_refused_not_raised(scope: WorkspaceScope, tree: Path) -> None:
    for pattern in ("[z-a]", "**/[9-0]*.py"):
        with pytest.raises(ToolRefused, match="not a valid glob"):
            find(scope, pattern)
        with pytest.raises(ToolRefused, match="not a valid glob"):
            grep(scope, "x", glob=pattern)


def test_glob_classes_read_as_fnmatch_reads_them() -> None:
    assert [n for n in ("a", "]", "x", "/") if glob_regex("[!]x]").match(n)] == ["a"]
    assert [n for n in ("]", "x", "a") if glob_regex("[]x]").match(n)] == ["]", "x"]
    assert glob_regex("[[]*").match("[draft].md")
    assert [n for n in ("a", "&", "c") if glob_regex("[a&&b]").match(n)] == ["a", "&"]


def test_grep_lines_and_skips(scope: WorkspaceScope, tree: Path) -> None:
    assert grep(scope, "Model").output.splitlines() == [
        "docs/guide.md:1: See Model for details.",
        "src/core/model.py:1: class Model:",
        "src/core/model.py:2:     name = 'Model'",
    ]


def test_grep_chinese_glob_case_and_single_file(scope: WorkspaceScope, tree: Path) -> None:
    assert grep(scope, "搜索").output == "README.md:2: 中文说明：搜索测试"
    assert grep(scope, "model", ignore_case=True, glob="*.md").output == (
        "docs/guide.md:1: See Model for details."
    )
    assert grep(scope, "^class", glob="src/**/*.py").output == "src/core/model.py:1: class Model:"
    assert grep(scope, "End$", path="docs/guide.md").output == "docs/guide.md:2: End"
    assert grep(scope, "x", path="src/core").output == "src/core/view.ts:1: export const view = 1;"
    assert grep(scope, "nothing", path="docs").output == "No matches for 'nothing' in docs."
    assert (
        grep(scope, "nothing here").output
        == "No matches for 'nothing here' in the workspace folder."
    )


def test_grep_refusals(scope: WorkspaceScope, tree: Path) -> None:
    with pytest.raises(ToolRefused, match=r"Invalid regular expression '\(unclosed'"):
        grep(scope, "(unclosed")
    with pytest.raises(ToolRefused, match="outside"):
        grep(scope, "x", path="/")
    with pytest.raises(ToolRefused, match="does not exist"):
        grep(scope, "x", path="missing")


def test_grep_caps_matches_and_line_length(scope: WorkspaceScope, root: Path) -> None:
    (root / "many.txt").write_text(("hit " + "x" * 400 + "\n") * 400)
    lines = grep(scope, "hit").output.splitlines()
    assert len(lines) == search_tools.MAX_MATCHES + 1
    assert lines[0] == "many.txt:1: hit " + "x" * 296 + " …"
    assert lines[-1].startswith("… stopped after 300 matches")


def test_grep_skips_big_files_and_links_outside(
    scope: WorkspaceScope, root: Path, tmp_path: Path
) -> None:
    (root / "big.log").write_bytes(b"needle\n" + b"." * search_tools.MAX_GREP_BYTES)
    (tmp_path / "outside.txt").write_text("needle\n")
    (root / "peek.txt").symlink_to(tmp_path / "outside.txt")
    (root / "inside.txt").write_text("needle\n")
    (root / "same.txt").symlink_to(root / "inside.txt")
    output = grep(scope, "needle").output
    assert output.splitlines() == [
        "inside.txt:1: needle",
        "same.txt:1: needle",
        "(1 file over 2 MB not searched.)",
    ]
