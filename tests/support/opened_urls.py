"""What the window hands to the system's programs (``QDesktopServices.openUrl``),
captured through Qt's own URL handler hook instead of opening anything."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices


class _Opener(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url)


@contextmanager
def opened_files() -> Iterator[list[QUrl]]:
    """The ``file:`` URLs opened while the block runs."""
    opener = _Opener()
    QDesktopServices.setUrlHandler("file", opener, "open")
    try:
        yield opener.opened
    finally:
        QDesktopServices.unsetUrlHandler("file")
