"""A dictated clip as a file speech-to-text takes: raw PCM samples (what the
microphone delivered, interleaved little-endian) wrapped in a WAV header in
memory with the standard library's ``wave``. Qt-free, so the window records and this module packs the bytes."""

from __future__ import annotations

import io
import wave

#: bytes per sample that WAV files hold (8-, 16-, 24- and 32-bit PCM)
SAMPLE_WIDTHS = (1, 2, 3, 4)


def wav_bytes(pcm: bytes, rate: int, channels: int, sample_width: int = 2) -> bytes:
    """A WAV file of ``pcm`` (``rate`` frames a second, ``channels``
    interleaved, ``sample_width`` bytes a sample); a trailing partial frame is
    dropped."""
    frame = _frame_size(rate, channels, sample_width)
    whole = len(pcm) - len(pcm) % frame
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(sample_width)
        writer.setframerate(rate)
        writer.writeframes(pcm[:whole])
    return out.getvalue()


def _frame_size(rate: int, channels: int, sample_width: int) -> int:
    """Bytes a frame (one sample of each channel); the arguments checked."""
    if rate <= 0:
        raise ValueError(f"the sample rate must be positive, not {rate}")
    if channels <= 0:
        raise ValueError(f"a clip needs at least one channel, not {channels}")
    if sample_width not in SAMPLE_WIDTHS:
        raise ValueError(f"a sample is 1 to 4 bytes wide, not {sample_width}")
    return channels * sample_width
