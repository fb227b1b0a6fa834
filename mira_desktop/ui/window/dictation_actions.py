"""``DictationActions``: voice input. The composer's microphone (or Edit →
Dictate, Ctrl+Shift+D) records; the same again stops, and the recording goes
as a WAV file to the speech-to-text model chosen in Settings → Chat & data
(``services/transcription.py``); the words arrive where the cursor is. Esc
while recording discards it.

Nothing is lost on the way: a recording that could not be written down —
a dead server, a wrong key, no model chosen yet, a stop — is kept with the
reason under the box, Try again and Save recording… (a WAV file), until it
is written down, saved or dismissed (✕); a new recording waits until then,
and closing the window asks first. A recording of silence (a muted or wrong
microphone) is not sent without asking; one shorter than a third of a
second (a double click) is dropped with a word. The WAV is made in a worker
thread; the recording itself only appends bytes on the Qt thread."""

from __future__ import annotations

import asyncio
import logging
import sys
from array import array
from collections.abc import Callable
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QCoreApplication, QDateTime, QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from ...core.errors import MiraError
from ...core.media_keys import SEND_DICTATION_KEY
from ..composer.dictation_bar import SHORTCUT, clock, shortcut_text
from ..composer.voice_recorder import (
    MAX_SECONDS,
    AudioInput,
    Clip,
    Microphone,
    MicrophoneError,
    VoiceRecorder,
)
from ..error_texts import error_line
from .window_actions import WindowActions

if TYPE_CHECKING:
    from ...bootstrap import Services
    from ..controllers.tasks import TaskRunner
    from .conversation import ConversationPresenter
    from .main_window import MainWindow

log = logging.getLogger(__name__)

#: shorter than this is a slip of the finger, not speech
MIN_SECONDS = 0.3
#: a clip whose loudest sample stays under this (−66 dBFS) recorded silence
SILENCE_PEAK = 16 / 32768
TASK_KEY = "dictation"

#: a text of the line under the box, worded when shown (in the language of the moment)
Text = Callable[[], str]
#: ``_say``'s arguments: the text, error, the action (label, call), can save, can close
Message = tuple[Text, bool, tuple[Text, Callable[[], None]] | None, bool, bool]


def wav_of(clip: Clip) -> bytes:
    """The clip as a 16-bit WAV file, which every speech-to-text server reads
    (whisper.cpp and Python's ``wave`` take no float WAV): 32-bit float
    samples are converted in the worker thread this runs in, with C-level
    loops (``map`` of built-ins: ~1.5 s at the recording's 24 MB cap, 2.4 s
    with a Python comprehension). Each sample is clamped to ±1 on the way;
    ``min(1.0, nan)`` is 1.0, so a driver's NaN becomes a loud sample, not an
    error that would leave the recording unsendable and unsavable."""
    from ...services.voice_clip import wav_bytes

    fmt = clip.format
    if fmt.kind == "float32":
        floats = array("f", clip.pcm)
        clamped = map(max, repeat(-1.0), map(min, repeat(1.0), floats))
        ints = array("h", map(int, map((32767.0).__mul__, clamped)))
        return wav_bytes(ints.tobytes(), fmt.rate, fmt.channels, 2)
    return wav_bytes(clip.pcm, fmt.rate, fmt.channels, fmt.sample_width)


class DictationActions(WindowActions):
    def __init__(
        self,
        window: MainWindow,
        services: Services,
        tasks: TaskRunner,
        presenter: ConversationPresenter,
    ) -> None:
        super().__init__(window, services, tasks, presenter)
        self.action = QAction(window)
        self.action.setObjectName("DictateAction")
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.triggered.connect(self.toggle)
        window.edit_menu.addAction(self.action)
        #: where recordings come from (None: the system's microphone)
        self.make_input: Callable[[], AudioInput] | None = None
        #: the longest recording, in seconds
        self.max_seconds = MAX_SECONDS
        self.recorder: VoiceRecorder | None = None
        self.state = "idle"  # "starting", "recording", "transcribing"
        self._shown_second = -1  # the recording's second the line under the box shows
        #: the recording not written down yet (kept for Try again / Save recording…)
        self.clip: Clip | None = None
        #: where the kept recording was saved (then a new one may replace it)
        self.saved_to: str | None = None
        #: send the words once written down (Settings → Chat & data), read at each start
        self._send_after = False
        self._dictated_in: str | None = None
        self._wav: bytes | None = None
        self._bar_action: Callable[[], None] | None = None
        #: what the line under the box says (``_say``'s arguments), for a new language
        self._message: Message | None = None
        composer = window.composer
        composer.mic_clicked.connect(self.toggle)
        composer.dictation_cancel_requested.connect(self.cancel)
        bar = composer.dictation_bar
        bar.action_clicked.connect(self._on_bar_action)
        bar.save_clicked.connect(self.save_recording)
        bar.dismissed.connect(self.discard)
        window.installEventFilter(self)
        self.retranslate()

    def retranslate(self) -> None:
        self.action.setText(self.tr("Dictate"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._w and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            if self._w.composer.dictation_bar.isVisible():
                self._show()  # the line under the box, in the new language
        return False

    # ---- the microphone ----------------------------------------------------------------
    def toggle(self) -> None:
        """The microphone's click: start, stop and write down, or stop writing
        down; while it starts (the settings read, the system's question), a
        click gives up starting."""
        if self.state == "idle":
            if self._w.composer.enabled_reason() is not None:
                return  # the composer says why it takes nothing now
            if self.clip is not None and self.saved_to is None:
                self._offer_again(
                    lambda: self.tr(
                        "The last recording has not been written down yet: try again, save "
                        "it, or discard it (✕) before recording again."
                    )
                )
                return
            self.state = "starting"
            self._tasks.start(self._begin(), key=TASK_KEY)
        elif self.state == "starting":
            self.state = "idle"
        elif self.state == "recording":
            self.finish()
        elif self.state == "transcribing":
            self._tasks.cancel(TASK_KEY)
            self._set_state("idle")
            self._offer_again(lambda: self.tr("Stopped before your words were written down."))

    def cancel(self) -> None:
        """Esc: a recording is discarded; writing down stops (the recording kept)."""
        if self.state == "recording":
            assert self.recorder is not None
            self.recorder.cancel()
            self._set_state("idle")
            self._w.composer.dictation_bar.clear()
        elif self.state == "transcribing":
            self.toggle()

    async def _begin(self) -> None:
        try:
            await self._start()
        except Exception as exc:  # never stuck in "starting": said, and idle again
            if self.state == "starting":
                self.state = "idle"
                if not isinstance(exc, MiraError):
                    log.exception("dictation could not start")
                self._say(partial(error_line, exc), error=True)

    async def _start(self) -> None:
        chosen = await self._services.transcription.transcription_model()
        self._send_after = bool(await self._services.settings.get(SEND_DICTATION_KEY, False))
        if self.state != "starting":
            return
        if chosen is None:
            self.state = "idle"
            self._say(
                lambda: self.tr(
                    "Choose a speech-to-text model to dictate: Settings → Chat & data "
                    "(an OpenAI-compatible server, e.g. whisper-1)."
                ),
                error=True,
                action=(lambda: self.tr("Settings…"), self._open_settings),
            )
            return
        self._ask_permission()

    def _ask_permission(self, asked: bool = False) -> None:
        """macOS asks the user once; elsewhere the microphone is granted."""
        from PySide6.QtCore import QMicrophonePermission

        app = QCoreApplication.instance()
        assert app is not None  # dictation is started from the window: the app runs
        permission = QMicrophonePermission()
        status = app.checkPermission(permission)
        if status == Qt.PermissionStatus.Granted:
            self._record()
        elif status == Qt.PermissionStatus.Undetermined and not asked:
            app.requestPermission(permission, self, lambda _p: self._after_asking())
        elif self.state == "starting":
            self.state = "idle"
            if sys.platform == "darwin" and not getattr(sys, "frozen", False):
                self._say(
                    lambda: self.tr(
                        "macOS lets only an application that says why it records use the "
                        "microphone: start Mira from Mira Desktop.app to dictate."
                    ),
                    error=True,
                )
            else:
                self._say(
                    lambda: self.tr(
                        "Mira may not use the microphone. Allow it in your system's privacy "
                        "settings (Microphone), then try again."
                    ),
                    error=True,
                )

    def _after_asking(self) -> None:
        """The system's answer (outside the starting task): never stuck in "starting"."""
        try:
            self._ask_permission(asked=True)
        except Exception as exc:
            log.exception("dictation could not start")
            if self.state == "starting":
                self.state = "idle"
                self._say(partial(error_line, exc), error=True)

    def _record(self) -> None:
        if self.state != "starting":
            return
        if self.recorder is None:
            self.recorder = VoiceRecorder(parent=self)
            self.recorder.progress.connect(self._on_progress)
            self.recorder.limit_reached.connect(self.finish)
            self.recorder.failed.connect(self._on_input_failed)
        self.recorder.make_input = self.make_input or Microphone
        self.recorder.max_seconds = self.max_seconds
        try:
            self.recorder.start()
        except MicrophoneError as exc:
            self.state = "idle"
            self._say(partial(str, exc), error=True)
            return
        self.clip, self._wav = None, None  # a saved one gives way to the new recording
        self.saved_to = None
        self._set_state("recording")
        self._dictated_in = self._p.key  # the conversation the words are meant for
        self._shown_second = -1
        self._on_progress(0.0, 0.0)

    def _on_progress(self, seconds: float, level: float) -> None:
        """The dot follows the voice; the line under the box, the time."""
        if self.state != "recording" or self.recorder is None:
            return
        self._w.composer.set_mic_state("recording", seconds, level)
        if int(seconds) == self._shown_second:
            return
        self._shown_second = int(seconds)
        left = self.recorder.limit_seconds - seconds
        if left < 30:
            text = self.tr("Listening… {0} left: the recording stops by itself at {1}.").format(
                clock(left + 0.999), clock(self.recorder.limit_seconds)
            )
        else:
            text = self.tr(
                "Listening… {0} — click the microphone again (or press {1}) to write it "
                "down; Esc discards."
            ).format(clock(seconds), shortcut_text())
        self._say(lambda: text)

    def _on_input_failed(self, message: str) -> None:
        assert self.recorder is not None
        clip = self.recorder.stop()
        self._set_state("idle")
        if clip is None or clip.seconds < MIN_SECONDS:
            self._say(lambda: message, error=True)
            return
        self.clip, self._wav, self.saved_to = clip, None, None
        self._say(
            lambda: message,
            error=True,
            action=(lambda: self.tr("Write down what was recorded"), self._transcribe_kept),
            can_save=True,
        )

    def finish(self) -> None:
        """Stop recording and write it down (a recording of silence asks first)."""
        if self.state != "recording" or self.recorder is None:
            return
        self.state = "stopping"  # the recorder's last bytes must not finish it twice
        clip = self.recorder.stop()
        self._set_state("idle")
        if clip is None or clip.seconds < MIN_SECONDS:
            self._say(lambda: self.tr("The recording was too short to write down."))
            return
        self.clip, self._wav, self.saved_to = clip, None, None
        if clip.peak < SILENCE_PEAK:
            self._say(
                lambda: self.tr(
                    "Only silence was recorded. Is the right microphone chosen, and not "
                    "muted, in your system's sound settings?"
                ),
                error=True,
                action=(lambda: self.tr("Write it down anyway"), self._transcribe_kept),
                can_save=True,
            )
            return
        self._transcribe_kept()

    # ---- writing it down ---------------------------------------------------------------
    def _transcribe_kept(self) -> None:
        clip = self.clip
        if clip is None or self.state != "idle":
            return
        self._set_state("transcribing")
        self._say(
            lambda: self.tr("Writing down {0} of speech…").format(clock(max(clip.seconds, 1.0))),
            action=(lambda: self.tr("Stop"), self.toggle),
            can_close=False,
        )
        self._tasks.start(self._transcribe(clip), key=TASK_KEY)

    async def _transcribe(self, clip: Clip) -> None:
        try:
            if self._wav is None:
                self._wav = await asyncio.to_thread(wav_of, clip)
            transcript = await self._services.transcription.transcribe(self._wav, "dictation.wav")
        except MiraError as exc:
            log.info("dictation not written down: %s", exc.message)
            if self.clip is clip and shiboken6.isValid(self._w):
                self._set_state("idle")
                self._offer_again(partial(error_line, exc))
            return
        except Exception as exc:  # a bug: said, and the recording kept
            log.exception("dictation failed")
            if self.clip is clip and shiboken6.isValid(self._w):
                self._set_state("idle")
                self._offer_again(partial(error_line, exc))
            return
        if self.clip is not clip or not shiboken6.isValid(self._w):
            return
        self.clip, self._wav = None, None
        self._set_state("idle")
        self._w.composer.dictation_bar.clear()
        composer = self._w.composer
        composer.insert_dictation(transcript.text)
        log.info("dictation written down: %d characters", len(transcript.text))
        if not self._send_after:
            return
        if self._p.key != self._dictated_in:  # another conversation now: not sent there
            self._say(
                lambda: self.tr("Not sent: another conversation is open. The words are in the box.")
            )
        elif composer.enabled_reason() is None:
            composer.submit()  # a spoken conversation: the words go at once
            if composer.text().strip():  # a file still being read, a question above
                self._say(
                    lambda: self.tr(
                        "Not sent yet: the message box is waiting. Press Enter to send."
                    )
                )

    def _offer_again(self, reason: Text) -> None:
        self._say(
            reason,
            error=True,
            action=(lambda: self.tr("Try again"), self._transcribe_kept),
            can_save=True,
        )

    # ---- the kept recording --------------------------------------------------------------
    def discard(self) -> None:
        """✕: the kept recording (and the message) go; a recording stops."""
        if self.state == "recording":
            self.cancel()
            return
        if self.state == "transcribing":
            return
        self.clip, self._wav = None, None
        self._w.composer.dictation_bar.clear()

    def save_recording(self) -> None:
        """Save recording…: the kept recording as a WAV file the user names."""
        from PySide6.QtWidgets import QFileDialog

        clip = self.clip
        if clip is None:
            return
        stamp = QDateTime.currentDateTime().toString("yyyyMMdd-HHmmss")
        path, _ = QFileDialog.getSaveFileName(
            self._w, self.tr("Save the recording"), f"dictation-{stamp}.wav", "WAV (*.wav)"
        )
        if path:
            self._tasks.start(self._save(clip, path))

    async def _save(self, clip: Clip, path: str) -> None:
        from pathlib import Path

        try:
            data = self._wav if self._wav is not None else await asyncio.to_thread(wav_of, clip)
            await asyncio.to_thread(Path(path).write_bytes, data)
        except OSError as exc:
            if not self._may_say(clip):
                return
            reason = exc.strerror or str(exc)  # ``exc`` is unbound after the except block
            self._say(
                lambda: self.tr("The recording could not be saved to {0}: {1}").format(
                    path, reason
                ),
                error=True,
                action=(lambda: self.tr("Try again"), self._transcribe_kept),
                can_save=True,
            )
            return
        log.info("recording saved to %s", path)
        if self.clip is clip:
            self.saved_to = path
        if not self._may_say(clip):
            return
        self._say(
            lambda: self.tr("The recording was saved to {0}.").format(path),
            action=(lambda: self.tr("Try again"), self._transcribe_kept),
            can_save=True,
        )

    def _may_say(self, clip: Clip) -> bool:
        """A save that ended speaks only if its recording is still the one kept
        and nothing else is going on (a Try again meanwhile owns the line)."""
        return self.state == "idle" and self.clip is clip and shiboken6.isValid(self._w)

    # ---- the window closing ------------------------------------------------------------------
    def would_lose(self) -> bool:
        """Whether closing now would lose something said: a recording, one
        being written down, or one kept after a failure."""
        kept = self.clip is not None and self.saved_to is None
        return self.state in ("recording", "transcribing") or kept

    def may_close(self) -> bool:
        """Ask before a close that would lose what was said (True: close)."""
        if not self.would_lose():
            return True
        from PySide6.QtWidgets import QMessageBox

        buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        answer = QMessageBox.question(
            self._w,
            self.tr("Dictation not written down"),
            self.tr(
                "What you dictated has not been written down yet. Quit anyway and lose it? "
                "(No keeps it: Save recording… under the message box keeps it as a file.)"
            ),
            buttons,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def shut_down(self) -> None:
        """The window closes: the microphone is let go at once."""
        if self.recorder is not None:
            self.recorder.cancel()
        self.state = "idle"

    # ---- helpers --------------------------------------------------------------------------
    def _set_state(self, state: str) -> None:
        self.state = state
        self._w.composer.set_mic_state(state)

    def _say(
        self,
        text: Text,
        *,
        error: bool = False,
        action: tuple[Text, Callable[[], None]] | None = None,
        can_save: bool = False,
        can_close: bool = True,
    ) -> None:
        """The line under the box; texts are given as functions, so that a
        change of language words the line again (:meth:`_show`)."""
        self._message = (text, error, action, can_save, can_close)
        self._show()

    def _show(self) -> None:
        if self._message is None:
            return
        text, error, action, can_save, can_close = self._message
        self._bar_action = action[1] if action else None
        self._w.composer.dictation_bar.show_message(
            text(),
            error=error,
            action=action[0]() if action else None,
            can_save=can_save and self.clip is not None,
            can_close=can_close,
        )

    def _on_bar_action(self) -> None:
        if self._bar_action is not None:
            self._bar_action()

    def _open_settings(self) -> None:
        self._w.composer.dictation_bar.clear()
        self._w.open_settings(tab="general")
