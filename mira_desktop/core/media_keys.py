"""The names under which media made after an answer (PRODUCT.md §10) live in
its ``Message.data`` and in the settings (with the speech-to-text model of
voice input): constants only, so that the window's start-up reads them without
building the value types (``speech.py``, ``illustration.py``)."""

from __future__ import annotations

#: an answer's spoken audio (``core/speech.SpeechInfo``)
SPEECH_KEY = "speech"
#: an answer's picture (``core/illustration.ImageInfo``)
IMAGE_KEY = "image"
#: the setting naming the image model: {"provider": name, "model": name}
IMAGE_MODEL_KEY = "media.image_model"
#: the setting naming the speech-to-text model: {"provider": name, "model": name}
TRANSCRIPTION_MODEL_KEY = "media.transcription_model"
#: the setting that sends dictated words at once (a spoken conversation): bool
SEND_DICTATION_KEY = "media.send_dictation"
