"""The conversation tree and the data check from the command line, as a user
runs them: real processes, a real data folder, the loopback model server.
``chat --edit`` / ``--regenerate``, ``thread show --branch``, ``thread switch``,
``thread fork`` and ``doctor [--dry-run] [--fix] [--json]``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mira_desktop.storage.database import DB_FILENAME
from tests.cli.test_cli import cli, json_lines, provider  # noqa: F401  (a fixture)
from tests.services.test_doctor import dump
from tests.support.damage import EXPECTED_CODES, damage
from tests.support.loopback import LoopbackServer, openai_stream

CHAT = "/v1/chat/completions"


def chat(data_dir: Path, loopback: LoopbackServer, reply: str, *args: str) -> list[dict]:
    loopback.enqueue(CHAT, openai_stream([reply]))
    result = cli(data_dir, "chat", "--json", *args)
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    assert events[-1]["type"] == "completed"
    return events


def show(data_dir: Path, thread_id: str, *args: str) -> dict:
    result = cli(data_dir, "thread", "show", thread_id, "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def shape(shown: dict) -> list[tuple[str, int, int]]:
    return [(m["text"], m["sibling_index"], m["sibling_count"]) for m in shown["messages"]]


@pytest.mark.usefixtures("provider")
def test_edit_keeps_the_old_branch_and_switch_brings_it_back(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    first = chat(data_dir, loopback, "a1", "--provider", "loop", "--model", "m1", "q1")
    thread_id = first[-1]["thread_id"]
    chat(data_dir, loopback, "a2", "--thread", thread_id, "q2")
    q1, a1, q2, a2 = (m["id"] for m in show(data_dir, thread_id)["messages"])

    edited = chat(data_dir, loopback, "a2 v2", "--thread", thread_id, "--edit", q2, "q2", "v2")
    assert edited[0]["type"] == "run_started" and edited[0]["kind"] == "edit"
    assert edited[0]["parent_id"] == a1
    assert loopback.requests[-1].json["messages"][-1] == {"role": "user", "content": "q2 v2"}
    active = show(data_dir, thread_id)
    assert shape(active) == [("q1", 0, 1), ("a1", 0, 1), ("q2 v2", 1, 2), ("a2 v2", 0, 1)]
    assert active["messages"][2]["parent_id"] == a1
    assert active["active_leaf_id"] == active["messages"][3]["id"]

    # both branches are visible; the old one through --branch
    old = show(data_dir, thread_id, "--branch", q2)
    assert shape(old) == [("q1", 0, 1), ("a1", 0, 1), ("q2", 0, 2), ("a2", 0, 1)]
    assert [m["id"] for m in old["messages"]] == [q1, a1, q2, a2]
    assert old["active_leaf_id"] == active["active_leaf_id"]  # --branch does not switch

    switched = cli(data_dir, "thread", "switch", thread_id, q2)
    assert switched.returncode == 0, switched.stderr
    assert show(data_dir, thread_id)["active_leaf_id"] == a2
    plain = cli(data_dir, "thread", "show", thread_id)
    assert "‹ 1/2 ›" in plain.stdout and q2 in plain.stdout


@pytest.mark.usefixtures("provider")
def test_fork_copies_the_branch_down_to_a_message_into_a_new_thread(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    first = chat(data_dir, loopback, "a1", "--provider", "loop", "--model", "m1", "q1")
    thread_id = first[-1]["thread_id"]
    chat(data_dir, loopback, "a2", "--thread", thread_id, "q2")
    _, a1, _, _ = (m["id"] for m in show(data_dir, thread_id)["messages"])

    forked = cli(data_dir, "thread", "fork", thread_id, a1, "--title", "Just the start", "--json")
    assert forked.returncode == 0, forked.stderr
    made = json.loads(forked.stdout)
    assert (made["title"], made["forked_from"], made["messages"]) == (
        "Just the start",
        thread_id,
        2,
    )
    assert shape(show(data_dir, made["thread_id"])) == [("q1", 0, 1), ("a1", 0, 1)]
    assert len(show(data_dir, thread_id)["messages"]) == 4  # the original keeps its turns
    # the fork answers on, in its own thread
    chat(data_dir, loopback, "b2", "--thread", made["thread_id"], "other q2")
    assert shape(show(data_dir, made["thread_id"]))[-2:] == [("other q2", 0, 1), ("b2", 0, 1)]
    plain = cli(data_dir, "thread", "fork", thread_id, a1)
    assert plain.returncode == 0 and "Forked 2 message(s) into thread" in plain.stdout
    missing = cli(data_dir, "thread", "fork", thread_id, "no-such-message")
    assert missing.returncode == 1 and "No message no-such-message" in missing.stderr


@pytest.mark.usefixtures("provider")
def test_regenerate_with_guidance_adds_a_sibling_answer(
    data_dir: Path, loopback: LoopbackServer
) -> None:
    first = chat(data_dir, loopback, "long answer", "--provider", "loop", "--model", "m1", "q")
    thread_id, answer_id = first[-1]["thread_id"], first[-1]["message_id"]
    events = chat(
        data_dir,
        loopback,
        "short",
        "--thread",
        thread_id,
        "--regenerate",
        answer_id,
        "--guidance",
        "Use three bullet points.",
    )
    assert events[0]["kind"] == "regenerate"
    assert not any(e["type"] == "user_message_saved" for e in events)
    assert loopback.requests[-1].json["messages"] == [
        {"role": "user", "content": "q\n\n[Regeneration guidance: Use three bullet points.]"}
    ]
    shown = show(data_dir, thread_id)
    assert shape(shown) == [("q", 0, 1), ("short", 1, 2)]
    chat(
        data_dir,
        loopback,
        "terse",
        "--thread",
        thread_id,
        "--regenerate",
        answer_id,
        "--preset",
        "concise",
    )
    assert (
        loopback.requests[-1]
        .json["messages"][-1]["content"]
        .endswith("[Regeneration guidance: Make the answer more concise.]")
    )
    assert shape(show(data_dir, thread_id, "--branch", answer_id))[-1] == ("long answer", 0, 3)


@pytest.mark.usefixtures("provider")
def test_tree_options_are_checked(data_dir: Path) -> None:
    no_thread = cli(data_dir, "chat", "--regenerate", "some-id")
    assert no_thread.returncode == 1 and "--thread" in no_thread.stderr
    with_text = cli(data_dir, "chat", "--thread", "t", "--regenerate", "m", "extra text")
    assert with_text.returncode == 1 and "no message text" in with_text.stderr
    guidance_alone = cli(data_dir, "chat", "--guidance", "shorter", "hello")
    assert guidance_alone.returncode == 1 and "--regenerate" in guidance_alone.stderr
    unknown = cli(data_dir, "thread", "switch", "no-thread", "no-message")
    assert unknown.returncode == 1 and "error:" in unknown.stderr


def test_doctor_reports_dry_runs_fixes_and_then_is_healthy(data_dir: Path) -> None:
    assert cli(data_dir, "doctor").returncode == 0  # creates and checks a fresh folder
    damage(data_dir / DB_FILENAME, data_dir / "media")
    before = dump(data_dir)

    checked = cli(data_dir, "doctor", "--json")
    assert checked.returncode == 1, checked.stderr
    report = json.loads(checked.stdout)
    assert report["mode"] == "check" and not report["healthy"]
    assert {p["code"] for p in report["problems"]} == EXPECTED_CODES
    assert dump(data_dir) == before  # start-up recovery did not run either

    dry = cli(data_dir, "doctor", "--dry-run")
    assert dry.returncode == 1 and "Nothing was changed." in dry.stdout
    assert "--fix would:" in dry.stdout and "delete the empty thread" in dry.stdout
    assert dump(data_dir) == before

    fixed = cli(data_dir, "doctor", "--fix", "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    report = json.loads(fixed.stdout)
    assert report["healthy"] and report["remaining"] == []
    assert len(report["actions"]) == len(report["problems"])

    again = cli(data_dir, "doctor")
    assert again.returncode == 0 and "no problems found" in again.stdout
