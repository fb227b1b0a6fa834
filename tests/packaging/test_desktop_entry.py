"""``mira-desktop --install-desktop-entry`` writes the XDG launcher and icons for the
current user, pointing at the installed program, and is idempotent."""

from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mira_desktop import app, desktop_entry
from mira_desktop.desktop_entry import (
    APP_ID,
    ICON_SIZES,
    exec_argument,
    install_desktop_entry,
    xdg_data_home,
)

pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="XDG only")


def _launcher(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    launcher = folder / "mira-desktop"
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o755)
    return launcher


def _entry(data_home: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(data_home / "applications" / f"{APP_ID}.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_installs_entry_and_icons(tmp_path: Path) -> None:
    launcher = _launcher(tmp_path / "venv" / "bin")
    lines: list[str] = []
    assert install_desktop_entry(tmp_path / "share", launcher, echo=lines.append) == 0

    entry = _entry(tmp_path / "share")
    assert entry["Exec"] == f"{launcher} %F"
    assert entry["TryExec"] == str(launcher)
    assert entry["Icon"] == APP_ID and entry["Name"] == "Mira Desktop"
    icons = tmp_path / "share" / "icons" / "hicolor"
    for size in ICON_SIZES:
        assert (icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png").is_file()
    assert (icons / "scalable" / "apps" / f"{APP_ID}.svg").read_text().startswith("<svg")
    written = [line for line in lines if line.startswith("wrote")]
    assert len(written) == 1 + len(ICON_SIZES) + 1


def test_second_run_changes_nothing_and_a_moved_program_is_picked_up(tmp_path: Path) -> None:
    share = tmp_path / "share"
    install_desktop_entry(share, _launcher(tmp_path / "a"), echo=lambda _: None)
    desktop = share / "applications" / f"{APP_ID}.desktop"
    before = desktop.stat().st_mtime_ns

    lines: list[str] = []
    assert install_desktop_entry(share, _launcher(tmp_path / "a"), echo=lines.append) == 0
    assert desktop.stat().st_mtime_ns == before
    assert not [line for line in lines if line.startswith("wrote")]

    moved = _launcher(tmp_path / "b")
    lines.clear()
    install_desktop_entry(share, moved, echo=lines.append)
    assert [line.split()[-1] for line in lines if line.startswith("wrote")] == [str(desktop)]
    assert _entry(share)["Exec"] == f"{moved} %F"


def test_paths_with_spaces_are_quoted(tmp_path: Path) -> None:
    launcher = _launcher(tmp_path / "My Apps" / "bin")
    install_desktop_entry(tmp_path / "share", launcher, echo=lambda _: None)
    assert _entry(tmp_path / "share")["Exec"] == f'"{launcher}" %F'
    assert exec_argument('/o"dd/$x%') == '"/o\\\\"dd/\\\\$x%%"'
    assert exec_argument("/plain/path") == "/plain/path"


@pytest.mark.skipif(not shutil.which("desktop-file-validate"), reason="desktop-file-utils")
def test_installed_entry_is_valid(tmp_path: Path) -> None:
    install_desktop_entry(tmp_path, _launcher(tmp_path / "my bin"), echo=lambda _: None)
    result = subprocess.run(
        ["desktop-file-validate", str(tmp_path / "applications" / f"{APP_ID}.desktop")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_xdg_data_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert xdg_data_home() == tmp_path
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert xdg_data_home() == Path.home() / ".local" / "share"


def test_the_command_line_flag(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    launcher = _launcher(tmp_path / "bin")
    monkeypatch.setattr(desktop_entry, "find_launcher", lambda: launcher)
    assert app.main(["--install-desktop-entry"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path / "xdg" / "applications" / f"{APP_ID}.desktop") in out
    assert _entry(tmp_path / "xdg")["Exec"] == f"{launcher} %F"


def test_no_program_found(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(desktop_entry, "find_launcher", lambda: None)
    lines: list[str] = []
    assert install_desktop_entry(tmp_path, echo=lines.append) == 1
    assert "Cannot find" in lines[0]
    assert not (tmp_path / "applications").exists()
