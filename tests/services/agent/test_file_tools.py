"""The agent's file tools on real files: read, ls, write and edit, their
refusals, caps, Chinese text and newline styles."""

from __future__ import annotations

import os
import stat
import tracemalloc
from pathlib import Path

import pytest

from mira_desktop.core.agent import FileChange, ToolRefused
from mira_desktop.services.agent import file_tools
from mira_desktop.services.agent.file_tools import edit, ls, read, write
from mira_desktop.services.agent.scope import WorkspaceScope
from mira_desktop.services.agent.text_io import MAX_CHANGED_BYTES


def test_read_numbers_lines(scope: WorkspaceScope, root: Path) -> None:
    (root / "a.txt").write_text("first\nsecond\r\nthird", "utf-8")
    outcome = read(scope, "a.txt")
    assert outcome.ok
    assert outcome.output == "   1\tfirst\n   2\tsecond\n   3\tthird"
    assert outcome.changes == ()


def test_read_offset_limit_and_continuation_note(scope: WorkspaceScope, root: Path) -> None:
    (root / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    outcome = read(scope, "long.txt", offset=10, limit=5)
    lines = outcome.output.splitlines()
    assert lines[:5] == [f"{n:>4}\tline {n}" for n in range(10, 15)]
    assert lines[5] == "… 86 more lines; read again with offset=15 to continue."
    assert "more lines" not in read(scope, "long.txt", offset=96).output
    with pytest.raises(ToolRefused, match="has 100 lines; offset 101 is past the end"):
        read(scope, "long.txt", offset=101)
    with pytest.raises(ToolRefused, match="1 or more"):
        read(scope, "long.txt", offset=0)


def test_read_width_grows_with_line_numbers(scope: WorkspaceScope, root: Path) -> None:
    (root / "big.txt").write_text("x\n" * 12_345)
    last = read(scope, "big.txt", offset=12_345).output
    assert last == "12345\tx"


def test_read_caps_characters_and_long_lines(scope: WorkspaceScope, root: Path) -> None:
    (root / "wide.txt").write_text(("y" * 1_500 + "\n") * 200)
    outcome = read(scope, "wide.txt")
    assert len(outcome.output) <= file_tools.MAX_READ_CHARS + 200
    assert "read again with offset=" in outcome.output
    (root / "one.txt").write_text("z" * 5_000)
    assert "3,000 more characters on this line" in read(scope, "one.txt").output


def test_a_huge_line_is_read_in_bounded_memory(scope: WorkspaceScope, root: Path) -> None:
    """A 60 MB file without newlines, as a minified bundle or a dump is: the
    read keeps its start, counts the rest, and never holds it whole."""
    with (root / "blob.js").open("w", encoding="utf-8") as handle:
        for _ in range(60):
            handle.write("é" * 500_000)  # 1 MB (two bytes a character)
        handle.write("\nnext line\n")
    tracemalloc.start()
    try:
        outcome = read(scope, "blob.js")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000
    first, second = outcome.output.splitlines()
    assert first == f"   1\t{'é' * 2_000} … [29,998,000 more characters on this line]"
    assert second == "   2\tnext line"


def test_read_chinese_and_invalid_utf8(scope: WorkspaceScope, root: Path) -> None:
    (root / "zh.md").write_text("你好，世界\n第二行\n", "utf-8")
    assert read(scope, "zh.md").output == "   1\t你好，世界\n   2\t第二行"
    (root / "latin.txt").write_bytes(b"caf\xe9\n")
    assert read(scope, "latin.txt").output == "   1\tcaf\ufffd"


def test_read_refusals(scope: WorkspaceScope, root: Path) -> None:
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (root / "dir").mkdir()
    (root / "empty.txt").write_text("")
    with pytest.raises(ToolRefused, match="binary"):
        read(scope, "img.png")
    with pytest.raises(ToolRefused, match="is a folder"):
        read(scope, "dir")
    with pytest.raises(ToolRefused, match="does not exist"):
        read(scope, "nope.txt")
    with pytest.raises(ToolRefused, match="outside"):
        read(scope, "../x")
    assert read(scope, "empty.txt").output == "empty.txt is empty."


def test_ls_folders_first_with_sizes_and_hidden(scope: WorkspaceScope, root: Path) -> None:
    (root / "b.txt").write_text("12345")
    (root / "A.md").write_bytes(b"x" * 2048)
    (root / ".env").write_text("k=v")
    (root / "zeta").mkdir()
    (root / ".git").mkdir()
    (root / "link").symlink_to(root / "b.txt")
    outcome = ls(scope)
    assert outcome.output.splitlines() == [
        ".git/",
        "zeta/",
        ".env  3 bytes",
        "A.md  2.0 KB",
        "b.txt  5 bytes",
        "link  5 bytes -> " + str(root / "b.txt"),
    ]
    assert ls(scope, "zeta").output == "zeta is empty."
    with pytest.raises(ToolRefused, match="not a folder"):
        ls(scope, "b.txt")
    with pytest.raises(ToolRefused, match="outside"):
        ls(scope, "..")


def test_ls_caps_entries(scope: WorkspaceScope, root: Path) -> None:
    for n in range(1_005):
        (root / f"f{n:04}").touch()
    lines = ls(scope).output.splitlines()
    assert len(lines) == 1_001
    assert lines[-1] == "… 5 more entries not shown."


def test_write_creates_folders_and_records_the_change(scope: WorkspaceScope, root: Path) -> None:
    outcome = write(scope, "notes/todo/list.md", "- 买菜\n- call\n")
    assert outcome.ok and outcome.output == "Created notes/todo/list.md (2 lines)."
    assert outcome.changes == (FileChange("notes/todo/list.md", None, "- 买菜\n- call\n"),)
    assert (root / "notes/todo/list.md").read_text("utf-8") == "- 买菜\n- call\n"
    again = write(scope, "notes/todo/list.md", "done\r\n")
    assert again.output == "Wrote notes/todo/list.md (1 line)."
    assert again.changes == (FileChange("notes/todo/list.md", "- 买菜\n- call\n", "done\r\n"),)
    assert (root / "notes/todo/list.md").read_bytes() == b"done\r\n"
    same = write(scope, "notes/todo/list.md", "done\r\n")
    assert same.changes == () and "nothing was written" in same.output


def test_write_keeps_permissions_and_leaves_no_temp_files(
    scope: WorkspaceScope, root: Path
) -> None:
    script = root / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o750)
    write(scope, "run.sh", "echo 2\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    write(scope, "new.txt", "x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((root / "new.txt").stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in root.iterdir()) == ["new.txt", "run.sh"]


def test_write_through_a_link_changes_the_target(scope: WorkspaceScope, root: Path) -> None:
    (root / "real.txt").write_text("old")
    (root / "alias.txt").symlink_to(root / "real.txt")
    outcome = write(scope, "alias.txt", "new")
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new"
    assert outcome.changes[0].path == "real.txt"


def test_write_refusals(scope: WorkspaceScope, root: Path) -> None:
    (root / "dir").mkdir()
    (root / "blob.bin").write_bytes(b"\0\1\2")
    (root / "latin.txt").write_bytes(b"caf\xe9")
    (root / "file.txt").write_text("x")
    cases = {
        "dir": "is a folder",
        "blob.bin": "binary",
        "latin.txt": "not UTF-8",
        "file.txt/inner.txt": "file.txt is a file",
        "../escape.txt": "outside",
        ".agent/skills/s.md": r"\.agent/memory\.md",
        ".git/config": r"\.git",
    }
    for path, message in cases.items():
        with pytest.raises(ToolRefused, match=message):
            write(scope, path, "new")
    assert (root / "blob.bin").read_bytes() == b"\0\1\2"
    assert not (root / ".agent").exists()
    write(scope, ".agent/memory.md", "remember")
    write(scope, ".agent/memory/2024/notes.md", "remember")


def test_edit_replaces_once_and_records(scope: WorkspaceScope, root: Path) -> None:
    (root / "app.py").write_text("x = 1\ny = 2\n")
    outcome = edit(scope, "app.py", "y = 2", "y = 3")
    assert outcome.output == "Edited app.py: 1 replacement."
    assert outcome.changes == (FileChange("app.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n"),)
    assert (root / "app.py").read_text() == "x = 1\ny = 3\n"


def test_edit_ambiguity_missing_and_replace_all(scope: WorkspaceScope, root: Path) -> None:
    (root / "a.txt").write_text("foo foo foo")
    with pytest.raises(ToolRefused, match=r"occurs 3 times.*replace_all"):
        edit(scope, "a.txt", "foo", "bar")
    with pytest.raises(ToolRefused, match="not found"):
        edit(scope, "a.txt", "baz", "bar")
    with pytest.raises(ToolRefused, match="the same"):
        edit(scope, "a.txt", "foo", "foo")
    with pytest.raises(ToolRefused, match="empty"):
        edit(scope, "a.txt", "", "bar")
    with pytest.raises(ToolRefused, match="does not exist; use write"):
        edit(scope, "b.txt", "foo", "bar")
    assert (root / "a.txt").read_text() == "foo foo foo"
    outcome = edit(scope, "a.txt", "foo", "bar", replace_all=True)
    assert outcome.output == "Edited a.txt: 3 replacements."
    assert (root / "a.txt").read_text() == "bar bar bar"


def test_edit_keeps_crlf(scope: WorkspaceScope, root: Path) -> None:
    (root / "win.txt").write_bytes("一\r\n二\r\n三\r\n".encode())
    edit(scope, "win.txt", "二\r\n", "二点五\r\n")
    assert (root / "win.txt").read_bytes() == "一\r\n二点五\r\n三\r\n".encode()
    # the model often sends LF for a CRLF file: the file stays CRLF
    edit(scope, "win.txt", "一\n二点五\n", "1\n2\n2.5\n")
    assert (root / "win.txt").read_bytes() == b"1\r\n2\r\n2.5\r\n\xe4\xb8\x89\r\n"


def test_edit_protected_and_binary_files(scope: WorkspaceScope, root: Path) -> None:
    (root / ".agent" / "skills").mkdir(parents=True)
    (root / ".agent" / "skills" / "s.md").write_text("skill")
    (root / "b.bin").write_bytes(b"a\0b")
    with pytest.raises(ToolRefused, match=r"\.agent/"):
        edit(scope, ".agent/skills/s.md", "skill", "x")
    with pytest.raises(ToolRefused, match="binary"):
        edit(scope, "b.bin", "a", "c")
    dev = WorkspaceScope(root, developer_mode=True)
    assert edit(dev, ".agent/skills/s.md", "skill", "x").ok


def test_pipes_are_refused_not_waited_on(scope: WorkspaceScope, root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(ToolRefused, match="not a regular file"):
        read(scope, "pipe")
    with pytest.raises(ToolRefused, match="not a regular file"):
        write(scope, "pipe", "x")
    with pytest.raises(ToolRefused, match="not a regular file"):
        edit(scope, "pipe", "a", "b")


def test_files_over_the_journals_limit_are_not_changed(scope: WorkspaceScope, root: Path) -> None:
    big = root / "big.log"
    big.write_text("x" * (MAX_CHANGED_BYTES + 1))
    with pytest.raises(ToolRefused, match="up to 5 MB"):
        edit(scope, "big.log", "x", "y")
    with pytest.raises(ToolRefused, match="up to 5 MB"):
        write(scope, "new.log", "y" * (MAX_CHANGED_BYTES + 1))
    assert not (root / "new.log").exists()
    (root / "small.txt").write_text("ab" * 1_000)
    with pytest.raises(ToolRefused, match=r"would be 6\.0 MB"):
        edit(scope, "small.txt", "ab", "x" * 6_000, replace_all=True)
    assert (root / "small.txt").read_text() == "ab" * 1_000
