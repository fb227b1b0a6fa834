"""Spoken answers from the command line, as a user runs them: ``chat --tts``
(the ``speech`` line before the terminal line, stdout kept clean of eSpeak's
own print), ``thread tts``, ``thread speak [--out]`` and its failure."""

from __future__ import annotations

import json
import wave
from pathlib import Path

from tests.support.loopback import LoopbackServer, openai_stream

from .test_cli import CHAT, cli, json_lines


def test_chat_with_tts_reads_the_answer_aloud_before_its_last_line(
    data_dir: Path, loopback: LoopbackServer, keyless_provider: str, tmp_path: Path
) -> None:
    loopback.enqueue(CHAT, openai_stream(["Boil the water, ", "then add the pasta."]))
    result = cli(
        data_dir, "chat", "--provider", keyless_provider, "--model", "m1", "--tts", "--json", "How?"
    )
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)  # every line is JSON: "Audio saved to …" stayed out
    assert [e["type"] for e in events[-2:]] == ["speech", "completed"]
    speech, final = events[-2], events[-1]
    assert speech["status"] == "ready" and speech["message_id"] == final["message_id"]
    assert speech["duration_ms"] > 1000 and speech["name"].endswith(".wav")
    thread_id = final["thread_id"]
    shown = json.loads(cli(data_dir, "thread", "show", thread_id, "--json").stdout)
    assert shown["messages"][-1]["data"]["speech"]["sha256"] == speech["sha256"]
    # plain mode: the answer on stdout, the report on stderr
    loopback.enqueue(CHAT, openai_stream(["Drain it."]))
    plain = cli(data_dir, "chat", "--thread", thread_id, "And then?")
    assert plain.returncode == 0 and plain.stdout.strip() == "Drain it."
    assert "[Read aloud: 0:0" in plain.stderr
    # switched off: no speech line
    off = cli(data_dir, "thread", "tts", thread_id, "off", "--json")
    assert json.loads(off.stdout) == {"thread_id": thread_id, "tts_enabled": False}
    loopback.enqueue(CHAT, openai_stream(["Serve."]))
    quiet = cli(data_dir, "chat", "--thread", thread_id, "--json", "Then?")
    assert [e["type"] for e in json_lines(quiet.stdout)][-1] == "completed"
    assert "speech" not in [e["type"] for e in json_lines(quiet.stdout)]
    # read aloud on request, written where asked
    out = tmp_path / "out" / "serve.wav"
    spoken = cli(data_dir, "thread", "speak", thread_id, "--out", str(out))
    assert spoken.returncode == 0, spoken.stderr
    assert spoken.stdout.startswith("Read aloud: 0:0") and str(out) in spoken.stdout
    with wave.open(str(out)) as w:
        assert w.getnframes() > 0


def test_thread_speak_says_why_when_there_is_nothing_to_read(
    data_dir: Path, loopback: LoopbackServer, keyless_provider: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["```\nls -la\n```"]))
    final = json_lines(
        cli(
            data_dir, "chat", "--provider", keyless_provider, "--model", "m1", "--json", "ls?"
        ).stdout
    )[-1]
    result = cli(data_dir, "thread", "speak", final["thread_id"], "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["status"] == "failed" and report["error"]["code"] == "speech"
    assert report["error"]["message"] == "This answer has nothing to read aloud."
    plain = cli(data_dir, "thread", "speak", final["thread_id"])
    assert plain.returncode == 1 and plain.stdout.startswith("Not read aloud: This answer has")
    unknown = cli(data_dir, "thread", "speak", final["thread_id"], "--message", "nope")
    assert unknown.returncode != 0 and "nope" in unknown.stderr
