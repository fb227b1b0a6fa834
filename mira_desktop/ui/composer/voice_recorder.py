"""Recording the microphone for voice input (the composer's microphone button).

``Microphone`` opens the system's default input through QtMultimedia (imported
on the first recording, not at start-up) asking for 16 kHz mono 16-bit PCM —
what speech-to-text models read; a device that cannot give that is recorded in
its own rate and channels. ``VoiceRecorder`` collects the PCM on the Qt thread
as it arrives (a few kilobytes a tenth of a second), says how long it has
recorded and how loud the last moment was, and stops by itself at the limit:
ten minutes, or less when the device's format would pass the 24 MB the
transcription endpoints take. :meth:`VoiceRecorder.stop` hands over a
:class:`Clip`; turning it into a WAV file is the caller's (in a worker thread).

On macOS the first recording asks for the microphone permission (the reason is
in Info.plist); a refusal is said in words, as is a missing device, a device
that cannot be opened and one unplugged while recording."""

from __future__ import annotations

import logging
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, QIODevice, QObject, Qt, Signal

log = logging.getLogger(__name__)

#: the longest dictation, in seconds
MAX_SECONDS = 600.0
#: what a clip may weigh (the endpoints take 25 MB; the WAV header and slack)
MAX_CLIP_BYTES = 24 * 1024 * 1024
#: the format asked of the device
SPEECH_RATE = 16_000
#: how often the level is reported at most (seconds of audio)
LEVEL_EVERY_S = 0.05


def _tr(text: str) -> str:
    return QCoreApplication.translate("VoiceRecorder", text)


class MicrophoneError(Exception):
    """A microphone that cannot record; the message is in the interface's language."""


@dataclass(frozen=True, slots=True)
class PcmFormat:
    """Raw samples as recorded: ``kind`` is "int16", "int32", "float32" or "uint8"."""

    rate: int
    channels: int
    kind: str = "int16"

    @property
    def sample_width(self) -> int:
        return {"int16": 2, "int32": 4, "float32": 4, "uint8": 1}[self.kind]

    @property
    def bytes_per_second(self) -> int:
        return self.rate * self.channels * self.sample_width


@dataclass(frozen=True, slots=True)
class Clip:
    """A finished recording: its PCM, format, length and loudest sample (0–1)."""

    pcm: bytes
    format: PcmFormat
    seconds: float
    peak: float


class AudioInput(Protocol):
    """Where a recording's samples come from: the microphone, or (tests) a file
    played as if spoken. ``failed(str)`` when it breaks while recording."""

    failed: Any  # a Signal(str)

    def open(self) -> tuple[QIODevice, PcmFormat]:
        """Start capturing; the device to read and its format. Raises
        :class:`MicrophoneError`."""
        ...

    def close(self) -> None: ...


def multimedia() -> Any:
    """QtMultimedia, imported on the first recording (with FFmpeg's banner and
    its library probing kept out of the terminal)."""
    from PySide6.QtCore import QLoggingCategory

    QLoggingCategory.setFilterRules(
        "qt.multimedia.ffmpeg.info=false\nqt.multimedia.symbolsresolver.warning=false"
    )
    try:
        from PySide6 import QtMultimedia
    except ImportError as exc:
        raise MicrophoneError(
            _tr("Voice input needs Qt Multimedia, which did not load ({0}).").format(exc)
        ) from exc
    return QtMultimedia


class Microphone(QObject):
    """The system's default audio input, through ``QAudioSource``."""

    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source: Any = None
        self._name = ""

    def open(self) -> tuple[QIODevice, PcmFormat]:
        qm = multimedia()
        device = qm.QMediaDevices.defaultAudioInput()
        if device.isNull():
            raise MicrophoneError(
                _tr(
                    "No microphone was found. Connect one, or choose an input device in "
                    "your system's sound settings."
                )
            )
        self._name = device.description()
        wanted = _speech_format(qm, device)
        fmt = _pcm_format(qm, wanted)  # before capturing: a refusal leaves nothing running
        source = qm.QAudioSource(device, wanted)
        io = source.start()
        if io is None or source.error() != qm.QAudio.Error.NoError:
            _retire(source)
            raise MicrophoneError(
                _tr(
                    "The microphone “{0}” could not be opened. Another program may be using "
                    "it, or Mira may not be allowed to."
                ).format(self._name)
            )
        source.stateChanged.connect(self._on_state)
        self._source = source
        return io, fmt

    def _on_state(self, _state: object) -> None:
        source = self._source
        if source is None:
            return
        qm = multimedia()
        if source.error() not in (qm.QAudio.Error.NoError, qm.QAudio.Error.UnderrunError):
            log.warning("microphone %s failed: %s", self._name, source.error())
            self.failed.emit(
                _tr("The microphone “{0}” stopped recording (was it unplugged?).").format(
                    self._name
                )
            )

    def close(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            source.stateChanged.disconnect(self._on_state)
            source.stop()
            _retire(source)


def _retire(source: Any) -> None:
    """Delete a stopped source on a later turn of the event loop: ``close`` may
    run inside the source's own signal (an unplugged microphone), where
    deleting it at once would pull it from under Qt. Owned by the application
    until then, so that Python letting go of it deletes nothing."""
    source.setParent(QCoreApplication.instance())
    source.deleteLater()


def _speech_format(qm: Any, device: Any) -> Any:
    """16 kHz mono 16-bit when the device takes it; else 16-bit in the device's
    own rate and channels; else what the device prefers."""
    wanted = qm.QAudioFormat()
    wanted.setSampleRate(SPEECH_RATE)
    wanted.setChannelCount(1)
    wanted.setSampleFormat(qm.QAudioFormat.SampleFormat.Int16)
    if device.isFormatSupported(wanted):
        return wanted
    preferred = device.preferredFormat()
    wanted.setSampleRate(preferred.sampleRate())
    wanted.setChannelCount(preferred.channelCount())
    return wanted if device.isFormatSupported(wanted) else preferred


def _pcm_format(qm: Any, fmt: Any) -> PcmFormat:
    kinds = {
        qm.QAudioFormat.SampleFormat.Int16: "int16",
        qm.QAudioFormat.SampleFormat.Int32: "int32",
        qm.QAudioFormat.SampleFormat.Float: "float32",
        qm.QAudioFormat.SampleFormat.UInt8: "uint8",
    }
    kind = kinds.get(fmt.sampleFormat())
    if kind is None:
        raise MicrophoneError(_tr("The microphone records in a format Mira cannot read."))
    return PcmFormat(fmt.sampleRate(), fmt.channelCount(), kind)


def peak_of(chunk: bytes, kind: str) -> float:
    """The loudest sample of ``chunk`` (whole samples only), from 0 to 1."""
    if kind == "int16":
        samples = array("h", chunk[: len(chunk) // 2 * 2])
        return max(map(abs, samples), default=0) / 32768
    if kind == "int32":
        samples = array("i", chunk[: len(chunk) // 4 * 4])
        return max(map(abs, samples), default=0) / 2147483648
    if kind == "float32":
        floats = array("f", chunk[: len(chunk) // 4 * 4])
        return min(max(map(abs, floats), default=0.0), 1.0)
    return max((abs(b - 128) for b in chunk), default=0) / 128


class VoiceRecorder(QObject):
    """One recording at a time. Signals: ``progress(seconds, level)`` as audio
    arrives, ``limit_reached()`` at the longest a clip may be (the caller
    stops it), ``failed(str)`` when the input breaks (the recording so far is
    still handed over by :meth:`stop`)."""

    progress = Signal(float, float)
    limit_reached = Signal()
    failed = Signal(str)

    def __init__(
        self,
        make_input: Callable[[], AudioInput] | None = None,
        parent: QObject | None = None,
        *,
        max_seconds: float = MAX_SECONDS,
    ) -> None:
        super().__init__(parent)
        #: where the next recording's samples come from
        self.make_input: Callable[[], AudioInput] = make_input or Microphone
        self.max_seconds = max_seconds
        self._input: AudioInput | None = None
        self._io: QIODevice | None = None
        self._format = PcmFormat(SPEECH_RATE, 1)
        self._pcm = bytearray()
        self._peak = 0.0
        self._level = 0.0
        self._level_bytes = 0  # audio since the level was last reported
        self._measured = 0  # bytes of whole samples the level has read
        self._limit_bytes = 0
        self._at_limit = False

    def is_recording(self) -> bool:
        return self._io is not None

    @property
    def seconds(self) -> float:
        return len(self._pcm) / self._format.bytes_per_second

    @property
    def limit_seconds(self) -> float:
        """The longest this recording may be (the device's format decides)."""
        return self._limit_bytes / self._format.bytes_per_second if self._limit_bytes else 0.0

    def start(self) -> None:
        """Open the input and record. Raises :class:`MicrophoneError`."""
        if self._io is not None:
            return
        source = self.make_input()
        io, fmt = source.open()
        self._input, self._io, self._format = source, io, fmt
        self._pcm.clear()
        self._peak = self._level = 0.0
        self._level_bytes = 0
        self._measured = 0
        self._at_limit = False
        whole = fmt.channels * fmt.sample_width
        limit = min(int(self.max_seconds * fmt.bytes_per_second), MAX_CLIP_BYTES)
        self._limit_bytes = limit // whole * whole
        # queued: a failure reported from inside the device's own signal is
        # handled once that signal is over
        source.failed.connect(self._on_failed, Qt.ConnectionType.QueuedConnection)
        io.readyRead.connect(self._read, Qt.ConnectionType.QueuedConnection)
        log.info("recording %s Hz, %d channel(s), %s", fmt.rate, fmt.channels, fmt.kind)

    def stop(self) -> Clip | None:
        """Stop recording and hand over what was recorded (None if nothing is)."""
        if self._io is None:
            return None
        self._at_limit = True  # the last bytes read here start nothing
        self._read()
        self._release()
        whole = self._format.channels * self._format.sample_width
        with memoryview(self._pcm) as view:  # one copy of up to 24 MB, not two
            pcm = bytes(view[: len(self._pcm) // whole * whole])
        self._pcm.clear()
        return Clip(pcm, self._format, len(pcm) / self._format.bytes_per_second, self._peak)

    def cancel(self) -> None:
        """Stop and forget the recording."""
        if self._io is not None:
            self._release()
        self._pcm.clear()

    def _release(self) -> None:
        io, source = self._io, self._input
        self._io = self._input = None
        if io is not None:
            io.readyRead.disconnect(self._read)
        if source is not None:
            source.failed.disconnect(self._on_failed)
            source.close()

    def _read(self) -> None:
        io = self._io
        if io is None:
            return
        chunk = io.readAll().data()
        if not chunk:
            return
        room = self._limit_bytes - len(self._pcm)
        chunk = chunk[: max(room, 0)]
        self._pcm += chunk
        width = self._format.sample_width
        whole = len(self._pcm) // width * width  # a sample split between chunks waits
        self._level = max(
            self._level, peak_of(bytes(self._pcm[self._measured : whole]), self._format.kind)
        )
        self._measured = whole
        self._peak = max(self._peak, self._level)
        self._level_bytes += len(chunk)
        if self._level_bytes >= LEVEL_EVERY_S * self._format.bytes_per_second:
            self.progress.emit(self.seconds, self._level)
            self._level = 0.0
            self._level_bytes = 0
        if len(self._pcm) >= self._limit_bytes and not self._at_limit:
            self._at_limit = True
            self.limit_reached.emit()

    def _on_failed(self, message: str) -> None:
        if self._io is not None:
            self.failed.emit(message)
