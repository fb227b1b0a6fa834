"""What the window's start shows while it copies the data to the folder
chosen in Settings (``folder_switch.py``): a copy of a large library takes
minutes, and a start that showed nothing meanwhile looked like one that had
failed — people launched it again, or ended it.

The copy runs in a thread of its own; this start's loop waits in a local
``QEventLoop`` and shows how far it is (the dialog appears only when the copy
lasts longer than ``SHOW_AFTER_MS``). The dialog cannot be closed: a copy cut
short is undone at the next start anyway, and the window opens as soon as
the copy ends."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QEventLoop, QLocale, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QKeyEvent
from PySide6.QtWidgets import QDialog, QLabel, QProgressBar, QVBoxLayout, QWidget

from ..services.data_folder import CopyProgress

T = TypeVar("T")

#: a copy over before this shows no dialog (no flash for a small library)
SHOW_AFTER_MS = 400
#: how often the dialog reads the progress
POLL_MS = 100


class FolderCopyDialog(QDialog):
    """ "Copying your data to …": the bytes done of the total, and a bar."""

    def __init__(self, target: Path, progress: CopyProgress, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("folderCopyDialog")
        self.setWindowTitle(self.tr("Mira Desktop"))
        self.setWindowFlag(Qt.WindowType.WindowCloseButtonHint, False)
        self._progress = progress
        self.title = QLabel(self.tr("Copying your data to {folder}…").format(folder=target))
        self.title.setObjectName("folderCopyTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.detail = QLabel()
        self.detail.setObjectName("folderCopyDetail")
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        note = QLabel(
            self.tr("Mira opens when the copy is done. The previous folder is left as it was.")
        )
        note.setWordWrap(True)
        note.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        for widget in (self.title, self.bar, self.detail, note):
            layout.addWidget(widget)
        self.setMinimumWidth(460)
        self.refresh()

    def refresh(self) -> None:
        done, total = self._progress.done, self._progress.total
        self.bar.setValue(1000 * done // total if total else 0)
        locale = QLocale()
        self.detail.setText(
            self.tr("{done} of {total}").format(
                done=locale.formattedDataSize(done), total=locale.formattedDataSize(total)
            )
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        event.ignore()  # the copy goes on; the window follows it

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() != Qt.Key.Key_Escape:  # Esc would reject (hide) the dialog
            super().keyPressEvent(event)


def copy_with_progress(
    target: Path, work: Callable[[CopyProgress], T], *, show_after_ms: int = SHOW_AFTER_MS
) -> T:
    """``work(progress)`` in a thread, with the dialog shown while it lasts
    (after ``show_after_ms``); its result, or its exception raised here."""
    progress = CopyProgress()
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = work(progress)
        except BaseException as exc:  # raised again on this thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="mira-folder-copy")
    thread.start()
    thread.join(show_after_ms / 1000)
    if thread.is_alive():
        dialog = FolderCopyDialog(target, progress)
        loop = QEventLoop()
        timer = QTimer()
        timer.setInterval(POLL_MS)

        def poll() -> None:
            dialog.refresh()
            if not thread.is_alive():
                loop.quit()

        timer.timeout.connect(poll)
        timer.start()
        dialog.show()
        loop.exec()
        timer.stop()
        dialog.hide()
        dialog.deleteLater()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]  # type: ignore[return-value]
