"""``mira-desktop export`` and ``import`` as a user runs them: real processes,
a real data folder, files on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from tests.services.export.chatgpt_fixture import branching, odd, system_only, went_on
from tests.support.loopback import LoopbackServer, openai_stream

CHAT = "/v1/chat/completions"

REPO = Path(__file__).resolve().parents[2]


def run(
    data_dir: Path, *args: str, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8"},
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def imported(data_dir: Path, work: Path) -> list[dict]:
    """ChatGPT conversations imported through the CLI; their report entries."""
    source = work / "conversations.json"
    source.write_text(json.dumps([branching().data, odd().data, system_only().data]), "utf-8")
    result = run(data_dir, "import", str(source), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["format"] == "chatgpt"
    assert [s["reason"] for s in report["skipped"]] == ["no messages to import"]
    return report["imported"]


def test_import_reports_and_skips_duplicates(
    data_dir: Path, work: Path, imported: list[dict]
) -> None:
    assert [t["title"] for t in imported] == ["Branches 分支 🌳", "Imported ChatGPT conversation"]
    assert set(imported[0]) == {"id", "title", "messages", "source_ref", "original_id"}
    again = run(data_dir, "import", str(work / "conversations.json"), "--format", "chatgpt")
    assert again.returncode == 0
    assert "Imported 0 thread(s)" in again.stdout and "Skipped 3:" in again.stdout
    assert "Branches 分支 🌳 — already imported, nothing new" in again.stdout
    listed = json.loads(run(data_dir, "thread", "list", "--json").stdout)
    assert sorted(t["id"] for t in listed) == sorted(t["id"] for t in imported)


def test_a_newer_chatgpt_export_adds_what_is_new(
    data_dir: Path, work: Path, imported: list[dict]
) -> None:
    newer = work / "newer.json"
    newer.write_text(json.dumps([went_on().data, odd().data]), "utf-8")
    result = run(data_dir, "import", str(newer), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) >= {"format", "imported", "skipped", "files_restored", "files_missing"}
    assert report["imported"] == [] and report["new_messages"] == 2
    assert report["updated"] == [
        {
            "id": imported[0]["id"],
            "title": "Branches 分支 🌳",
            "messages": 2,
            "source_ref": "conv-branching",
        }
    ]
    assert [s["reason"] for s in report["skipped"]] == ["already imported, nothing new"]
    went_further = went_on()
    went_further.say("u5", "a5", "user", "Thanks!", at=42)
    newer.write_text(json.dumps([went_further.current("u5").data]), "utf-8")
    text = run(data_dir, "import", str(newer))
    assert text.returncode == 0, text.stderr
    assert "Imported 0 thread(s)" in text.stdout
    assert "Added 1 new message(s) to 1 thread(s) imported before:" in text.stdout
    row = next(line for line in text.stdout.splitlines() if line.startswith(imported[0]["id"]))
    assert row.split()[1] == "1" and row.endswith("Branches 分支 🌳")


def test_export_one_thread_to_stdout_and_files(
    data_dir: Path, work: Path, imported: list[dict]
) -> None:
    thread_id = imported[0]["id"]
    md = run(data_dir, "export", thread_id)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("# Branches 分支 🌳\n") and "## Other versions" in md.stdout
    doc = json.loads(run(data_dir, "export", thread_id, "--format", "json").stdout)
    assert doc["format"] == "mira.thread" and doc["thread"]["source"] == "import:chatgpt"
    # --json is the summary, as with --out: nothing was written, so it carries the export
    summary = json.loads(run(data_dir, "export", thread_id, "--json").stdout)
    assert (summary["format"], summary["thread_id"], summary["files"]) == ("md", thread_id, [])
    assert summary["content"].startswith("# Branches 分支 🌳\n")
    page = work / "page.html"
    written = run(data_dir, "export", thread_id, "--format", "html", "--out", str(page))
    assert written.returncode == 0 and written.stdout.strip() == str(page)
    assert page.read_text("utf-8").startswith("<!DOCTYPE html>")
    folder = run(
        data_dir, "export", *[t["id"] for t in imported], "--out", str(work / "md"), "--json"
    )
    files = json.loads(folder.stdout)["files"]
    assert len(files) == 2 and all(Path(f).parent == work / "md" for f in files)
    assert Path(files[0]).name.startswith("Branches 分支 🌳-")


def test_export_refuses_unclear_requests(data_dir: Path, work: Path, imported: list[dict]) -> None:
    ids = [t["id"] for t in imported]
    several = run(data_dir, "export", *ids)
    assert several.returncode == 1 and "--out DIR" in several.stderr and "hint:" in several.stderr
    assert run(data_dir, "export").returncode == 1
    both = run(data_dir, "export", ids[0], "--all")
    assert both.returncode == 1 and "not both" in both.stderr
    inner = run(data_dir, "export", ids[0], "--inner", "json")
    assert inner.returncode == 1 and "--inner is for --format zip" in inner.stderr
    missing = run(data_dir, "export", "no-such-thread")
    assert missing.returncode == 1 and "No thread with id no-such-thread" in missing.stderr
    bad = run(data_dir, "export", ids[0], "--format", "pdf")
    assert bad.returncode == 2  # argparse: invalid choice
    blocker = work / "blocker"
    blocker.write_text("a file where a folder would be made")
    for kind in ("md", "zip"):  # --out DIR/: made first, then written into
        made = run(data_dir, "export", ids[0], "--format", kind, "--out", f"{blocker / 'sub'}/")
        assert made.returncode == 1 and "Traceback" not in made.stderr, made.stderr
        assert f"Cannot create the folder {blocker / 'sub'}" in made.stderr, kind


def test_zip_of_all_threads_in_the_current_folder(
    data_dir: Path, work: Path, imported: list[dict]
) -> None:
    first = run(data_dir, "export", "--all", "--format", "zip", cwd=work)
    assert first.returncode == 0, first.stderr
    name = f"mira-export-{datetime.now().strftime('%Y-%m-%d')}.zip"
    assert first.stdout.strip() == f"Exported 2 thread(s) to {work / name}"
    with zipfile.ZipFile(work / name) as archive:
        assert sorted(n.rsplit(".", 1)[1] for n in archive.namelist()) == ["md", "md"]
    second = run(
        data_dir, "export", "--all", "--format", "zip", "--inner", "json", "--json", cwd=work
    )
    summary = json.loads(second.stdout)
    assert summary["path"] == str(work / name.replace(".zip", "-2.zip"))  # never replaced
    assert summary["exported"] == 2 and summary["inner"] == "json" and not summary["cancelled"]
    into = run(data_dir, "export", "--all", "--format", "zip", "--out", str(work / "exports") + "/")
    assert (work / "exports" / name).is_file(), into.stderr


def test_json_export_round_trips_through_the_cli(
    data_dir: Path, work: Path, imported: list[dict]
) -> None:
    thread_id = imported[0]["id"]
    path = work / "thread.json"
    assert (
        run(data_dir, "export", thread_id, "--format", "json", "--out", str(path)).returncode == 0
    )
    result = run(data_dir, "import", str(path), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["format"] == "mira" and report["imported"][0]["original_id"] == thread_id
    copy = json.loads(
        run(data_dir, "export", report["imported"][0]["id"], "--format", "json").stdout
    )
    original = json.loads(path.read_text("utf-8"))
    assert [m["text"] for m in copy["messages"]] == [m["text"] for m in original["messages"]]
    # a thread imported from ChatGPT keeps that origin through a Mira file
    assert (copy["thread"]["source"], copy["thread"]["source_ref"]) == (
        original["thread"]["source"],
        original["thread"]["source_ref"],
    )
    assert copy["thread"]["source"] == "import:chatgpt"
    wrong = run(data_dir, "import", str(path), "--format", "chatgpt")
    assert wrong.returncode == 1 and "not a chatgpt export" in wrong.stderr


def test_malformed_import_is_a_clear_error_and_adds_nothing(data_dir: Path, work: Path) -> None:
    bad = work / "conversations.json"
    bad.write_text(json.dumps([branching().data, {"title": "Broken", "mapping": "nope"}]))
    result = run(data_dir, "import", str(bad))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "error: Conversation 2 (“Broken”) has no “mapping” object" in result.stderr
    assert "hint:" in result.stderr and "nothing was imported" in result.stderr
    assert json.loads(run(data_dir, "thread", "list", "--json").stdout) == []
    garbage = work / "garbage.json"
    garbage.write_text("{nope")
    broken = run(data_dir, "import", str(garbage))
    assert broken.returncode == 1 and "not valid JSON" in broken.stderr


def test_a_zip_backup_moves_attached_files_to_another_library(
    data_dir: Path, work: Path, tmp_path: Path, loopback: LoopbackServer, keyless_provider: str
) -> None:
    notes = work / "notes.txt"
    notes.write_text("the harvest is on Friday\n", "utf-8")
    loopback.enqueue(CHAT, openai_stream(["Friday."]))
    sent = run(
        data_dir, "chat", "--provider", "loop", "--model", "m", "--attach", str(notes), "When?"
    )
    assert sent.returncode == 0, sent.stderr
    backup = work / "backup.zip"
    exported = run(data_dir, "export", "--all", "--format", "zip", "--inner", "json",
                   "--out", str(backup))  # fmt: skip
    assert exported.returncode == 0, exported.stderr

    elsewhere = tmp_path / "elsewhere"
    result = run(elsewhere, "import", str(backup))
    assert result.returncode == 0, result.stderr
    assert "Restored 1 attached file(s)." in result.stdout
    media = [p for p in (elsewhere / "media").rglob("*") if p.is_file()]
    assert [p.read_bytes() for p in media] == [b"the harvest is on Friday\n"]
    doctor = run(elsewhere, "doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr

    # a single JSON file carries no bytes, and says so
    thread_id = json.loads(run(elsewhere, "thread", "list", "--json").stdout)[0]["id"]
    single = work / "one.json"
    assert (
        run(elsewhere, "export", thread_id, "--format", "json", "--out", str(single)).returncode
        == 0
    )
    third = run(tmp_path / "third", "import", str(single), "--json")
    assert json.loads(third.stdout)["files_missing"] == 1


def run_in_c_locale(data_dir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """The CLI with stdout and stderr redirected and no UTF-8 locale (their
    encoding is then ASCII, as Windows' cp1252 it cannot write Chinese)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LANG")}
    env.update(PYTHONPATH=str(REPO), LC_ALL="C", PYTHONUTF8="0")
    return subprocess.run(
        [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), *args],
        capture_output=True,
        timeout=60,
        cwd=REPO,
        env=env,
    )


def test_redirected_output_is_utf8_whatever_the_locale(
    data_dir: Path, work: Path, imported: list[dict]
) -> None:
    thread_id = imported[0]["id"]
    md = run_in_c_locale(data_dir, "export", thread_id)
    assert md.returncode == 0, md.stderr.decode("utf-8", "replace")
    assert md.stdout.decode("utf-8").startswith("# Branches 分支 🌳\n")
    listed = run_in_c_locale(data_dir, "thread", "list")
    assert listed.returncode == 0 and "Branches 分支 🌳" in listed.stdout.decode("utf-8")
    bad = work / "broken.json"
    bad.write_text(json.dumps([{"title": "坏了", "mapping": "nope"}]), "utf-8")
    refused = run_in_c_locale(data_dir, "import", str(bad))
    assert refused.returncode == 1
    assert "error: Conversation 1 (“坏了”) has no “mapping” object" in refused.stderr.decode(
        "utf-8"
    )
