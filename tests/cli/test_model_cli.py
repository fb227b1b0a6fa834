"""``model list|set`` and ``chat --reasoning`` as a user runs them: real
processes, a real data folder, the loopback server as the model server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.loopback import (
    LoopbackServer,
    ollama_stream,
    ollama_tags,
    openai_models,
    openai_stream,
)

from .test_cli import CHAT, cli


def test_model_set_changes_what_it_names_and_keeps_the_rest(
    data_dir: Path, loopback: LoopbackServer, keyless_provider: str
) -> None:
    loopback.enqueue("/v1/models", openai_models(["gpt-oss-20b"]))
    assert cli(data_dir, "provider", "models", "loop").returncode == 0
    first = cli(
        data_dir, "model", "set", "loop", "gpt-oss-20b",
        "--context-window", "131072", "--vision", "--tier", "reasoning", "--compact-at", "0.8",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "reasoning: the server's default" in first.stdout
    second = cli(data_dir, "model", "set", "loop", "gpt-oss-20b", "--reasoning", "high", "--json")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == {
        "provider": "loop",
        "name": "gpt-oss-20b",
        "context_window": 131072,
        "vision": True,
        "tier": "reasoning",
        "compaction_threshold": 0.8,
        "reasoning": "high",
    }
    listed = cli(data_dir, "model", "list", "--json")
    assert json.loads(listed.stdout)["models"] == [json.loads(second.stdout)]
    table = cli(data_dir, "model", "list", "loop")
    assert "REASONING" in table.stdout and "high" in table.stdout and "131,072" in table.stdout

    # every answer of the model is asked with its level; --reasoning chooses for one
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    sent = cli(data_dir, "chat", "--provider", "loop", "--model", "gpt-oss-20b", "--json", "Hi")
    assert sent.returncode == 0, sent.stderr
    thread = json.loads(sent.stdout.splitlines()[-1])["thread_id"]
    low = cli(data_dir, "chat", "--thread", thread, "--reasoning", "low", "Again")
    assert low.returncode == 0, low.stderr
    efforts = [r.json.get("reasoning_effort") for r in loopback.requests if r.path == CHAT]
    assert efforts == ["high", "low"]
    # back to the server's default: nothing is sent
    cli(data_dir, "model", "set", "loop", "gpt-oss-20b", "--reasoning", "default")
    loopback.enqueue(CHAT, openai_stream(["ok"]))
    assert cli(data_dir, "chat", "--thread", thread, "Once more").returncode == 0
    assert "reasoning_effort" not in loopback.requests[-1].json
    exported = cli(data_dir, "export", thread, "--format", "md")
    assert "reasoning: low" in exported.stdout and "reasoning: high" in exported.stdout


def test_off_and_what_is_refused(
    data_dir: Path, loopback: LoopbackServer, keyless_provider: str
) -> None:
    # a model that is not saved (a typo would become a model in every picker)
    typo = cli(data_dir, "model", "set", "loop", "gtp-4o", "--reasoning", "low")
    assert typo.returncode != 0 and 'no saved model "gtp-4o"' in typo.stderr
    assert "provider models loop" in typo.stderr and "Traceback" not in typo.stderr
    assert json.loads(cli(data_dir, "model", "list", "--json").stdout)["models"] == []
    added = cli(
        data_dir, "provider", "add", "local", "--kind", "ollama", "--base-url", loopback.url
    )
    assert added.returncode == 0, added.stderr
    loopback.enqueue("/api/tags", ollama_tags(["qwen3:8b"]))
    assert cli(data_dir, "provider", "models", "local").returncode == 0
    assert cli(data_dir, "model", "set", "local", "qwen3:8b", "--reasoning", "off").returncode == 0
    loopback.enqueue("/api/chat", ollama_stream(["Quick."]))
    chat = cli(data_dir, "chat", "--provider", "local", "--model", "qwen3:8b", "Hi")
    assert chat.returncode == 0, chat.stderr
    assert loopback.requests[-1].json["think"] is False
    bad = cli(data_dir, "model", "set", "local", "qwen3:8b", "--compact-at", "2")
    assert bad.returncode != 0 and "from 0 to 1" in bad.stderr
    unknown = cli(data_dir, "model", "set", "nowhere", "m", "--reasoning", "low")
    assert unknown.returncode != 0 and "Traceback" not in unknown.stderr
