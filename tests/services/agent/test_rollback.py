"""Rolling back the agent's changes: files go back to their state before the
agent's first change; a rollback over files changed since is refused,
listing them, and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.core.agent import FileChange, RollbackConflict
from mira_desktop.services.agent.file_tools import edit, write
from mira_desktop.services.agent.rollback import conflicts, rollback
from mira_desktop.services.agent.scope import WorkspaceScope


def test_restores_edits_deletes_creations_and_recreates_removals(
    scope: WorkspaceScope, root: Path
) -> None:
    (root / "app.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    (root / "gone.md").unlink(missing_ok=True)
    changes = [
        *edit(scope, "app.py", "y = 2", "y = 3").changes,
        *write(scope, "notes/new.md", "新文件\n").changes,
        FileChange("gone.md", "was here\n", None),  # a tool that removed a file
    ]
    assert conflicts(scope, changes) == []
    assert rollback(scope, changes) == ["app.py", "notes/new.md", "gone.md"]
    assert (root / "app.py").read_bytes() == b"x = 1\r\ny = 2\r\n"
    assert not (root / "notes" / "new.md").exists()
    assert (root / "gone.md").read_text() == "was here\n"


def test_several_changes_to_one_file(scope: WorkspaceScope, root: Path) -> None:
    (root / "a.txt").write_text("v1")
    changes = [
        *write(scope, "a.txt", "v2").changes,
        *edit(scope, "a.txt", "v2", "v3").changes,
        *write(scope, "b.txt", "b1").changes,
        *edit(scope, "b.txt", "b1", "b2").changes,
    ]
    assert rollback(scope, changes) == ["a.txt", "b.txt"]
    assert (root / "a.txt").read_text() == "v1"
    assert not (root / "b.txt").exists()


def test_conflicts_are_listed_and_nothing_is_written(scope: WorkspaceScope, root: Path) -> None:
    (root / "keep.txt").write_text("k1")
    (root / "edited.txt").write_text("e1")
    (root / "deleted.txt").write_text("d1")
    changes = [
        *write(scope, "keep.txt", "k2").changes,
        *write(scope, "edited.txt", "e2").changes,
        *write(scope, "deleted.txt", "d2").changes,
        *write(scope, "created.txt", "c").changes,
        FileChange("removed.txt", "r", None),
    ]
    (root / "edited.txt").write_text("someone else")
    (root / "deleted.txt").unlink()
    (root / "removed.txt").write_text("back again")
    expected = ["edited.txt", "deleted.txt", "removed.txt"]
    assert conflicts(scope, changes) == expected
    with pytest.raises(RollbackConflict) as refused:
        rollback(scope, changes)
    assert refused.value.files == expected
    assert "edited.txt, deleted.txt, removed.txt" in refused.value.message
    assert (root / "keep.txt").read_text() == "k2"
    assert (root / "created.txt").read_text() == "c"
    assert (root / "edited.txt").read_text() == "someone else"
    assert (root / "removed.txt").read_text() == "back again"


def test_a_folder_or_binary_in_place_of_a_file_conflicts(scope: WorkspaceScope, root: Path) -> None:
    changes = [*write(scope, "a.txt", "a").changes, *write(scope, "b.txt", "b").changes]
    (root / "a.txt").unlink()
    (root / "a.txt").mkdir()
    (root / "b.txt").write_bytes(b"\xff\xfe")
    assert conflicts(scope, changes) == ["a.txt", "b.txt"]


def test_a_path_now_leading_outside_conflicts(
    scope: WorkspaceScope, root: Path, tmp_path: Path
) -> None:
    changes = list(write(scope, "sub/a.txt", "a").changes)
    (root / "sub" / "a.txt").unlink()
    (root / "sub").rmdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.txt").write_text("a")
    (root / "sub").symlink_to(tmp_path / "elsewhere")
    assert conflicts(scope, changes) == ["sub/a.txt"]
    with pytest.raises(RollbackConflict):
        rollback(scope, changes)
    assert (tmp_path / "elsewhere" / "a.txt").read_text() == "a"


def test_nothing_to_roll_back(scope: WorkspaceScope) -> None:
    assert conflicts(scope, []) == []
    assert rollback(scope, []) == []
