"""``ImageCard``: an answer's picture under its text (PRODUCT.md §10) —
"Drawing an image…" while the model works, then the picture (its box sized
from the stored width and height, so the row does not jump when it arrives)
with Open and Save…, or why there is none with Try again. Built only for
answers that have an image (``core/illustration.ImageInfo`` in the data)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from mira_desktop.core.errors import error_from_dict
from mira_desktop.core.illustration import ImageInfo

from ..error_texts import hint_text, message_text
from .answer_meta import apply_tone
from .message_state import shown_size
from .thumbnails import Thumbnails


class _Picture(QLabel):
    clicked = Signal()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class ImageCard(QWidget):
    open_clicked = Signal()
    save_clicked = Signal()
    retry_clicked = Signal()
    size_changed = Signal()

    def __init__(self, thumbnails: Thumbnails | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("imageCard")
        self._thumbnails = thumbnails
        self._info = ImageInfo("pending")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.picture = _Picture(self)
        self.picture.setObjectName("imagePicture")
        self.picture.setCursor(Qt.CursorShape.PointingHandCursor)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.clicked.connect(self.open_clicked)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.label = QLabel(self)
        self.label.setObjectName("imageLabel")
        self.label.setWordWrap(True)
        self.open_button = self._button("imageOpen", self.open_clicked)
        self.save_button = self._button("imageSave", self.save_clicked)
        self.retry_button = self._button("imageRetry", self.retry_clicked)
        row.addWidget(self.label, 1)
        for button in (self.open_button, self.save_button, self.retry_button):
            row.addWidget(button, 0)
        column.addWidget(self.picture, 0, Qt.AlignmentFlag.AlignLeft)
        column.addLayout(row)
        if thumbnails is not None:
            thumbnails.loaded.connect(self._on_loaded)
        self._retranslate()

    def _button(self, name: str, signal: Signal) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        button.clicked.connect(signal)
        return button

    @property
    def info(self) -> ImageInfo:
        return self._info

    def show_info(self, info: ImageInfo) -> None:
        self._info = info
        ready, failed = info.status == "ready", info.status == "failed"
        self.open_button.setVisible(ready)
        self.save_button.setVisible(ready)
        self.retry_button.setVisible(failed)
        self.picture.setVisible(ready)
        apply_tone(self.label, "error" if failed else "muted")
        self.label.setText(self._text(info))
        self.label.setToolTip(hint_text(error_from_dict(info.error or {})) if failed else "")
        if ready:
            width, height = shown_size(info.width, info.height)
            self.picture.setFixedSize(width, height)
            self.picture.setToolTip(info.prompt)
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
        return self.tr("Image · {0}×{1} · {2}").format(info.width, info.height, info.model)

    def _retranslate(self) -> None:
        self.open_button.setText(self.tr("Open"))
        self.open_button.setToolTip(self.tr("Open with the system's image viewer"))
        self.save_button.setText(self.tr("Save…"))
        self.retry_button.setText(self.tr("Try again"))
        self.show_info(self._info)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)
