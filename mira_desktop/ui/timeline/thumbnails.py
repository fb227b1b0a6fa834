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
from PySide6.QtGui import QImage, QPixmap

from .message_state import shown_size

log = logging.getLogger(__name__)


def _scaled(path: Path, size: tuple[int, int]) -> QImage | None:
    image = QImage(str(path))
    if image.isNull():
        return None
    return image.scaled(
        size[0],
        size[1],
        Qt.AspectRatioMode.IgnoreAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )


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

    def pixmap(self, sha256: str) -> QPixmap | None:
        """The picture scaled, once loaded (None meanwhile, or if unreadable)."""
        found = self._cache.get(sha256)
        if found is not None:
            self._cache.move_to_end(sha256)
        return found

    def failed(self, sha256: str) -> bool:
        return sha256 in self._cache and self._cache[sha256] is None

    def request(self, sha256: str, width: int, height: int) -> None:
        """Load the picture in the background unless it is loaded or on its way."""
        if sha256 in self._cache or sha256 in self._loading:
            return
        self._loading.add(sha256)
        asyncio.get_event_loop().create_task(self._load(sha256, shown_size(width, height)))

    async def _load(self, sha256: str, size: tuple[int, int]) -> None:
        try:
            image = await asyncio.to_thread(_scaled, self._path_of(sha256), size)
        except Exception:
            log.warning("could not read the picture %s", sha256[:12], exc_info=True)
            image = None
        finally:
            self._loading.discard(sha256)
        self._cache[sha256] = QPixmap.fromImage(image) if image is not None else None
        while len(self._cache) > self._keep:
            self._cache.popitem(last=False)
        self.loaded.emit(sha256)
