"""What the composer shows of voice input: the microphone's icons (drawn with
the palette's colours, no icon font) and ``DictationBar``, the line under the
box that says what dictation is doing — listening, writing it down — or why it
failed, with what can be done about it: one action (Try again, Stop,
Settings…), Save recording… (a recording is never lost to a dead server) and ✕.
The window's ``DictationActions`` decides what the buttons do."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from mira_desktop.ui.theme import set_style_property

#: the recording dot's colour (the same red in both themes reads as "recording")
RECORDING_RED = QColor("#e5484d")
#: start and stop dictating (Edit → Dictate)
SHORTCUT = "Ctrl+Shift+D"


def shortcut_text() -> str:
    """The shortcut as this system writes it (⇧⌘D on macOS)."""
    return QKeySequence(SHORTCUT).toString(QKeySequence.SequenceFormat.NativeText)


def _canvas(size: int, ratio: float) -> QPixmap:
    pixmap = QPixmap(int(size * ratio), int(size * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    return pixmap


def microphone_icon(colour: QColor, size: int = 18, ratio: float = 2.0) -> QIcon:
    """A microphone: a capsule in a cradle on a stand."""
    pixmap = _canvas(size, ratio)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(size / 18, size / 18)
    pen = QPen(colour, 1.5)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.drawRoundedRect(QRectF(6.5, 1.75, 5.0, 9.5), 2.5, 2.5)
    painter.drawArc(QRectF(3.75, 4.5, 10.5, 9.5), 180 * 16, 180 * 16)
    painter.drawLine(QPointF(9.0, 14.0), QPointF(9.0, 16.25))
    painter.drawLine(QPointF(6.5, 16.25), QPointF(11.5, 16.25))
    painter.end()
    return QIcon(pixmap)


def recording_icon(level: float, size: int = 18, ratio: float = 2.0) -> QIcon:
    """A red dot whose halo grows with the voice's level (0–1): the user sees
    that the microphone hears them."""
    pixmap = _canvas(size, ratio)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    centre = QPointF(size / 2, size / 2)
    halo = QColor(RECORDING_RED)
    halo.setAlphaF(0.28)
    painter.setBrush(halo)
    reach = size * (0.27 + 0.23 * max(0.0, min(level * 3.0, 1.0)))
    painter.drawEllipse(centre, reach, reach)
    painter.setBrush(RECORDING_RED)
    painter.drawEllipse(centre, size * 0.25, size * 0.25)
    painter.end()
    return QIcon(pixmap)


def busy_icon(colour: QColor, size: int = 18, ratio: float = 2.0) -> QIcon:
    """Three dots: the recording is being written down."""
    pixmap = _canvas(size, ratio)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    for x in (4.0, 9.0, 14.0):
        painter.drawEllipse(QPointF(x * size / 18, size / 2), size / 11, size / 11)
    painter.end()
    return QIcon(pixmap)


def clock(seconds: float) -> str:
    """``m:ss`` of a recording."""
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


class DictationBar(QFrame):
    """Signals: ``action_clicked()`` (the one action offered), ``save_clicked()``,
    ``dismissed()`` (✕)."""

    action_clicked = Signal()
    save_clicked = Signal()
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("DictationBar")
        self.label = QLabel(self)
        self.label.setObjectName("DictationText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.action_button = QPushButton(self)
        self.action_button.setObjectName("DictationAction")
        self.save_button = QPushButton(self)
        self.save_button.setObjectName("DictationSave")
        self.close_button = QToolButton(self)
        self.close_button.setObjectName("DictationClose")
        self.close_button.setAutoRaise(True)
        self.close_button.setText("✕")
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.label, 1)
        for button in (self.action_button, self.save_button, self.close_button):
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.action_button.clicked.connect(self.action_clicked)
        self.save_button.clicked.connect(self.save_clicked)
        self.close_button.clicked.connect(self.dismissed)
        self._retranslate()
        self.hide()

    def show_message(
        self,
        text: str,
        *,
        error: bool = False,
        action: str | None = None,
        can_save: bool = False,
        can_close: bool = True,
    ) -> None:
        """Say ``text`` (an error in the error colour), offering ``action``
        (its button's label), Save recording… and ✕ as asked."""
        self.label.setText(text)
        set_style_property(self.label, "status", "error" if error else "busy")
        self.action_button.setText(action or "")
        self.action_button.setVisible(action is not None)
        self.save_button.setVisible(can_save)
        self.close_button.setVisible(can_close)
        self.show()

    def clear(self) -> None:
        self.label.clear()
        self.hide()

    def _retranslate(self) -> None:
        self.save_button.setText(self.tr("Save recording…"))
        self.save_button.setToolTip(self.tr("Keep the recording as a WAV file"))
        self.close_button.setToolTip(self.tr("Discard"))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
