"""A window's start when the data folder chosen in Settings is not there (a
drive not connected): the person is asked — Try again, the default folder
this time, or Quit — and nothing is created in its place. A headless start
(--screenshot) or a command says why and ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from mira_desktop.ui.missing_folder import ask_missing_folder

REPO = Path(__file__).resolve().parents[2]


def answer_with(text: str) -> None:
    """Click ``text`` in the question once it is shown."""

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        [button] = [b for b in box.buttons() if b.text() == text]
        button.click()

    QTimer.singleShot(0, click)


@pytest.mark.parametrize(
    ("button", "answer"),
    [("Try again", "retry"), ("Use the default folder this time", "default"), ("Quit", "quit")],
)
def test_the_person_chooses_what_happens(
    qapp: Any, tmp_path: Path, button: str, answer: str
) -> None:
    answer_with(button)
    assert ask_missing_folder(tmp_path / "usb" / "MiraData") == answer
    assert not (tmp_path / "usb").exists()


def test_a_headless_start_says_why_and_creates_nothing(tmp_path: Path) -> None:
    config = tmp_path / "config"
    chosen = config / "mira-desktop" / "data-folder.txt"
    chosen.parent.mkdir(parents=True)
    drive = tmp_path / "usb" / "MiraData"
    chosen.write_text(f"{drive}\n", encoding="utf-8")
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("MIRA_DATA_DIR", None)
    for args in (["--screenshot", str(tmp_path / "s.png")], ["thread", "list"]):
        done = subprocess.run(
            [sys.executable, "-m", "mira_desktop", *args],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=REPO,
            env=env,
        )
        assert done.returncode == 1 and "is not there" in done.stderr, done.stderr
    assert not (tmp_path / "usb").exists()
