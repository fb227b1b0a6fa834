"""Ctrl+C in ``mira-desktop chat`` outside the streaming of the answer, as a
user presses it: while the send is prepared (a knowledge base reranking its
passages) and while the command waits for the answer's picture; and where a
message read from standard input is when nothing was saved. Real processes,
a real data folder, the loopback server as the model server."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import CHAT, REPO, cli
from tests.support.documents import make_pdf
from tests.support.loopback import Hang, LoopbackServer, openai_stream, raw_stream

RERANK = "/v1/rerank"
IMAGES = "/v1/images/generations"
QUESTION = "How many jars of plum jam\nare in the cellar?"
#: a command that has not ended by then never will (before the fixes: 180-300 s)
PATIENCE = 30


def start(data_dir: Path, *args: str, stdin: str = "") -> subprocess.Popen[str]:
    """The command running, ``stdin`` as its standard input (from a file, so
    that it is all there at once and the test can still signal the process)."""
    given = data_dir.parent / "stdin.txt"
    given.write_text(stdin, encoding="utf-8")
    with given.open(encoding="utf-8") as source:
        return subprocess.Popen(
            [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), *args],
            stdin=source,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )


def wait_for_path(loopback: LoopbackServer, path: str) -> None:
    arrived = len(loopback.requests)
    while not any(r.path == path for r in loopback.requests):
        arrived = len(loopback.wait_for_requests(arrived + 1, PATIENCE))


def interrupt(proc: subprocess.Popen[str]) -> tuple[str, str]:
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise


def rows(data_dir: Path, sql: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(data_dir / "mira.sqlite3")
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


@pytest.fixture
def provider(data_dir: Path, loopback: LoopbackServer) -> str:
    added = cli(data_dir, "provider", "add", "loop", "--kind", "openai", "--base-url",
                loopback.url + "/v1")  # fmt: skip
    assert added.returncode == 0, added.stderr
    return "loop"


@pytest.fixture
def reranked_farm(data_dir: Path, tmp_path: Path, provider: str) -> str:
    report = tmp_path / "report.pdf"
    report.write_bytes(
        make_pdf([["The cellar holds 300 jars of plum jam."], ["And 40 jars of pear jam."]])
    )
    for args in (
        ("kb", "create", "Farm"),
        ("kb", "add", "Farm", str(report)),
        ("kb", "rerank", "Farm", "--provider", provider, "--model", "rerank-test"),
    ):
        result = cli(data_dir, *args)
        assert result.returncode == 0, result.stderr
    return "Farm"


def test_ctrl_c_while_a_new_thread_is_prepared_sends_nothing_and_exits_130(
    data_dir: Path, loopback: LoopbackServer, provider: str, reranked_farm: str
) -> None:
    """Ctrl+C was swallowed here: the answer streamed in full and the command
    exited 0. Now the rerank request is dropped, nothing is saved, and the
    message read from standard input is printed back (it is nowhere else)."""
    loopback.enqueue(RERANK, raw_stream([Hang()], content_type="application/json"))
    proc = start(data_dir, "chat", "--provider", provider, "--model", "m",
                 "--kb", reranked_farm, "-", stdin=QUESTION)  # fmt: skip
    wait_for_path(loopback, RERANK)
    _, err = interrupt(proc)
    assert proc.returncode == 130, err
    assert "[stopped; nothing was saved and your message was not sent]" in err
    assert QUESTION in err
    assert "answer so far is saved" not in err
    assert loopback.wait_for_disconnect(timeout=5)
    assert [r.path for r in loopback.requests] == [RERANK]  # the model was never asked
    assert rows(data_dir, "SELECT COUNT(*) FROM threads") == [(0,)]


def test_a_failed_send_from_standard_input_prints_the_message_back(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    """It said "your message was not lost: it is above" — but a message piped
    in is not above; it was printed nowhere."""
    proc = start(data_dir, "chat", "--provider", provider, "--model", "m", "-", stdin=QUESTION)
    _, err = proc.communicate(timeout=PATIENCE)  # nothing queued: the server answers 404
    assert proc.returncode == 1
    assert f"Your message (read from standard input) was:\n{QUESTION}\n" in err
    assert "it is above" not in err


def test_ctrl_c_while_the_picture_is_made_stops_it_and_exits_130(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    """Ctrl+C while the command waited for the answer's picture (up to 180 s)
    was noted and ignored, and the command then exited 0."""
    assert cli(data_dir, "provider", "image-model", provider, "pic-1").returncode == 0
    assert cli(data_dir, "role", "add", "Guide", "--prompt", "Be vivid.").returncode == 0
    loopback.enqueue(CHAT, openai_stream(["A red gate in the snow."]))
    loopback.enqueue(IMAGES, raw_stream([Hang()], content_type="application/json"))
    proc = start(data_dir, "chat", "--provider", provider, "--model", "m", "--role", "Guide",
                 "--image", "Describe the temple")  # fmt: skip
    wait_for_path(loopback, IMAGES)
    out, err = interrupt(proc)
    assert proc.returncode == 130, err
    assert out.strip() == "A red gate in the snow."
    assert "[stopped: the picture was not made; the answer is saved]" in err
    assert loopback.wait_for_disconnect(timeout=5)  # the image request was dropped
    assert rows(data_dir, "SELECT role, status, text FROM messages ORDER BY seq") == [
        ("user", "complete", "Describe the temple"),
        ("assistant", "complete", "A red gate in the snow."),
    ]


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "plain"])
def test_ctrl_c_while_an_attached_recording_is_written_down_ends_as_stopped(
    data_dir: Path, tmp_path: Path, loopback: LoopbackServer, provider: str, as_json: bool
) -> None:
    """Ctrl+C before the send (a voice memo being written down, which can
    take a minute) ended the process with a bare KeyboardInterrupt: with
    --json no terminal line, against the contract of one for every run. Now
    the upload is dropped, nothing is saved and the command ends as
    stopped."""
    from tests.cli.test_transcribe_cli import TRANSCRIPTIONS, recording

    assert cli(data_dir, "provider", "transcription-model", provider, "whisper-1").returncode == 0
    loopback.enqueue(TRANSCRIPTIONS, raw_stream([Hang()], content_type="application/json"))
    memo = recording(tmp_path)
    flag = ["--json"] if as_json else []
    proc = start(data_dir, "chat", *flag, "--provider", provider, "--model", "m",
                 "--attach", str(memo), "Summarise it")  # fmt: skip
    wait_for_path(loopback, TRANSCRIPTIONS)
    out, err = interrupt(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    if as_json:
        last = json.loads(out.strip().splitlines()[-1])
        assert last["type"] == "stopped" and last["thread_id"] is None, out
    else:
        assert "[stopped; nothing was saved and your message was not sent]" in err
    assert loopback.wait_for_disconnect(timeout=5)
    assert [r.path for r in loopback.requests] == [TRANSCRIPTIONS]  # the model was never asked
    assert rows(data_dir, "SELECT COUNT(*) FROM threads") == [(0,)]
    assert rows(data_dir, "SELECT COUNT(*) FROM media") == [(0,)]
