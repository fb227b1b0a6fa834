"""The headless CLI as a user runs it: real processes, a real data folder, the
loopback server as the model server."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.loopback import (
    Hang,
    LoopbackServer,
    ollama_stream,
    ollama_tags,
    openai_json_error,
    openai_models,
    openai_stream,
    raw_stream,
)

REPO = Path(__file__).resolve().parents[2]
CHAT = "/v1/chat/completions"


def cli(
    data_dir: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture
def provider(data_dir: Path, loopback: LoopbackServer) -> str:
    result = cli(
        data_dir,
        "provider",
        "add",
        "loop",
        "--kind",
        "openai",
        "--base-url",
        loopback.url + "/v1",
        "--api-key-env",
        "LOOP_KEY",
        env={"LOOP_KEY": "sk-cli-secret-42"},
    )
    assert result.returncode == 0, result.stderr
    return "loop"


def test_provider_add_list_and_models(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    listed = cli(data_dir, "provider", "list")
    assert listed.returncode == 0
    assert "loop" in listed.stdout and "openai" in listed.stdout
    # no system keyring in tests: the list says where keys are kept
    assert "API keys are stored in: file" in listed.stdout
    as_json = json.loads(cli(data_dir, "provider", "list", "--json").stdout)
    assert as_json["providers"] == [
        {"name": "loop", "kind": "openai", "base_url": loopback.url + "/v1", "has_key": True}
    ]
    loopback.enqueue("/v1/models", openai_models(["zeta", "alpha"]))
    models = cli(data_dir, "provider", "models", "loop")
    assert models.returncode == 0 and models.stdout.split() == ["alpha", "zeta"]
    assert loopback.requests[-1].headers["authorization"] == "Bearer sk-cli-secret-42"


def test_the_api_key_never_reaches_the_database_or_logs(data_dir: Path, provider: str) -> None:
    secrets = data_dir / "secrets.json"
    assert json.loads(secrets.read_text()) and secrets.stat().st_mode & 0o777 == 0o600
    for path in data_dir.rglob("*"):
        if path.is_file() and path.name != "secrets.json":
            assert b"sk-cli-secret-42" not in path.read_bytes(), path


def test_missing_key_variable_is_a_clear_error(data_dir: Path, loopback: LoopbackServer) -> None:
    result = cli(
        data_dir,
        "provider",
        "add",
        "x",
        "--kind",
        "anthropic",
        "--base-url",
        loopback.url,
        "--api-key-env",
        "NOPE_NOT_SET",
    )
    assert result.returncode == 1
    assert "NOPE_NOT_SET" in result.stderr and "hint:" in result.stderr


def test_chat_json_streams_events_and_ends_with_one_final_line(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    usage = {
        "prompt_tokens": 11,
        "completion_tokens": 5,
        "completion_tokens_details": {"reasoning_tokens": 3},
    }
    loopback.enqueue(
        CHAT, openai_stream(["你好", ", world"], thinking_chunks=["let me think"], usage=usage)
    )
    result = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "--json", "Say", "hello")
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    assert all("type" in e for e in events)
    finals = [e for e in events if e["type"] in ("completed", "stopped", "failed")]
    assert finals == [events[-1]]
    final = events[-1]
    assert final["type"] == "completed" and final["text"] == "你好, world"
    assert final["thinking"] == "let me think" and final["error"] is None
    assert final["usage"] == {
        "prompt_tokens": 11,
        "completion_tokens": 5,
        "reasoning_tokens": 3,
        "estimated": False,
    }
    assert set(final) >= {"thread_id", "message_id", "text", "thinking", "usage", "error"}
    assert loopback.requests[-1].json["messages"][-1] == {"role": "user", "content": "Say hello"}

    shown = json.loads(cli(data_dir, "thread", "show", final["thread_id"], "--json").stdout)
    assert [(m["role"], m["status"], m["text"]) for m in shown["messages"]] == [
        ("user", "complete", "Say hello"),
        ("assistant", "complete", "你好, world"),
    ]
    assistant = shown["messages"][1]
    assert assistant["parent_id"] == shown["messages"][0]["id"] and assistant["model"] == "m1"
    assert assistant["thinking"] == "let me think" and assistant["usage"]["reasoning_tokens"] == 3
    for key in ("id", "parent_id", "role", "status", "text", "thinking", "usage", "error", "model"):
        assert key in assistant

    listed = json.loads(cli(data_dir, "thread", "list", "--json").stdout)
    assert [t["id"] for t in listed] == [final["thread_id"]]

    # continuing the thread reuses its provider and model
    loopback.enqueue(CHAT, openai_stream(["again"]))
    again = cli(data_dir, "chat", "--thread", final["thread_id"], "--json", "more")
    assert json_lines(again.stdout)[-1]["type"] == "completed"
    assert loopback.requests[-1].json["model"] == "m1"
    assert len(loopback.requests[-1].json["messages"]) == 3


def test_plain_chat_prints_answer_on_stdout_and_thinking_on_stderr(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["The answer."], thinking_chunks=["secret musing"]))
    result = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "Question?")
    assert result.returncode == 0
    assert result.stdout.strip() == "The answer."
    assert "secret musing" in result.stderr and "secret musing" not in result.stdout


def test_a_cut_off_answer_says_so_on_stderr_and_in_its_json_line(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["Half an ans"], finish_reason="length"))
    plain = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "Question?")
    assert plain.returncode == 0 and plain.stdout.strip() == "Half an ans"
    assert "[The model stopped at its length limit: the answer is cut off.]" in plain.stderr
    loopback.enqueue(CHAT, openai_stream(["Half an ans"], finish_reason="length"))
    as_json = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "--json", "Again?")
    final = json_lines(as_json.stdout)[-1]
    assert final["type"] == "completed" and final["cut_off"] == "length"


def test_failed_chat_exits_1_with_the_providers_reason(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    loopback.enqueue(
        CHAT,
        openai_json_error(401, "Invalid API key: check your dashboard", code="invalid_api_key"),
    )
    result = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "--json", "hi")
    assert result.returncode == 1
    final = json_lines(result.stdout)[-1]
    assert final["type"] == "failed" and final["thread_id"] is None
    assert (
        "Invalid API key" in final["error"]["message"]
        and final["error"]["code"] == "authentication"
    )
    plain = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "hi")
    assert plain.returncode == 1 and "error:" in plain.stderr and "hint:" in plain.stderr


TERMINAL_KEYS = (
    "type", "thread_id", "message_id", "text", "thinking", "usage", "error", "cut_off"
)  # fmt: skip


def test_chat_json_refused_before_the_stream_still_ends_with_a_failed_line(
    data_dir: Path, tmp_path: Path
) -> None:
    """An unknown role, a file that cannot be read, no text: refused before
    anything is sent, yet stdout is the one terminal line a script waits for,
    shaped as an unknown --provider's."""
    for extra, code in (
        (["--role", "Nobody", "hi"], "not_found"),
        (["--attach", str(tmp_path / "missing.pdf"), "hi"], "reader"),
        ([], "config"),  # no message
    ):
        result = cli(data_dir, "chat", "--json", *extra)
        assert result.returncode == 1, (extra, result.stderr)
        [line] = json_lines(result.stdout)
        assert line["type"] == "failed" and line["thread_id"] is None, extra
        assert line["error"]["code"] == code and line["error"]["message"], extra
        assert set(line) == set(TERMINAL_KEYS), extra


def test_dead_server_is_reported_not_a_traceback(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    loopback.stop()
    result = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "hello")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "error:" in result.stderr


def test_ctrl_c_mid_stream_saves_a_stopped_answer_and_exits_130(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    first = cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "--json", "start")
    assert first.returncode == 1  # nothing queued: 404 from the loopback server, thread not created
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    thread_id = json_lines(
        cli(data_dir, "chat", "--provider", "loop", "--model", "m1", "--json", "start").stdout
    )[-1]["thread_id"]
    line = 'data: {"choices": [{"index": 0, "delta": {"content": "half an answer"}}]}\n'
    loopback.enqueue(CHAT, raw_stream([line, Hang()]))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mira_desktop",
            "--data-dir",
            str(data_dir),
            "chat",
            "--thread",
            thread_id,
            "--json",
            "tell me more",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        event = json.loads(proc.stdout.readline())
        if event["type"] == "text_delta":
            break
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130
    final = json_lines(rest)[-1]
    assert final["type"] == "stopped" and final["text"] == "half an answer"
    assert loopback.wait_for_disconnect(timeout=5)
    db = sqlite3.connect(data_dir / "mira.sqlite3")
    rows = db.execute(
        "SELECT role, status, text FROM messages WHERE thread_id = ? ORDER BY seq", [thread_id]
    ).fetchall()
    assert rows[-2:] == [
        ("user", "complete", "tell me more"),
        ("assistant", "stopped", "half an answer"),
    ]


def test_ollama_provider_end_to_end(data_dir: Path, loopback: LoopbackServer) -> None:
    assert (
        cli(
            data_dir, "provider", "add", "local", "--kind", "ollama", "--base-url", loopback.url
        ).returncode
        == 0
    )
    loopback.enqueue("/api/tags", ollama_tags(["qwen3:8b", "llama3.2"]))
    assert cli(data_dir, "provider", "models", "local").stdout.split() == ["llama3.2", "qwen3:8b"]
    loopback.enqueue(
        "/api/chat",
        ollama_stream(
            ["Hi ", "there"], thinking_chunks=["hmm"], prompt_eval_count=12, eval_count=4
        ),
    )
    result = cli(data_dir, "chat", "--provider", "local", "--model", "qwen3:8b", "--json", "hello")
    final = json_lines(result.stdout)[-1]
    assert (
        final["type"] == "completed" and final["text"] == "Hi there" and final["thinking"] == "hmm"
    )
    assert final["usage"]["prompt_tokens"] == 12 and final["usage"]["completion_tokens"] == 4


def test_unknown_thread_is_a_clear_error(data_dir: Path) -> None:
    result = cli(data_dir, "thread", "show", "nope")
    assert result.returncode == 1 and "No thread" in result.stderr


def test_exit_codes_are_0_1_2_130_or_141(data_dir: Path, tmp_path: Path) -> None:
    """1 for what failed (a data folder that cannot be used, options a command
    refuses together), 2 only for a command line argparse cannot take (with its
    usage), 141 and no traceback when the reader of the output left — also
    when the output was still buffered at the end (the README's rule)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    unusable = cli(blocker, "thread", "list")
    assert unusable.returncode == 1, unusable.stderr
    assert f"error: Cannot use the data folder {blocker}" in unusable.stderr
    rerank = cli(data_dir, "kb", "rerank", "Docs", "--provider", "loop")
    assert rerank.returncode == 1 and "--provider and --model, or --off" in rerank.stderr
    negative = cli(data_dir, "dev", "seed", "--threads", "-1", "--messages", "1")
    assert negative.returncode == 2 and "usage:" in negative.stderr
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    process = subprocess.Popen(
        [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), "thread", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader leaves before a line was written
    with process.stderr:
        errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141
    assert "BrokenPipeError" not in errors and "Traceback" not in errors, errors


def test_data_dir_from_environment(tmp_path: Path) -> None:
    target = tmp_path / "from-env"
    result = subprocess.run(
        [sys.executable, "-m", "mira_desktop", "thread", "list"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, "MIRA_DATA_DIR": str(target)},
    )
    assert result.returncode == 0
    assert (target / "mira.sqlite3").is_file() and (target / "media").is_dir()


def test_an_unwritable_log_is_a_warning_not_a_traceback(tmp_path: Path) -> None:
    """A data folder where the log cannot be written (here 'logs' is a file;
    a read-only folder does the same for anyone but root)."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "logs").write_text("not a folder")
    result = cli(data_dir, "thread", "list", "--json")
    assert result.returncode == 0 and json.loads(result.stdout) == []
    assert "cannot write the log" in result.stderr and "Traceback" not in result.stderr
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "media").write_text("not a folder")  # where attachments must go
    refused = cli(blocked, "thread", "list")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "Cannot use the data folder" in refused.stderr


def test_text_piped_in_is_read_as_utf8_whatever_the_locale(
    data_dir: Path, provider: str, loopback: LoopbackServer
) -> None:
    loopback.enqueue(CHAT, openai_stream(["收到"]))
    locale = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mira_desktop",
            "--data-dir",
            str(data_dir),
            "chat",
            "--provider",
            provider,
            "--model",
            "m1",
            "-",
        ],
        input="你好，世界 \u2248 ok".encode() + b" \xff",
        capture_output=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ, **locale},
    )
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    sent = loopback.requests[-1].json["messages"][-1]["content"]
    assert sent == "你好，世界 ≈ ok \ufffd"
