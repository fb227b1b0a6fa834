"""The start copying the data to the folder chosen in Settings shows how far
it is (``ui/folder_copy_dialog.py``): before, a long copy showed nothing
until the window opened. Real widgets offscreen; the copy is a real thread,
held at a known point by the test so the dialog can be looked at."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from mira_desktop.services.data_folder import CopyProgress
from mira_desktop.ui.folder_copy_dialog import FolderCopyDialog, copy_with_progress
from mira_desktop.ui.i18n import install_translator

SHOTS = Path(os.environ.get("MIRA_SHOTS", "/tmp/shots"))


def dialogs() -> list[FolderCopyDialog]:
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, FolderCopyDialog)]


class HeldCopy:
    """A copy of ``total`` bytes that stops at half way until released."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.halfway = threading.Event()
        self.release = threading.Event()

    def __call__(self, progress: CopyProgress) -> str:
        progress.total = self.total
        progress.database_pages(1, 2, self.total)  # half of it
        self.halfway.set()
        assert self.release.wait(20), "the test never let the copy go on"
        progress.database_pages(2, 2, self.total)
        return "copied"


def look_then_release(copy: HeldCopy, seen: dict[str, Any], shot: str | None = None) -> None:
    """Once the copy is half way and its dialog shows: note what it says."""

    def look() -> None:
        shown = [d for d in dialogs() if d.isVisible()]
        if not (copy.halfway.is_set() and shown):
            QTimer.singleShot(20, look)
            return
        dialog = shown[0]
        dialog.refresh()
        seen.update(
            title=dialog.title.text(),
            detail=dialog.detail.text(),
            bar=dialog.bar.value(),
            title_bar=dialog.windowTitle(),
        )
        dialog.close()  # refused: the copy goes on
        QApplication.sendEvent(
            dialog,
            QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier),
        )
        seen["open_after_close_and_esc"] = dialog.isVisible()
        if shot:
            SHOTS.mkdir(parents=True, exist_ok=True)
            dialog.grab().save(str(SHOTS / shot))
        copy.release.set()

    QTimer.singleShot(0, look)


def test_a_long_copy_shows_how_far_it_is_until_it_ends(qapp: Any, tmp_path: Path) -> None:
    copy = HeldCopy(3 * 1024 * 1024 * 1024)
    seen: dict[str, Any] = {}
    look_then_release(copy, seen, "folder-copy-en.png")
    result = copy_with_progress(tmp_path / "new place", copy, show_after_ms=50)
    assert result == "copied"
    assert seen["title"] == f"Copying your data to {tmp_path / 'new place'}…"
    assert seen["detail"] == "1.50 GiB of 3.00 GiB" and seen["bar"] == 500
    assert seen["title_bar"] == "Mira Desktop"
    assert seen["open_after_close_and_esc"] is True
    assert not any(d.isVisible() for d in dialogs())  # gone once the copy ended


def test_the_dialog_speaks_the_language_the_switch_was_chosen_in(qapp: Any, tmp_path: Path) -> None:
    install_translator(qapp, "zh_CN")
    try:
        copy = HeldCopy(200 * 1024 * 1024)
        seen: dict[str, Any] = {}
        look_then_release(copy, seen, "folder-copy-zh.png")
        copy_with_progress(tmp_path / "数据", copy, show_after_ms=50)
    finally:
        install_translator(qapp, "en")
    assert seen["title"] == f"正在将你的数据复制到 {tmp_path / '数据'}…"
    assert seen["detail"] == "已复制 100.00 MiB，共 200.00 MiB"
    assert seen["title_bar"] == "Mira Desktop"


def test_a_quick_copy_shows_no_dialog(qapp: Any, tmp_path: Path) -> None:
    before = len(dialogs())
    assert copy_with_progress(tmp_path, lambda progress: 7) == 7
    assert len(dialogs()) == before


def test_a_failed_copy_raises_its_error_on_the_starting_thread(qapp: Any, tmp_path: Path) -> None:
    def fail(progress: CopyProgress) -> None:
        time.sleep(0.2)  # long enough for the dialog
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        copy_with_progress(tmp_path, fail, show_after_ms=50)
    assert not any(d.isVisible() for d in dialogs())
