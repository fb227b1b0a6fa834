"""The history, workspace and search commands as a user runs them: real
processes on a data folder seeded through the services."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from mira_desktop.bootstrap import build_services
from tests.services.seed import make_thread

from .test_cli import REPO, cli


def seed(data_dir: Path, *threads: tuple[str, list[str]]) -> list[str]:
    async def run() -> list[str]:
        services = build_services(data_dir)
        try:
            return [(await make_thread(services, title, texts)).id for title, texts in threads]
        finally:
            await services.aclose()

    return asyncio.run(run())


def listed(data_dir: Path, *flags: str) -> list[dict]:
    result = cli(data_dir, "thread", "list", "--json", *flags)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_thread_history_actions(data_dir: Path) -> None:
    a, b = seed(data_dir, ("first", ["hello"]), ("second", ["world"]))
    assert cli(data_dir, "thread", "rename", a, "Trip", "to", "Kyoto").stdout.strip() == (
        "Renamed to “Trip to Kyoto”."
    )
    assert cli(data_dir, "thread", "pin", a).returncode == 0
    rows = listed(data_dir)
    assert [(r["title"], r["pinned"]) for r in rows] == [("Trip to Kyoto", True), ("second", False)]
    assert {"id", "title", "model", "pinned", "created_at", "updated_at"} <= set(rows[0])
    archived = cli(data_dir, "thread", "archive", b, "--json")
    assert json.loads(archived.stdout)["archived"] is True
    assert [r["title"] for r in listed(data_dir, "--archived")] == ["second"]
    refused = cli(data_dir, "thread", "purge", a)
    assert refused.returncode == 1 and "not in the trash" in refused.stderr
    assert "--force" in refused.stderr
    trashed = cli(data_dir, "thread", "trash", a)
    assert trashed.returncode == 0 and f"thread restore {a}" in trashed.stdout
    assert [r["title"] for r in listed(data_dir, "--trash")] == ["Trip to Kyoto"]
    assert listed(data_dir) == []
    assert cli(data_dir, "thread", "restore", a).returncode == 0
    assert cli(data_dir, "thread", "purge", b, "--force").returncode == 0
    assert [r["title"] for r in listed(data_dir)] == ["Trip to Kyoto"]
    empty = cli(data_dir, "thread", "empty-trash")
    assert empty.returncode == 1 and "0 thread(s)" in empty.stdout
    missing = cli(data_dir, "thread", "pin", "no-such-id")
    assert missing.returncode == 1 and "No thread with id no-such-id" in missing.stderr


def test_workspace_commands(data_dir: Path, tmp_path: Path) -> None:
    (thread_id,) = seed(data_dir, ("plan", ["a message to keep"]))
    added = cli(data_dir, "workspace", "add", "Work", "--color", "teal", "--root", str(tmp_path))
    assert added.returncode == 0, added.stderr
    assert cli(data_dir, "thread", "move", thread_id, "work").returncode == 0
    assert [r["title"] for r in listed(data_dir, "--workspace", "Work")] == ["plan"]
    assert cli(data_dir, "workspace", "rename", "Work", "Office").returncode == 0
    spaces = json.loads(cli(data_dir, "workspace", "list", "--json").stdout)
    assert [(w["name"], w["color"], w["threads"]) for w in spaces] == [
        ("Mira BASE", "#6366f1", 0),
        ("Office", "#14b8a6", 1),
    ]
    asked = cli(data_dir, "workspace", "delete", "Office")
    assert asked.returncode == 1
    assert "holds 1 thread(s)" in asked.stdout and "trash" in asked.stdout
    assert len(json.loads(cli(data_dir, "workspace", "list", "--json").stdout)) == 2
    done = cli(data_dir, "workspace", "delete", "Office", "--yes")
    assert done.returncode == 0 and "1 thread(s) moved to the trash" in done.stdout
    (row,) = listed(data_dir, "--trash")
    assert row["workspace_id"] == spaces[0]["id"]
    base = cli(data_dir, "workspace", "delete", "Mira BASE", "--yes")
    assert base.returncode == 1 and "cannot be deleted" in base.stderr
    rename = cli(data_dir, "workspace", "rename", "mira base", "Other")
    assert rename.returncode == 1 and "keeps its name" in rename.stderr


def test_search_command(data_dir: Path) -> None:
    seed(
        data_dir,
        ("机器学习笔记", ["我们讨论了机器学习", "deep learning"]),
        ("Python tips", ["学习 Python"]),
    )
    result = cli(data_dir, "search", "学习", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["query"] == "学习" and data["count"] == 3
    first = data["hits"][0]
    assert first["message_id"] is None and first["thread_title"] == "机器学习笔记"
    assert first["highlights"] == [[2, 4]]
    plain = cli(data_dir, "search", "deep", "learning", "--since", "today")
    assert plain.returncode == 0 and "«deep learning»" in plain.stdout
    assert "No results" in cli(data_dir, "search", "--", '"', "AND", "-x", "*").stdout
    other = cli(data_dir, "search", "学习", "--workspace", "Nowhere")
    assert other.returncode == 1 and "No workspace named" in other.stderr


def test_output_cut_short_by_its_reader_ends_quietly(data_dir: Path) -> None:
    """`mira-desktop thread list | head -1`: the reader leaves early; Mira
    stops writing without a traceback (exit 141, as a shell's SIGPIPE)."""
    import subprocess
    import sys

    assert cli(data_dir, "dev", "seed", "--threads", "1500", "--messages", "1").returncode == 0
    command = [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir)]
    process = subprocess.Popen(
        [*command, "thread", "list", "--limit", "1500"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()
    with process.stderr:
        errors = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141
    assert "Traceback" not in errors and "BrokenPipeError" not in errors


def test_rename_keeps_a_long_title_whole(data_dir: Path) -> None:
    (thread_id,) = seed(data_dir, ("first", ["hello"]))
    words = [f"word{n:03d}" for n in range(30)]  # 239 characters: once cut to 60
    renamed = cli(data_dir, "thread", "rename", thread_id, *words, "--json")
    assert renamed.returncode == 0, renamed.stderr
    assert json.loads(renamed.stdout)["title"] == " ".join(words)
    assert [r["title"] for r in listed(data_dir)] == [" ".join(words)]
    refused = cli(data_dir, "thread", "rename", thread_id, "x" * 501)
    assert refused.returncode == 1 and "at most 500 characters" in refused.stderr
