"""Which of a repository's own git settings make read-only git commands run a
program (``git_settings.py``), read by the real git from real repositories."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mira_desktop.services.agent.git_settings import programs_in_settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def test_the_repositorys_own_program_settings_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[core]\n\tpager = less -R\n[credential]\n\thelper = store\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    assert programs_in_settings(repo) == []  # not a repository
    git(repo, "init", "-q")
    assert programs_in_settings(repo) == []  # the user's own settings are theirs
    git(repo, "config", "core.fsmonitor", "true")  # git's own monitor
    git(repo, "config", "credential.helper", "")  # resets the list: no program
    git(repo, "config", "pager.log", "false")
    assert programs_in_settings(repo) == []
    git(repo, "config", "diff.Pictures.textconv", "exiftool")
    git(repo, "config", "filter.lfs.clean", "sh -c 'touch x'")
    (repo / "extra.cfg").write_text("[gpg]\n\tprogram = ./sign.sh\n")
    git(repo, "config", "include.path", "../extra.cfg")  # an included file counts too
    assert programs_in_settings(repo) == [
        "diff.pictures.textconv=exiftool",
        "filter.lfs.clean=sh -c 'touch x'",
        "gpg.program=./sign.sh",
    ]
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    assert len(programs_in_settings(sub)) == 3  # found from a folder inside the repository
