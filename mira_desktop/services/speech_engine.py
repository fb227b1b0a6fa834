"""``SystemVoice``: the computer's own voice through pyttsx3 (eSpeak NG on
Linux, SAPI 5 on Windows, NSSpeechSynthesizer on macOS), written to a file —
nothing is played here.

pyttsx3's ``runAndWait()`` returns before eSpeak has finished a text of more
than ~30 words, which then never reaches its file (tech-notes §6): each call
waits for the engine's ``finished-utterance`` instead. The engine exists once
per process (eSpeak initialises once) and is not thread-safe: callers make one
call at a time (a lock serialises every voice of the process), off the event
loop (``SpeechService`` owns one thread for it).
eSpeak's driver prints "Audio saved to …" on standard output, which would end
up inside the CLI's JSON: it is caught while a file is written."""

from __future__ import annotations

import contextlib
import io
import logging
import tempfile
import threading
import wave
from pathlib import Path
from typing import Any

from ..core.errors import SpeechError, worded
from ..core.speech import SpokenAudio

log = logging.getLogger(__name__)

#: seconds to wait for a file, plus this many per character of text
BASE_TIMEOUT_S = 30.0
TIMEOUT_PER_CHAR_S = 0.01
_INSTALL_HINT = (
    "Install a speech engine: eSpeak NG on Linux (sudo apt install libespeak-ng1),"
    " then restart Mira."
)
#: voices' language codes tried first for each language, in order
_PREFERRED = {"zh": ("cmn", "zh"), "en": ("en-us", "en", "en-gb")}


#: eSpeak is one engine per process, whatever the thread: every voice takes
#: this lock for a whole file (two at once garble each other's output and can
#: leave pyttsx3's loop running forever)
_ENGINE_LOCK = threading.Lock()
_ENGINES: dict[str | None, _Engine] = {}


class _Engine:
    """pyttsx3's engine for one driver, made once per process."""

    def __init__(self, driver: str | None) -> None:
        try:
            import pyttsx3  # a third of a second: only when a first answer is spoken

            self.engine: Any = pyttsx3.init(driver) if driver else pyttsx3.init()
        except Exception as exc:
            log.info("no speech engine: %s", exc)
            raise SpeechError(
                "There is no speech engine on this computer.", hint=_INSTALL_HINT
            ) from exc
        self.done = threading.Event()
        self.engine.connect("finished-utterance", lambda name, completed: self.done.set())
        self.voices = _voices_by_language(self.engine)


class SystemVoice:
    def __init__(self, driver: str | None = None) -> None:
        """``driver``: pyttsx3's driver name (None: the platform's)."""
        self._driver = driver

    def synthesize(self, text: str, language: str) -> SpokenAudio:
        with _ENGINE_LOCK:
            engine = _ENGINES.get(self._driver)
            if engine is None:
                engine = _ENGINES[self._driver] = _Engine(self._driver)
            return _speak(engine, text, language)


def _speak(engine: _Engine, text: str, language: str) -> SpokenAudio:
    voice = next((engine.voices[c] for c in _PREFERRED.get(language, ()) if c in engine.voices), "")
    if voice:
        engine.engine.setProperty("voice", voice)
    with tempfile.TemporaryDirectory(prefix="mira-speech-") as folder:
        target = Path(folder) / "answer.wav"
        engine.done.clear()
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                engine.engine.save_to_file(text, str(target))
                engine.engine.runAndWait()
                finished = engine.done.wait(BASE_TIMEOUT_S + TIMEOUT_PER_CHAR_S * len(text))
        except Exception as exc:  # the engine's own errors: words for people
            raise worded(
                SpeechError, "The system voice failed: {cause}", {"cause": _cause(exc)}
            ) from exc
        if not finished and not _complete(target):
            raise SpeechError(
                "The system voice did not finish in time.",
                hint="Try again; a very long answer may take a while.",
            )
        data = target.read_bytes() if target.exists() else b""
    return _audio(data, voice)


def _voices_by_language(engine: Any) -> dict[str, str]:
    """{language code: the first voice id speaking it}, codes lower-cased."""
    found: dict[str, str] = {}
    try:
        voices = engine.getProperty("voices") or []
    except Exception:
        log.debug("the engine lists no voices", exc_info=True)
        return found
    for voice in voices:
        for language in getattr(voice, "languages", None) or ():
            if isinstance(language, bytes):
                language = language.decode("ascii", "ignore").lstrip("\x05")
            code = str(language).lower().replace("_", "-")
            found.setdefault(code, voice.id)
    return found


def _complete(path: Path) -> bool:
    """A file the engine finished although its notice never came."""
    try:
        with wave.open(str(path), "rb") as w:
            return w.getnframes() > 0
    except (OSError, EOFError, wave.Error):
        return False


def _audio(data: bytes, voice: str) -> SpokenAudio:
    try:
        with wave.open(io.BytesIO(data), "rb") as w:
            frames, rate = w.getnframes(), w.getframerate()
    except (EOFError, wave.Error):
        frames, rate = 0, 0
    if not frames or not rate:
        raise SpeechError(
            "The system voice produced no sound.",
            hint="Try again; if it keeps failing, check the speech engine's voices.",
        )
    return SpokenAudio(data, round(frames * 1000 / rate), voice)


def _cause(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
