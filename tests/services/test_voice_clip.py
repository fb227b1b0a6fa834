"""A dictated clip packed as a WAV file in memory and read back with the
standard library's ``wave``: its format, its samples (a trailing partial frame
dropped), and arguments that make no clip refused."""

from __future__ import annotations

import io
import struct
import wave

import pytest

from mira_desktop.services.voice_clip import wav_bytes


def read_back(data: bytes) -> tuple[int, int, int, int, bytes]:
    with wave.open(io.BytesIO(data)) as reader:
        frames = reader.readframes(reader.getnframes())
        return (
            reader.getnchannels(),
            reader.getsampwidth(),
            reader.getframerate(),
            reader.getnframes(),
            frames,
        )


def test_mono_16_bit_pcm_reads_back_as_written() -> None:
    pcm = struct.pack("<6h", 0, 1200, -1200, 32767, -32768, 7)
    data = wav_bytes(pcm, 16_000, 1)
    assert data.startswith(b"RIFF") and data[8:12] == b"WAVE"
    assert read_back(data) == (1, 2, 16_000, 6, pcm)


def test_stereo_and_other_sample_widths_read_back() -> None:
    stereo = bytes(range(16))  # 4 frames of 2 channels × 2 bytes
    assert read_back(wav_bytes(stereo, 48_000, 2)) == (2, 2, 48_000, 4, stereo)
    eight_bit = bytes([128, 130, 126, 255, 0])
    assert read_back(wav_bytes(eight_bit, 8_000, 1, sample_width=1)) == (
        1,
        1,
        8_000,
        5,
        eight_bit,
    )


def test_a_trailing_partial_frame_is_dropped() -> None:
    pcm = bytes(range(11))  # 2 whole stereo 16-bit frames (8 bytes) and 3 bytes more
    assert read_back(wav_bytes(pcm, 22_050, 2))[3:] == (2, pcm[:8])
    assert read_back(wav_bytes(b"\x01", 16_000, 1))[3:] == (0, b"")


def test_no_samples_make_a_valid_empty_file() -> None:
    data = wav_bytes(b"", 16_000, 1)
    assert read_back(data) == (1, 2, 16_000, 0, b"")
    assert len(data) == 44  # the header alone


@pytest.mark.parametrize(
    ("rate", "channels", "width", "words"),
    [
        (0, 1, 2, "sample rate"),
        (-16_000, 1, 2, "sample rate"),
        (16_000, 0, 2, "channel"),
        (16_000, 1, 0, "1 to 4 bytes"),
        (16_000, 1, 5, "1 to 4 bytes"),
    ],
)
def test_arguments_that_make_no_clip_are_refused(
    rate: int, channels: int, width: int, words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        wav_bytes(b"\0\0", rate, channels, width)
