"""``ContextMeterWidget``: the context usage ring next to the composer's Send
button (PRODUCT.md §4, 002 上下文使用量监测).

The ring fills with the share of the model's context window the next request
would use — accent colour, amber from 80 %, red from 95 % — and is an empty
grey ring while the window is unknown (the model has no context window set).
A click opens :class:`MeterPopup` with the figures: current tokens, peak
tokens, window, remaining, and a hint to ``/compact`` when the window is
nearly full. The widget only shows a :class:`~mira_desktop.core.context.Meter`;
the window's composer actions measure (off the Qt thread) and call
:meth:`ContextMeterWidget.set_meter`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QLocale, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from mira_desktop.core.context import Meter

log = logging.getLogger(__name__)

RING_SIZE = 22
WARN_SHARE = 0.8
FULL_SHARE = 0.95
_WARN = "#c27803"
_FULL = "#d92d20"
FIGURES = ("current", "peak", "window", "remaining")


class MeterPopup(QFrame):
    """The figures behind the ring (a popup window that closes on any outside click)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("ContextMeterPopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.title = QLabel(self)
        self.title.setObjectName("ContextMeterTitle")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        grid = QGridLayout()
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(4)
        self.names: dict[str, QLabel] = {}
        self.values: dict[str, QLabel] = {}
        for row, key in enumerate(FIGURES):
            self.names[key] = QLabel(self)
            self.names[key].setProperty("muted", True)
            self.values[key] = QLabel(self)
            self.values[key].setObjectName(f"ContextMeter_{key}")
            self.values[key].setAlignment(Qt.AlignmentFlag.AlignRight)
            grid.addWidget(self.names[key], row, 0)
            grid.addWidget(self.values[key], row, 1)
        self.hint = QLabel(self)
        self.hint.setObjectName("ContextMeterHint")
        self.hint.setWordWrap(True)
        self.hint.setProperty("muted", True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addLayout(grid)
        layout.addWidget(self.hint)
        self.setMinimumWidth(240)
        self._meter: Meter | None = None
        self._retranslate()

    def set_meter(self, meter: Meter | None) -> None:
        self._meter = meter
        self._retranslate()

    def _retranslate(self) -> None:
        self.title.setText(self.tr("Context"))
        labels = {
            "current": self.tr("Current tokens"),
            "peak": self.tr("Peak tokens"),
            "window": self.tr("Context window"),
            "remaining": self.tr("Remaining"),
        }
        for key, text in labels.items():
            self.names[key].setText(text)
        meter, locale = self._meter, QLocale()
        unknown = self.tr("unknown")

        def number(value: int | None) -> str:
            return unknown if value is None else locale.toString(value)

        values = {
            "current": number(meter.current_tokens if meter else None),
            "peak": number(meter.peak_tokens if meter else None),
            "window": number(meter.context_window if meter else None),
            "remaining": number(meter.remaining if meter else None),
        }
        if meter is not None and meter.share is not None:
            percent = locale.toString(meter.share * 100, "f", 1)
            values["current"] += " " + self.tr("({0} %)").format(percent)
        for key, text in values.items():
            self.values[key].setText(text)
        self.hint.setText(self._hint(meter))
        self.hint.setVisible(bool(self.hint.text()))

    def _hint(self, meter: Meter | None) -> str:
        if meter is None:
            return self.tr("Measuring…")
        if meter.context_window is None:
            return self.tr(
                "The model's context window is not set. Set it in Settings → Models to "
                "see how full the context is."
            )
        if meter.share is not None and meter.share >= WARN_SHARE:
            return self.tr("The context is nearly full. Type /compact to summarise it.")
        return ""

    def figures(self) -> dict[str, str]:
        return {key: label.text() for key, label in self.values.items()}

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()


class ContextMeterWidget(QWidget):
    """The ring. Click opens :attr:`popup`. Signal: ``opened()``."""

    opened = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ContextMeter")
        self.setFixedSize(RING_SIZE + 8, RING_SIZE + 8)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._meter: Meter | None = None
        self.popup = MeterPopup(self)
        self._retranslate()

    def meter(self) -> Meter | None:
        return self._meter

    def set_meter(self, meter: Meter | None) -> None:
        if meter == self._meter:
            return
        self._meter = meter
        self.popup.set_meter(meter)
        self._retranslate()
        self.update()

    def show_popup(self) -> None:
        self.popup.set_meter(self._meter)
        self.popup.adjustSize()
        size = self.popup.sizeHint()
        corner = self.mapToGlobal(QPoint(self.width(), 0))
        self.popup.move(corner.x() - size.width(), corner.y() - size.height() - 6)
        self.popup.show()
        self.opened.emit()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.show_popup()
            event.accept()
            return
        super().mousePressEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(RING_SIZE + 8, RING_SIZE + 8)

    def colour(self) -> QColor:
        """The colour of the filled arc (grey while the window is unknown)."""
        palette = self.palette()
        share = self._meter.share if self._meter else None
        if share is None:
            return QColor(palette.color(QPalette.ColorRole.PlaceholderText))
        if share >= FULL_SHARE:
            return QColor(_FULL)
        if share >= WARN_SHARE:
            return QColor(_WARN)
        return QColor(palette.color(QPalette.ColorRole.Accent))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        rect = QRectF(0, 0, RING_SIZE, RING_SIZE)
        rect.moveCenter(QRectF(self.rect()).center())
        rect.adjust(2, 2, -2, -2)
        track = QColor(palette.color(QPalette.ColorRole.Mid))
        share = self._meter.share if self._meter else None
        if share is None:
            track = QColor(palette.color(QPalette.ColorRole.PlaceholderText))
            track.setAlpha(120)
        painter.setPen(QPen(track, 3.0))
        painter.drawEllipse(rect)
        if share is not None:
            pen = QPen(self.colour(), 3.0)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            span = -int(min(max(share, 0.0), 1.0) * 360 * 16)
            if span:  # at least a visible sliver: "in use" must never look empty
                painter.drawArc(rect, 90 * 16, min(span, -12 * 16))
        painter.end()

    def _retranslate(self) -> None:
        meter, locale = self._meter, QLocale()
        self.setAccessibleName(self.tr("Context usage"))
        if meter is None:
            self.setToolTip(self.tr("Context usage"))
        elif meter.share is None:
            self.setToolTip(
                self.tr("Context: {0} tokens (window unknown)").format(
                    locale.toString(meter.current_tokens)
                )
            )
        else:
            self.setToolTip(
                self.tr("Context: {0} % of {1} tokens").format(
                    locale.toString(meter.share * 100, "f", 0),
                    locale.toString(meter.context_window or 0),
                )
            )
        self.setAccessibleDescription(self.toolTip())  # the figures, as the tooltip says

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
