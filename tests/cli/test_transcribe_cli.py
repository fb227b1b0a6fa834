"""Speech to text from the command line, as a user runs it: the model
(``provider transcription-model``: shown, set, refused, cleared) and
``transcribe FILE`` (plain and ``--json``, a language, another provider and
model for once), with the errors said on stderr and exit code 1."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from mira_desktop.services.voice_clip import wav_bytes
from tests.support.loopback import LoopbackServer, json_reply, openai_json_error

from .test_cli import cli

TRANSCRIPTIONS = "/v1/audio/transcriptions"
NO_MODEL = "No speech-to-text model is chosen."


def recording(folder: Path, name: str = "memo.wav") -> Path:
    path = folder / name
    path.write_bytes(wav_bytes(struct.pack("<4h", 0, 900, -900, 0) * 2000, 16_000, 1))
    return path


def test_the_transcription_model_is_shown_set_refused_and_cleared(
    data_dir: Path, keyless_provider: str
) -> None:
    shown = cli(data_dir, "provider", "transcription-model")
    assert (shown.returncode, shown.stdout) == (0, NO_MODEL + "\n")
    assert json.loads(cli(data_dir, "provider", "transcription-model", "--json").stdout) is None
    added = cli(
        data_dir, "provider", "add", "ol", "--kind", "ollama", "--base-url", "http://127.0.0.1:9"
    )
    assert added.returncode == 0, added.stderr
    refused = cli(data_dir, "provider", "transcription-model", "ol", "whisper-1")
    assert refused.returncode == 1
    assert refused.stderr.startswith('error: "ol" cannot transcribe speech.\nhint: ')
    half = cli(data_dir, "provider", "transcription-model", keyless_provider)
    assert half.returncode == 1 and "Name the provider and the model." in half.stderr
    chosen = cli(data_dir, "provider", "transcription-model", keyless_provider, "whisper-1")
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout == "Speech is transcribed with whisper-1 (loop).\n"
    as_json = cli(data_dir, "provider", "transcription-model", "--json")
    assert json.loads(as_json.stdout) == {"provider": "loop", "model": "whisper-1"}
    cleared = cli(data_dir, "provider", "transcription-model", "--clear")
    assert cleared.stdout == NO_MODEL + "\n"


def test_transcribe_prints_the_words_or_json(
    data_dir: Path, loopback: LoopbackServer, keyless_provider: str, tmp_path: Path
) -> None:
    memo = recording(tmp_path)
    unset = cli(data_dir, "transcribe", str(memo))
    assert unset.returncode == 1 and unset.stdout == ""
    assert unset.stderr.startswith(f"error: {NO_MODEL}\nhint: Choose a speech-to-text model")
    assert (
        cli(data_dir, "provider", "transcription-model", keyless_provider, "whisper-1").returncode
        == 0
    )
    loopback.enqueue(TRANSCRIPTIONS, json_reply({"text": " Call Ana at five. "}))
    plain = cli(data_dir, "transcribe", str(memo))
    assert (plain.returncode, plain.stdout) == (0, "Call Ana at five.\n"), plain.stderr
    loopback.enqueue(TRANSCRIPTIONS, json_reply({"text": "Llama a Ana."}))
    args = ["--provider", keyless_provider, "--model", "large-v3", "--language", "es", "--json"]
    as_json = cli(data_dir, "transcribe", str(memo), *args)
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == {
        "text": "Llama a Ana.",
        "provider": "loop",
        "model": "large-v3",
        "file": str(memo),
        "bytes": memo.stat().st_size,
    }
    first, second = [r.body for r in loopback.requests if r.path == TRANSCRIPTIONS]
    assert memo.read_bytes() in first and b'name="language"' not in first
    assert b'name="model"\r\n\r\nlarge-v3\r\n' in second
    assert b'name="language"\r\n\r\nes\r\n' in second


def test_transcribe_says_why_it_cannot(
    data_dir: Path, loopback: LoopbackServer, keyless_provider: str, tmp_path: Path
) -> None:
    assert (
        cli(data_dir, "provider", "transcription-model", keyless_provider, "whisper-1").returncode
        == 0
    )
    loopback.enqueue(TRANSCRIPTIONS, openai_json_error(404, "404 page not found"))
    missing = cli(data_dir, "transcribe", str(recording(tmp_path)), "--json")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith(
        'error: The server of "loop" has no speech-to-text endpoint, '
        'or does not know the model "whisper-1".\nhint: '
    )
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    refused = cli(data_dir, "transcribe", str(notes))
    assert refused.returncode == 1
    assert refused.stderr == (
        'error: "notes.txt" is not an audio file that speech-to-text takes.\n'
        "hint: Use one of these formats: flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm.\n"
    )
    gone = cli(data_dir, "transcribe", str(tmp_path / "gone.wav"))
    assert gone.returncode == 1 and "gone.wav" in gone.stderr and "Cannot read" in gone.stderr


def test_kb_add_says_which_audio_files_of_a_folder_it_left_out(data_dir: Path) -> None:
    folder = data_dir.parent / "course"
    folder.mkdir()
    (folder / "notes.md").write_text("# Week 1\nThe Calvin cycle fixes carbon.\n")
    recording(folder, "lecture 1.wav")
    assert cli(data_dir, "kb", "create", "Course").returncode == 0
    done = cli(data_dir, "kb", "add", "Course", str(folder))
    assert done.returncode == 0, done.stderr
    assert "1 added" in done.stdout
    assert (
        "skipped 1 audio file(s) found in folders (name each file to have it written down): "
        "lecture 1.wav"
    ) in done.stdout
