"""``ImageCard``: an answer's picture under its text (PRODUCT.md §10) —
"Drawing an image…" while the model works, then the picture (its box sized
from the stored width and height, so the row does not jump when it arrives)
with Open and Save…, or why there is none with Try again. Built only for
answers that have an image (``core/illustration.ImageInfo`` in the data)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from mira_desktop.core.errors import error_from_dict
from mira_desktop.core.illustration import ImageInfo

from ..error_texts import hint_text, message_text
from ..plain_text import plain_tooltip
from .made_media_row import MadeMediaRow
from .message_state import shown_size
from .thumbnails import PictureLabel, Thumbnails


class ImageCard(MadeMediaRow):
    size_changed = Signal()

    def __init__(self, thumbnails: Thumbnails | None, parent: QWidget | None = None) -> None:
        super().__init__("image", parent)
        self._thumbnails = thumbnails
        self._info = ImageInfo("pending")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.picture = PictureLabel(self)
        self.picture.setObjectName("imagePicture")
        self.picture.setCursor(Qt.CursorShape.PointingHandCursor)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.clicked.connect(self.open_clicked)
        column.addWidget(self.picture, 0, Qt.AlignmentFlag.AlignLeft)
        column.addLayout(self.line)
        if thumbnails is not None:
            thumbnails.loaded.connect(self._on_loaded)
        self._retranslate()

    @property
    def info(self) -> ImageInfo:
        return self._info

    def show_info(self, info: ImageInfo) -> None:
        self._info = info
        failed = info.status == "failed" or info.retry_failed
        hint = hint_text(error_from_dict(info.error or {})) if failed else ""
        self._show_state(info, self._text(info), hint)
        self.picture.setVisible(info.status == "ready")
        if info.status == "ready":
            width, height = shown_size(info.width, info.height)
            self.picture.setFixedSize(width, height)
            self.picture.setToolTip(plain_tooltip(info.prompt))
            self._show_picture()

    def has_picture(self) -> bool:
        pixmap = self.picture.pixmap()
        return pixmap is not None and not pixmap.isNull()

    def _show_picture(self) -> None:
        info, thumbnails = self._info, self._thumbnails
        if thumbnails is None:
            return
        pixmap = thumbnails.pixmap(info.sha256)
        if pixmap is not None:
            self.picture.setPixmap(pixmap)
            self.picture.setText("")
        elif thumbnails.failed(info.sha256):
            self.picture.clear()
            self.picture.setText(self.tr("The picture cannot be shown."))
        else:
            self.picture.clear()
            thumbnails.request(info.sha256, info.width, info.height)

    def _on_loaded(self, sha256: str) -> None:
        if self._info.status == "ready" and sha256 == self._info.sha256:
            self._show_picture()
            self.size_changed.emit()

    def _text(self, info: ImageInfo) -> str:
        if info.status == "pending":
            return self.tr("Drawing an image…")
        if info.status == "failed":
            error = error_from_dict(info.error or {})
            return self.tr("No image: {0}").format(message_text(error))
        text = self.tr("Image · {0}×{1} · {2}").format(info.width, info.height, info.model)
        if info.retry_failed:
            error = error_from_dict(info.error or {})
            text += "\n" + self.tr("Drawing it again failed: {0}").format(message_text(error))
        return text

    def _retranslate(self) -> None:
        super()._retranslate()
        self.open_button.setText(self.tr("Open"))
        self.open_button.setToolTip(self.tr("Open with the system's image viewer"))
        self.show_info(self._info)
