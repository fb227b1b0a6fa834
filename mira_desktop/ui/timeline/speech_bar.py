"""``SpeechBar``: an answer's spoken audio under its text (PRODUCT.md §10) —
"Reading aloud…" while the voice works, then "🔊 Spoken answer · 0:28" with
Play and Save…, or why it could not be read aloud with Try again. Built only
for answers that have speech (``core/speech.SpeechInfo`` in the message's
data)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QStyle, QToolButton, QWidget

from mira_desktop.core.errors import error_from_dict
from mira_desktop.core.speech import SpeechInfo

from ..error_texts import hint_text, message_text
from .answer_meta import apply_tone


def duration_text(milliseconds: int) -> str:
    """ "0:28", "12:05", "1:02:03" (at least a second)."""
    seconds = max(1, round(milliseconds / 1000))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class SpeechBar(QWidget):
    play_clicked = Signal()
    save_clicked = Signal()
    retry_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("speechBar")
        self._info = SpeechInfo("pending")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        self.icon = QLabel(self)
        self.icon.setObjectName("speechIcon")
        self.label = QLabel(self)
        self.label.setObjectName("speechLabel")
        self.label.setWordWrap(True)
        self.label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.play_button = self._button("speechPlay", self.play_clicked)
        self.save_button = self._button("speechSave", self.save_clicked)
        self.retry_button = self._button("speechRetry", self.retry_clicked)
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.label, 1)
        for button in (self.play_button, self.save_button, self.retry_button):
            row.addWidget(button, 0)
        self._retranslate()

    def _button(self, name: str, signal: Signal) -> QToolButton:
        """Flat, like the meta line's Copy (a row of pushed buttons per answer
        weighed more than the answer)."""
        button = QToolButton(self)
        button.setObjectName(name)
        button.setAutoRaise(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        button.clicked.connect(signal)
        return button

    @property
    def info(self) -> SpeechInfo:
        return self._info

    def show_info(self, info: SpeechInfo) -> None:
        self._info = info
        ready, failed = info.status == "ready", info.status == "failed"
        self.play_button.setVisible(ready)
        self.save_button.setVisible(ready)
        self.retry_button.setVisible(failed)
        apply_tone(self.label, "error" if failed else "muted")
        self._show_icon(failed)
        self.label.setText(self._text(info))
        self.label.setToolTip(self._tooltip(info))

    def _text(self, info: SpeechInfo) -> str:
        if info.status == "pending":
            return self.tr("Reading aloud…")
        if info.status == "failed":
            error = error_from_dict(info.error or {})
            return self.tr("Not read aloud: {0}").format(message_text(error))
        text = self.tr("Spoken answer · {0}").format(duration_text(info.duration_ms))
        if info.truncated:
            text += " · " + self.tr("the first part")
        return text

    def _show_icon(self, failed: bool) -> None:
        """The style's speaker (muted when it failed): no emoji, which many
        systems' fonts lack."""
        kind = (
            QStyle.StandardPixmap.SP_MediaVolumeMuted
            if failed
            else QStyle.StandardPixmap.SP_MediaVolume
        )
        side = self.fontMetrics().height()
        self.icon.setPixmap(self.style().standardIcon(kind).pixmap(QSize(side, side)))

    def _tooltip(self, info: SpeechInfo) -> str:
        if info.status == "failed":
            return hint_text(error_from_dict(info.error or {}))
        if info.status == "ready" and info.truncated:
            return self.tr("Only the first {0} characters were read aloud.").format(info.chars)
        return ""

    def _retranslate(self) -> None:
        self.play_button.setText(self.tr("Play"))
        self.play_button.setToolTip(self.tr("Play with the system's audio player"))
        self.save_button.setText(self.tr("Save…"))
        self.save_button.setToolTip(self.tr("Save the audio as a WAV file"))
        self.retry_button.setText(self.tr("Try again"))
        self.show_info(self._info)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)
