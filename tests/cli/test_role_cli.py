"""``mira-desktop role`` as a user runs it: real processes, a real data folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), "role", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env=os.environ.copy(),
    )


def test_role_add_list_show_delete(data_dir: Path) -> None:
    added = cli(
        data_dir,
        "add",
        "翻译",
        "--prompt",
        "你把中文翻译成英文。",
        "--temperature",
        "0.2",
        "--top-p",
        "0.9",
        "--max-tokens",
        "500",
    )
    assert added.returncode == 0, added.stderr
    assert "Added role 翻译." in added.stdout
    listed = json.loads(cli(data_dir, "list", "--json").stdout)
    assert [(r["name"], r["persona"], r["temperature"], r["top_p"], r["max_tokens"])
            for r in listed] == [("翻译", "你把中文翻译成英文。", 0.2, 0.9, 500)]  # fmt: skip
    table = cli(data_dir, "list").stdout
    assert "翻译" in table and "temperature=0.2 top_p=0.9 max_tokens=500" in table
    shown = json.loads(cli(data_dir, "show", "翻译", "--json").stdout)
    assert "## Persona\n你把中文翻译成英文。" in shown["system_prompt"]
    deleted = cli(data_dir, "delete", "翻译")
    assert deleted.returncode == 0 and "Deleted role 翻译" in deleted.stdout
    assert json.loads(cli(data_dir, "list", "--json").stdout) == []


def test_role_errors_say_what_to_do(data_dir: Path) -> None:
    bad = cli(data_dir, "add", "Hot", "--prompt", "x", "--temperature", "3")
    assert bad.returncode == 1
    assert "error: Temperature must be between 0 and 2 (got 3.0)." in bad.stderr
    missing = cli(data_dir, "delete", "Nobody")
    assert missing.returncode == 1
    assert 'No role named "Nobody"' in missing.stderr and "role list" in missing.stderr
