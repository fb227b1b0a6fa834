"""The context commands of the headless CLI (issue 7) as a user runs them: real
processes, a real data folder, the loopback server as the model server —
``chat --attach/--role``, ``thread summary``, ``thread compact``, ``tokens``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.documents import make_image, make_pdf
from tests.support.loopback import LoopbackServer, openai_stream

from .test_cli import CHAT, cli, json_lines


@pytest.fixture
def provider(data_dir: Path, loopback: LoopbackServer) -> str:
    added = cli(
        data_dir, "provider", "add", "loop", "--kind", "openai", "--base-url", loopback.url + "/v1"
    )
    assert added.returncode == 0, added.stderr
    return "loop"


def media_files(data_dir: Path) -> list[Path]:
    return [p for p in (data_dir / "media").rglob("*") if p.is_file()]


def test_chat_with_a_role_and_attachments(
    data_dir: Path, loopback: LoopbackServer, provider: str, tmp_path: Path
) -> None:
    added = cli(
        data_dir, "role", "add", "Analyst", "--prompt", "Be exact.", "--temperature", "0.2",
        "--top-p", "0.9", "--max-tokens", "300",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = json.loads(cli(data_dir, "role", "list", "--json").stdout)
    assert [(r["name"], r["temperature"], r["top_p"], r["max_tokens"]) for r in listed] == [
        ("Analyst", 0.2, 0.9, 300)
    ]
    pdf = tmp_path / "q3.pdf"
    pdf.write_bytes(make_pdf([["Revenue 12.5%"]]))
    image = make_image(tmp_path / "chart.png", "PNG")
    loopback.enqueue(CHAT, openai_stream(["Noted."]))
    result = cli(
        data_dir, "chat", "--provider", "loop", "--model", "m1", "--role", "Analyst",
        "--attach", str(pdf), "--attach", str(image), "--json", "Compare",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    assert events[0] == {
        "type": "warning",
        "code": "image_not_supported",
        "message": "m1 is not marked as able to see images; the image (chart.png) will not be sent.",
        "names": ["chart.png"],
    }
    assert events[-1]["type"] == "completed"
    body = loopback.requests[-1].json
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.9, 300)
    assert body["messages"][0] == {"role": "system", "content": body["messages"][0]["content"]}
    assert "Be exact." in body["messages"][0]["content"]
    question = body["messages"][-1]["content"]
    assert question.startswith("[Attached file: q3.pdf — PDF, 1 page]\n[Page 1]\nRevenue 12.5%")
    assert "[Image not sent: chart.png" in question and question.endswith("Compare")
    shown = json.loads(cli(data_dir, "thread", "show", events[-1]["thread_id"], "--json").stdout)
    assert shown["messages"][0]["data"]["attachment_notes"] == [events[0]["message"]]
    assert len(media_files(data_dir)) == 2  # both files are held by the message


def test_a_refused_attachment_sends_nothing_and_leaves_nothing(
    data_dir: Path, loopback: LoopbackServer, provider: str, tmp_path: Path
) -> None:
    good = tmp_path / "ok.pdf"
    good.write_bytes(make_pdf([["fine"]]))
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4 nonsense")
    result = cli(
        data_dir, "chat", "--provider", "loop", "--model", "m1",
        "--attach", str(good), "--attach", str(bad), "Read",
    )  # fmt: skip
    assert result.returncode == 1 and "broken.pdf" in result.stderr
    assert loopback.requests == [] and media_files(data_dir) == []


def test_summary_compact_and_tokens(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["Answer one."]))
    first = cli(
        data_dir, "chat", "--provider", "loop", "--model", "m1", "--json",
        "See https://doi.org/10.1000/182",
    )  # fmt: skip
    thread_id = json_lines(first.stdout)[-1]["thread_id"]

    empty = cli(data_dir, "thread", "summary", thread_id)
    assert empty.returncode == 0 and "no context summary" in empty.stdout
    saved = cli(data_dir, "thread", "summary", thread_id, "--set", "Reader of DOI 10.1000/182")
    assert saved.returncode == 0 and "up to date" in saved.stdout
    shown = json.loads(cli(data_dir, "thread", "summary", thread_id, "--json").stdout)
    assert shown["summary"] == "Reader of DOI 10.1000/182" and shown["lag"] == 0
    assert shown["updated_at"] and shown["message_count"] == 2
    loopback.enqueue(CHAT, openai_stream(["Generated summary."]))
    generated = cli(data_dir, "thread", "summary", thread_id, "--generate")
    assert generated.returncode == 0 and "Generated summary." in generated.stdout
    assert "https://doi.org/10.1000/182" in loopback.requests[-1].json["messages"][1]["content"]
    cleared = cli(data_dir, "thread", "summary", thread_id, "--clear", "--json")
    assert json.loads(cleared.stdout) == {"thread_id": thread_id, "summary": None}

    tokens = json.loads(cli(data_dir, "tokens", thread_id).stdout)
    assert set(tokens) == {"current_tokens", "peak_tokens", "context_window", "remaining", "share"}
    assert tokens["current_tokens"] > 10 and tokens["context_window"] is None

    loopback.enqueue(CHAT, openai_stream(["Checkpoint: https://doi.org/10.1000/182"]))
    compacted = cli(data_dir, "thread", "compact", thread_id, "--instructions", "Keep the DOI")
    assert compacted.returncode == 0, compacted.stderr
    assert compacted.stdout.startswith("Context compressed.")
    assert "Keep the DOI" in loopback.requests[-1].json["messages"][1]["content"]
    again = cli(data_dir, "thread", "compact", thread_id, "--json")
    assert again.returncode == 0
    assert json.loads(again.stdout)["message"] == "Nothing to compact yet."
    after = json.loads(cli(data_dir, "tokens", thread_id, "--draft", "hello world").stdout)
    assert after["current_tokens"] < tokens["current_tokens"] + 6 + 20
