"""Files and images arriving by drag and drop or paste (PRODUCT.md §7).

:func:`local_files` reads the local file paths out of a ``QMimeData`` (file
URLs; anything else is left to the text editor), :func:`pasted_image` the
image of a clipboard that holds one and no text (a screenshot: a table copied
from a spreadsheet carries a picture of itself too, and is pasted as the
text it is, :func:`mime_text`), and :func:`png_bytes`
encodes such an image — a pure function, so the window runs it in a worker
thread. :class:`FileDropFilter` lets any area of the window (the timeline, the
welcome page) take dropped files without subclassing it."""

from __future__ import annotations

import logging

from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QMimeData, QObject, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QImage, QTextDocumentFragment
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)


def local_files(mime: QMimeData | None) -> list[str]:
    """Local file paths among the URLs of ``mime`` (remote URLs are ignored)."""
    if mime is None or not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile() and url.toLocalFile()]


def mime_text(mime: QMimeData | None) -> str:
    """The text ``mime`` carries: its plain text, else the words of its HTML
    ("" when there are none, e.g. the HTML of a copied picture)."""
    if mime is None:
        return ""
    if mime.hasText() and mime.text().strip():
        return mime.text()
    if mime.hasHtml():
        words = QTextDocumentFragment.fromHtml(mime.html()).toPlainText()
        words = words.replace("\ufffc", "")  # what stands for an <img>
        if words.strip():
            return words.strip("\n")
    return ""


def pasted_image(mime: QMimeData | None) -> QImage | None:
    """The image a clipboard or drop carries, when it carries no files and no
    text (spreadsheets put a picture of the copied cells beside their text)."""
    if mime is None or not mime.hasImage() or local_files(mime) or mime_text(mime):
        return None
    image = mime.imageData()
    if isinstance(image, QImage) and not image.isNull():
        return image
    return None


def is_attachable(mime: QMimeData | None) -> bool:
    return bool(local_files(mime)) or pasted_image(mime) is not None


def png_bytes(image: QImage) -> bytes:
    """``image`` as PNG (safe in a worker thread: QImage is reentrant)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # the stub types ``format`` as bytes, but PySide6 6.11 takes only str here
    # (b"PNG" raises ValueError at run time); the paste test covers it
    image.save(buffer, "PNG")  # type: ignore[call-overload]
    buffer.close()
    return bytes(data.data())


class FileDropFilter(QObject):
    """Event filter that makes ``widget`` accept dropped files and images.
    Signals: ``files_dropped(list[str])``, ``image_dropped(QImage)``."""

    files_dropped = Signal(list)
    image_dropped = Signal(QImage)

    def watch(self, widget: QWidget) -> None:
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent | QDragMoveEvent)
            if is_attachable(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            return self.take(event)
        return False

    def take(self, event: QDropEvent) -> bool:
        """Handle a drop; True when it carried files or an image."""
        mime = event.mimeData()
        files = local_files(mime)
        image = pasted_image(mime)
        if files:
            self.files_dropped.emit(files)
        elif image is not None:
            self.image_dropped.emit(image)
        else:
            return False
        event.acceptProposedAction()
        return True
