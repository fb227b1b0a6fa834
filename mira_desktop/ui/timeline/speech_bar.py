"""``SpeechBar``: an answer's spoken audio under its text (PRODUCT.md §10) —
"Reading aloud…" while the voice works, then "Spoken answer · 0:28" with
Play and Save…, or why it could not be read aloud with Try again. Built only
for answers that have speech (``core/speech.SpeechInfo`` in the message's
data)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel, QStyle, QToolButton, QWidget

from mira_desktop.core.errors import error_from_dict
from mira_desktop.core.speech import SpeechInfo

from ..error_texts import hint_text, message_text
from .made_media_row import MadeMediaRow
from .timeline_style import error_colour, muted_colour


def duration_text(milliseconds: int) -> str:
    """ "0:28", "12:05", "1:02:03" (at least a second)."""
    seconds = max(1, round(milliseconds / 1000))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class SpeechBar(MadeMediaRow):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("speech", parent)
        self._info = SpeechInfo("pending")
        self.icon = QLabel(self)
        self.icon.setObjectName("speechIcon")
        self.line.insertWidget(0, self.icon, 0, Qt.AlignmentFlag.AlignTop)
        self.line.setContentsMargins(0, 0, 0, 0)
        self.setLayout(self.line)
        self._retranslate()

    @property
    def play_button(self) -> QToolButton:
        """Open, for audio: the system's player."""
        return self.open_button

    @property
    def info(self) -> SpeechInfo:
        return self._info

    def show_info(self, info: SpeechInfo) -> None:
        self._info = info
        self._show_state(info, self._text(info), self._tooltip(info))
        self._show_icon(info.status == "failed")

    def _text(self, info: SpeechInfo) -> str:
        if info.status == "pending":
            return self.tr("Reading aloud…")
        if info.status == "failed":
            error = error_from_dict(info.error or {})
            return self.tr("Not read aloud: {0}").format(message_text(error))
        text = self.tr("Spoken answer · {0}").format(duration_text(info.duration_ms))
        if info.truncated:
            text += " · " + self.tr("the first part")
        if info.retry_failed:
            error = error_from_dict(info.error or {})
            text += "\n" + self.tr("Reading it again failed: {0}").format(message_text(error))
        return text

    def _show_icon(self, failed: bool) -> None:
        """The style's speaker (muted when it failed) in the label's colour: no
        emoji, which many systems' fonts lack, and the same grey (or red) as
        the words beside it in either theme."""
        kind = QStyle.StandardPixmap.SP_MediaVolume
        if failed:
            kind = QStyle.StandardPixmap.SP_MediaVolumeMuted
        side = self.fontMetrics().height()
        pixmap = self.style().standardIcon(kind).pixmap(QSize(side, side))
        painter = QPainter(pixmap)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
        painter.fillRect(pixmap.rect(), error_colour(self) if failed else muted_colour(self))
        painter.end()
        self.icon.setPixmap(pixmap)

    def _tooltip(self, info: SpeechInfo) -> str:
        if info.status == "failed" or info.retry_failed:
            return hint_text(error_from_dict(info.error or {}))
        if info.status == "ready" and info.truncated:
            return self.tr("Only the first {0} characters were read aloud.").format(info.chars)
        return ""

    def _retranslate(self) -> None:
        super()._retranslate()
        self.open_button.setText(self.tr("Play"))
        self.open_button.setToolTip(self.tr("Play with the system's audio player"))
        self.save_button.setToolTip(self.tr("Save the audio as a WAV file"))
        self.show_info(self._info)
