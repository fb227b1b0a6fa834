"""``mira-desktop kb ...`` as a user runs it: real processes on a real data
folder, the loopback server as the embedding server."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.support.loopback import LoopbackServer
from tests.support.replies import openai_embeddings

REPO = Path(__file__).resolve().parents[2]


def cli(
    data_dir: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env={**os.environ, **(env or {})},
    )


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    return result


def _thread_with_message(data_dir: Path) -> str:
    """A thread and one message written straight into the database."""
    db = sqlite3.connect(data_dir / "mira.sqlite3")
    with db:
        workspace = db.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()[0]
        now = "2026-01-01T00:00:00.000Z"
        db.execute(
            "INSERT INTO threads(id, title, workspace_id, created_at, updated_at)"
            " VALUES ('t-1', 'Kept', ?, ?, ?)",
            (workspace, now, now),
        )
        db.execute(
            "INSERT INTO messages(id, thread_id, role, text, created_at, updated_at)"
            " VALUES ('m-1', 't-1', 'user', 'still here', ?, ?)",
            (now, now),
        )
    db.close()
    return "t-1"


def _thread_kb(data_dir: Path) -> tuple[str | None, int]:
    db = sqlite3.connect(data_dir / "mira.sqlite3")
    try:
        kb_id = db.execute("SELECT kb_id FROM threads WHERE id = 't-1'").fetchone()[0]
        messages = db.execute("SELECT COUNT(*) FROM messages WHERE thread_id = 't-1'").fetchone()[0]
    finally:
        db.close()
    return kb_id, messages


def test_kb_lifecycle(data_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / ".hidden").mkdir(parents=True)
    (docs / ".hidden" / "secret.md").write_text("never indexed")
    (docs / "guide.md").write_text("# Setup\n\nThe quarterly revenue grew 12 percent.\n")
    (docs / "notes.txt").write_text("今天我们学习了向量数据库。", encoding="utf-8")
    ok(cli(data_dir, "kb", "create", "Docs"))
    added = ok(cli(data_dir, "kb", "add", "Docs", str(docs)))
    assert "2 added" in added.stdout and "passages stored" in added.stdout
    assert "[1/2] indexed:" in added.stderr and "[2/2] indexed:" in added.stderr
    assert "secret" not in added.stderr
    [listed] = json.loads(ok(cli(data_dir, "kb", "list", "--json")).stdout)["knowledge_bases"]
    assert (listed["name"], listed["documents"], listed["chunks"]) == ("Docs", 2, 2)
    assert listed["index_bytes"] > listed["text_bytes"] > 0
    found = json.loads(ok(cli(data_dir, "kb", "search", "Docs", "revenue", "--json")).stdout)
    [hit] = found["hits"]
    assert hit["document"] == "guide.md" and hit["location"] == {"line": 1, "heading": "Setup"}
    assert "revenue" in hit["snippet"] and hit["score"] > 0
    chinese = ok(cli(data_dir, "kb", "search", "Docs", "学习")).stdout
    assert chinese.startswith("1. notes.txt, line 1") and "«学习»" in chinese
    thread = _thread_with_message(data_dir)
    ok(cli(data_dir, "kb", "bind", "Docs", "--thread", thread))
    assert _thread_kb(data_dir)[0] is not None
    assert "2 unchanged" in ok(cli(data_dir, "kb", "reindex", "Docs")).stdout
    deleted = ok(cli(data_dir, "kb", "delete", "Docs"))
    assert "1 thread(s) were unbound" in deleted.stdout
    assert _thread_kb(data_dir) == (None, 1)


def test_kb_errors_name_what_to_do(data_dir: Path) -> None:
    result = cli(data_dir, "kb", "add", "Nope", "x.md")
    assert result.returncode == 1
    assert 'No knowledge base named "Nope"' in result.stderr and "hint:" in result.stderr


def test_kb_add_names_what_it_could_not_add(data_dir: Path, tmp_path: Path) -> None:
    """A path that is not there is named (not only in --json's ``skipped``),
    and an add that added nothing because paths failed or were missing exits 1;
    files merely unchanged are a success."""
    missing, damaged, good = tmp_path / "gone.md", tmp_path / "bad.pdf", tmp_path / "a.md"
    damaged.write_bytes(b"\x00\x01 not a pdf")
    good.write_text("Cats purr.")
    ok(cli(data_dir, "kb", "create", "Pets"))
    plain = cli(data_dir, "kb", "add", "Pets", str(missing), str(damaged))
    assert plain.returncode == 1
    assert f"not found: {missing}" in plain.stderr and f"failed: {damaged}" in plain.stderr
    assert "1 failed, 1 not found" in plain.stdout
    as_json = cli(data_dir, "kb", "add", "Pets", str(missing), "--json")
    assert as_json.returncode == 1
    assert json.loads(as_json.stdout)["skipped"] == [{"path": str(missing), "reason": "not found"}]
    assert "1 added" in ok(cli(data_dir, "kb", "add", "Pets", str(good))).stdout
    assert "1 unchanged" in ok(cli(data_dir, "kb", "add", "Pets", str(good))).stdout


def test_kb_embed_through_a_provider(
    data_dir: Path, tmp_path: Path, loopback: LoopbackServer
) -> None:
    ok(
        cli(
            data_dir,
            "provider",
            "add",
            "loop",
            "--kind",
            "openai",
            "--base-url",
            loopback.url + "/v1",
        )
    )
    (tmp_path / "a.md").write_text("Cats purr.")
    ok(cli(data_dir, "kb", "create", "Pets"))
    ok(cli(data_dir, "kb", "add", "Pets", str(tmp_path / "a.md")))
    loopback.enqueue("/v1/embeddings", openai_embeddings([[0.6, 0.8]]))
    result = ok(
        cli(data_dir, "kb", "embed", "Pets", "--provider", "loop", "--model", "mini", "--json")
    )
    assert json.loads(result.stdout) == {
        "kb": "Pets", "embedded": 1, "with_vectors": 1, "chunks": 1, "cancelled": False,
    }  # fmt: skip
    [request] = loopback.requests
    assert request.json == {"model": "mini", "input": ["Cats purr."], "encoding_format": "float"}
