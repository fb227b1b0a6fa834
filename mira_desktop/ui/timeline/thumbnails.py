"""``Thumbnails``: pictures of the media store scaled for the timeline, read
and scaled off the Qt thread (a 1024×1024 PNG costs ~20 ms to decode), kept
for the rows that scroll back, and announced with ``loaded(sha256)``."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QImage, QMouseEvent, QPixmap
from PySide6.QtWidgets import QLabel

from .message_state import shown_size

log = logging.getLogger(__name__)


def _scaled(path: Path, size: tuple[int, int], square: int) -> QImage | None:
    """The picture at ``size``, or (``square`` > 0) filling a square of that
    side, its middle kept."""
    image = QImage(str(path))
    if image.isNull():
        return None
    if not square:
        return image.scaled(
            size[0],
            size[1],
            Qt.AspectRatioMode.IgnoreAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    filled = image.scaled(
        square,
        square,
        Qt.AspectRatioMode.KeepAspectRatioByExpanding,
        Qt.TransformationMode.SmoothTransformation,
    )
    return filled.copy(
        (filled.width() - square) // 2, (filled.height() - square) // 2, square, square
    )


def _key(sha256: str, square: int) -> str:
    return f"{sha256}#{square}" if square else sha256


class Thumbnails(QObject):
    loaded = Signal(str)  # sha256: its pixmap is ready (or could not be read)

    def __init__(
        self, path_of: Callable[[str], Path], parent: QObject | None = None, *, keep: int = 48
    ) -> None:
        super().__init__(parent)
        self._path_of = path_of
        self._keep = keep
        self._cache: OrderedDict[str, QPixmap | None] = OrderedDict()
        self._loading: set[str] = set()
        self._tasks: set[asyncio.Future[None]] = set()

    def pixmap(self, sha256: str, *, square: int = 0) -> QPixmap | None:
        """The picture scaled (``square``: a square of that side), once loaded
        (None meanwhile, or if unreadable)."""
        key = _key(sha256, square)
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
        return found

    def failed(self, sha256: str, *, square: int = 0) -> bool:
        key = _key(sha256, square)
        return key in self._cache and self._cache[key] is None

    def request(self, sha256: str, width: int, height: int, *, square: int = 0) -> None:
        """Load the picture in the background unless it is loaded or on its way."""
        key = _key(sha256, square)
        if key in self._cache or key in self._loading:
            return
        self._loading.add(key)
        size = shown_size(width, height)
        task = asyncio.ensure_future(self._load(sha256, key, size, square))
        self._tasks.add(task)  # kept until done: a task nobody holds may be collected
        task.add_done_callback(self._tasks.discard)

    async def _load(self, sha256: str, key: str, size: tuple[int, int], square: int) -> None:
        try:
            image = await asyncio.to_thread(_scaled, self._path_of(sha256), size, square)
        except Exception:
            log.warning("could not read the picture %s", sha256[:12], exc_info=True)
            image = None
        finally:
            self._loading.discard(key)
        self._cache[key] = QPixmap.fromImage(image) if image is not None else None
        while len(self._cache) > self._keep:
            self._cache.popitem(last=False)
        self.loaded.emit(sha256)


class PictureLabel(QLabel):
    """A picture that opens on a click (an answer's, an attached one)."""

    clicked = Signal()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mouseReleaseEvent(event)
