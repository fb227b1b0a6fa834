"""A damaged database from the command line (real processes): every command
says so and what to do, without a traceback; ``doctor`` reports it and
``doctor --fix`` saves what can be read, after which Mira works again."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import cli
from tests.storage.test_salvage import PER_THREAD, THREADS, garble_page_holding, seeded


def test_a_destroyed_header_is_reported_then_replaced(data_dir: Path) -> None:
    path = seeded(data_dir)
    with path.open("r+b") as f:
        f.write(b"\x00garbage" * 20)

    listed = cli(data_dir, "thread", "list")
    assert listed.returncode == 1 and "Traceback" not in listed.stderr
    assert f'The database "{path}" is damaged' in listed.stderr
    assert "mira-desktop doctor --fix" in listed.stderr

    checked = cli(data_dir, "doctor", "--json")
    assert checked.returncode == 1, checked.stderr
    report = json.loads(checked.stdout)
    assert [p["code"] for p in report["problems"]] == ["database_damaged"]
    assert not report["healthy"] and path.read_bytes()[:8] == b"\x00garbage"  # unchanged

    fixed = cli(data_dir, "doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "Nothing could be read from it: Mira starts with an empty database." in fixed.stdout
    assert "The data folder is healthy now." in fixed.stdout
    [kept] = (data_dir / "backups").glob("mira-*-damaged.sqlite3")
    assert kept.read_bytes()[:8] == b"\x00garbage"
    assert cli(data_dir, "thread", "list").returncode == 0


def test_a_damaged_page_is_found_by_doctor_and_the_rest_saved(data_dir: Path) -> None:
    path = seeded(data_dir)
    garble_page_holding(path, "message 5-40 ")
    shown = cli(data_dir, "thread", "show", "thread-05")
    assert shown.returncode == 1 and "Traceback" not in shown.stderr
    assert "is damaged (database disk image is malformed)" in shown.stderr

    checked = cli(data_dir, "doctor")
    assert checked.returncode == 1
    assert "  - database_damaged database: " in checked.stdout  # SQLite words it variously

    fixed = cli(data_dir, "doctor", "--fix", "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    report = json.loads(fixed.stdout)
    salvage = report["salvage"]
    assert report["healthy"] and salvage["readable"]
    assert THREADS * PER_THREAD - 20 <= salvage["copied"]["messages"] < THREADS * PER_THREAD
    assert salvage["copied"]["threads"] == THREADS
    # thread 5 lost the messages of one page: its branch is repaired, the rest is there
    shown = cli(data_dir, "thread", "show", "thread-05", "--json")
    assert shown.returncode == 0, shown.stderr
    found = cli(data_dir, "search", "message 19-59", "--json")
    assert found.returncode == 0 and "thread-19" in found.stdout
