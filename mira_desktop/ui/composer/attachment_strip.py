"""``AttachmentStrip``: the row of attachment chips inside the composer.

A chip shows one file the next message will carry: a thumbnail for an image or
a small badge with the file type, the name (elided), a detail line (type, pages
or image size, file size) and ✕. A chip is first shown *reading* (the file is
parsed off the Qt thread) and becomes *ready* when the service has prepared it;
the strip only knows chips by key and emits ``remove_requested(key)`` — the
attachments controller decides what removing means (discarding the held file).
The strip is hidden while it has no chips."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

log = logging.getLogger(__name__)

CHIP_WIDTH = 224
#: the chips' look, from the palette so both themes follow
_CHIP_QSS = """
#AttachmentChip {
    background: palette(alternate-base); border: 1px solid palette(mid); border-radius: 10px;
}
QToolButton#AttachmentRemove {
    border: none; background: transparent; padding: 1px 4px; border-radius: 6px;
}
QToolButton#AttachmentRemove:hover { background: palette(mid); }
"""
ICON_SIZE = 34


@dataclass(frozen=True, slots=True)
class ChipInfo:
    """What a ready chip shows. ``badge`` is the short type label ("PDF");
    ``preview``: the start of what an audio file says, in the tooltip."""

    name: str
    detail: str
    badge: str
    thumbnail_png: bytes | None = None
    preview: str = ""


def _badge_pixmap(text: str, palette: QPalette, ratio: float) -> QPixmap:
    pixmap = QPixmap(int(ICON_SIZE * ratio), int(ICON_SIZE * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    accent = QColor(palette.color(QPalette.ColorRole.Accent))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(accent)
    painter.drawRoundedRect(QRectF(0, 0, ICON_SIZE, ICON_SIZE), 7, 7)
    font = QFont(painter.font())
    font.setBold(True)
    font.setPixelSize(10 if len(text) > 3 else 11)
    painter.setFont(font)
    painter.setPen(QColor(palette.color(QPalette.ColorRole.BrightText)))
    painter.drawText(QRectF(0, 0, ICON_SIZE, ICON_SIZE), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return pixmap


def _thumbnail_pixmap(data: bytes, ratio: float) -> QPixmap | None:
    pixmap = QPixmap()
    if not pixmap.loadFromData(data):
        return None
    side = int(ICON_SIZE * ratio)
    scaled = pixmap.scaled(
        side,
        side,
        Qt.AspectRatioMode.KeepAspectRatioByExpanding,
        Qt.TransformationMode.SmoothTransformation,
    )
    x, y = (scaled.width() - side) // 2, (scaled.height() - side) // 2
    cropped = scaled.copy(x, y, side, side)
    cropped.setDevicePixelRatio(ratio)
    return cropped


class AttachmentChip(QFrame):
    """One chip. Signal: ``remove_clicked(key)``."""

    remove_clicked = Signal(str)

    def __init__(
        self, key: str, name: str, parent: QWidget | None = None, *, audio: bool = False
    ) -> None:
        super().__init__(parent)
        self.key = key
        self.info: ChipInfo | None = None
        self._audio = audio  # written down while it is read: it says so
        self.setObjectName("AttachmentChip")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setFixedWidth(CHIP_WIDTH)
        self.icon = QLabel(self)
        self.icon.setObjectName("AttachmentIcon")
        self.icon.setFixedSize(ICON_SIZE, ICON_SIZE)
        self.name_label = QLabel(self)
        self.name_label.setObjectName("AttachmentName")
        self.detail_label = QLabel(self)
        self.detail_label.setObjectName("AttachmentDetail")
        self.detail_label.setProperty("muted", True)
        small = self.detail_label.font()
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.86))
        self.detail_label.setFont(small)
        self.remove_button = QToolButton(self)
        self.remove_button.setObjectName("AttachmentRemove")
        self.remove_button.setText("✕")
        self.remove_button.setAutoRaise(True)
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.clicked.connect(lambda: self.remove_clicked.emit(self.key))
        self._build_layout()
        self._name = name
        self._retranslate()
        self._set_name(name)
        self.icon.setPixmap(_badge_pixmap("…", self.palette(), self.devicePixelRatioF()))

    def _build_layout(self) -> None:
        texts = QVBoxLayout()
        texts.setContentsMargins(0, 0, 0, 0)
        texts.setSpacing(0)
        texts.addWidget(self.name_label)
        texts.addWidget(self.detail_label)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 5, 2, 5)
        row.setSpacing(8)
        row.addWidget(self.icon)
        row.addLayout(texts, 1)
        row.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)

    def is_ready(self) -> bool:
        return self.info is not None

    def set_ready(self, info: ChipInfo) -> None:
        self.info = info
        self._set_name(info.name)
        metrics = self.detail_label.fontMetrics()
        width = CHIP_WIDTH - ICON_SIZE - 56
        self.detail_label.setText(
            metrics.elidedText(info.detail, Qt.TextElideMode.ElideRight, width)
        )
        import html  # with the first ready chip (the first frame has none)

        tip = f"<b>{html.escape(info.name)}</b><br>{html.escape(info.detail)}"
        if info.preview:  # rich text: Qt wraps it at a readable width
            tip += f"<p>“{html.escape(info.preview)}”</p>"
        self.setToolTip(tip)
        self._paint_icon()

    def _paint_icon(self) -> None:
        ratio = self.devicePixelRatioF()
        info = self.info
        pixmap = None
        if info is not None and info.thumbnail_png:
            pixmap = _thumbnail_pixmap(info.thumbnail_png, ratio)
        if pixmap is None:
            badge = info.badge if info is not None else "…"
            pixmap = _badge_pixmap(badge, self.palette(), ratio)
        self.icon.setPixmap(pixmap)

    def _set_name(self, name: str) -> None:
        self._name = name
        width = CHIP_WIDTH - ICON_SIZE - 56
        metrics = self.name_label.fontMetrics()
        self.name_label.setText(metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, width))
        self._name_remove_button()

    def _name_remove_button(self) -> None:
        """Announced with the file it removes, not as "✕"."""
        self.remove_button.setAccessibleName(self.tr("Remove {0}").format(self._name))

    def _retranslate(self) -> None:
        self.remove_button.setToolTip(self.tr("Remove this attachment"))
        self._name_remove_button()
        if self.info is None:
            self.detail_label.setText(
                self.tr("Writing down what is said…") if self._audio else self.tr("Reading…")
            )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        elif event.type() == QEvent.Type.PaletteChange:
            self._paint_icon()


class AttachmentStrip(QWidget):
    """The chips of the draft, in order, wrapping onto more lines when they do
    not fit. Signals: ``remove_requested(key)``, ``changed()``."""

    remove_requested = Signal(str)
    changed = Signal()

    SPACING = 6

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AttachmentStrip")
        self.setStyleSheet(_CHIP_QSS)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._chips: dict[str, AttachmentChip] = {}
        self.setVisible(False)

    # ---- chips ---------------------------------------------------------------------
    def add_chip(self, key: str, name: str, *, audio: bool = False) -> AttachmentChip:
        """A chip in its *reading* state (at the end of the row); an audio
        file's says it is being written down."""
        chip = AttachmentChip(key, name, self, audio=audio)
        chip.remove_clicked.connect(self.remove_requested)
        self._chips[key] = chip
        chip.show()
        self._update()
        return chip

    def set_ready(self, key: str, info: ChipInfo) -> None:
        chip = self._chips.get(key)
        if chip is not None:
            chip.set_ready(info)
            self.changed.emit()

    def remove_chip(self, key: str) -> None:
        chip = self._chips.pop(key, None)
        if chip is not None:
            chip.hide()
            chip.deleteLater()
            self._update()

    def clear_chips(self) -> None:
        for key in list(self._chips):
            self.remove_chip(key)

    def chip_keys(self) -> list[str]:
        return list(self._chips)

    def chip(self, key: str) -> AttachmentChip | None:
        return self._chips.get(key)

    def chips(self) -> list[AttachmentChip]:
        return list(self._chips.values())

    # ---- layout --------------------------------------------------------------------
    def _chip_height(self) -> int:
        chip = next(iter(self._chips.values()), None)
        return chip.sizeHint().height() if chip is not None else ICON_SIZE + 10

    def _columns(self, width: int) -> int:
        return max(1, (width + self.SPACING) // (CHIP_WIDTH + self.SPACING))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        if not self._chips:
            return 0
        rows = -(-len(self._chips) // self._columns(width))
        return rows * self._chip_height() + (rows - 1) * self.SPACING

    def sizeHint(self) -> QSize:
        return QSize(CHIP_WIDTH, self.heightForWidth(max(self.width(), CHIP_WIDTH)))

    def minimumSizeHint(self) -> QSize:
        return QSize(CHIP_WIDTH, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place()

    def _place(self) -> None:
        columns, height = self._columns(self.width()), self._chip_height()
        for index, chip in enumerate(self._chips.values()):
            row, column = divmod(index, columns)
            x = column * (CHIP_WIDTH + self.SPACING)
            chip.setGeometry(x, row * (height + self.SPACING), CHIP_WIDTH, height)

    def _update(self) -> None:
        self.setVisible(bool(self._chips))
        self.updateGeometry()
        self._place()
        self.changed.emit()
