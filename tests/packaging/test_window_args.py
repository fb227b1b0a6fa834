"""``mira-desktop FILE...`` hands files to the window without disturbing sub-commands:
files are recognised before argparse sees the arguments (see split_window_files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.cli.parser import build_parser, split_window_files


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("a.txt", "b.pdf", "chat"):
        (tmp_path / name).write_text("x")
    return tmp_path


def split(*argv: str) -> tuple[list[str], list[str]]:
    return split_window_files(build_parser(), argv)


def test_existing_paths_are_files_for_the_window(here: Path) -> None:
    assert split("a.txt", "b.pdf") == ([], ["a.txt", "b.pdf"])
    assert split("--verbose", "a.txt", "--theme", "dark", "missing.md") == (
        ["--verbose", "--theme", "dark"],
        ["a.txt", "missing.md"],  # after the first file, every positional is a file
    )
    args = build_parser().parse_args(split("--lang", "zh_CN", "a.txt")[0])
    assert args.command is None and args.lang == "zh_CN"


def test_sub_commands_are_untouched(here: Path) -> None:
    assert split("chat", "a.txt") == (["chat", "a.txt"], [])  # ./chat exists: still the command
    assert split("--data-dir", str(here), "thread", "list") == (
        ["--data-dir", str(here), "thread", "list"],
        [],
    )
    assert split("--data", str(here), "a.txt") == (["--data", str(here)], ["a.txt"])
    assert split("--data-dir=" + str(here), "a.txt") == (["--data-dir=" + str(here)], ["a.txt"])


def test_double_dash_forces_files(here: Path) -> None:
    assert split("--", "chat", "nope") == ([], ["chat", "nope"])


def test_unknown_words_are_left_to_argparse(here: Path) -> None:
    rest, files = split("chta", "hello")
    assert (rest, files) == (["chta", "hello"], [])
    with pytest.raises(SystemExit):
        build_parser().parse_args(rest)
