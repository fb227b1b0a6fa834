"""``mira-desktop chat --kb NAME`` as a user runs it: real processes on a real
data folder, a generated PDF in a knowledge base and the loopback server as
the model server — the sources event before the terminal line, the plain
"Sources:" list, the refusal of an empty base without a request, and a thread
bound by ``--kb`` that keeps answering from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli import CHAT, cli, json_lines
from tests.support.documents import make_pdf
from tests.support.loopback import LoopbackServer, openai_stream


@pytest.fixture
def provider(data_dir: Path, loopback: LoopbackServer) -> str:
    added = cli(data_dir, "provider", "add", "loop", "--kind", "openai", "--base-url",
                loopback.url + "/v1")  # fmt: skip
    assert added.returncode == 0, added.stderr
    return "loop"


@pytest.fixture
def farm(data_dir: Path, tmp_path: Path) -> str:
    report = tmp_path / "report.pdf"
    report.write_bytes(
        make_pdf([["Harvest notes"], ["The cellar holds 300 jars of plum jam."], ["Pears."]])
    )
    for args in (("kb", "create", "Farm"), ("kb", "add", "Farm", str(report))):
        result = cli(data_dir, *args)
        assert result.returncode == 0, result.stderr
    return "Farm"


def test_chat_kb_json_prints_the_sources_before_the_terminal_line(
    data_dir: Path, loopback: LoopbackServer, provider: str, farm: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["The cellar holds 300 jars [1]."]))
    result = cli(data_dir, "chat", "--provider", provider, "--model", "m", "--kb", farm,
                 "--json", "How many jars of plum jam are in the cellar?")  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    assert [e["type"] for e in events[-2:]] == ["sources", "completed"]
    sources, final = events[-2], events[-1]
    assert set(final) == {
        "type", "thread_id", "message_id", "text", "thinking", "usage", "error", "cut_off"
    }  # fmt: skip
    assert (sources["kb_name"], sources["kb_path"], sources["cited"]) == (farm, "answer", [1])
    assert (sources["thread_id"], sources["message_id"]) == (
        final["thread_id"],
        final["message_id"],
    )
    first = sources["sources"][0]
    assert (first["number"], first["document"], first["location_label"]) == (
        1,
        "report.pdf",
        "page 2",
    )
    assert "300 jars" in first["snippet"] and first["path"].endswith("report.pdf")
    question = loopback.requests[-1].json["messages"][-1]["content"]
    assert "[1] report.pdf, page 2\nThe cellar holds 300 jars of plum jam." in question
    # the thread stays bound: a plain follow-up answers from the base again
    loopback.enqueue(CHAT, openai_stream(["Plum jam [1]."]))
    again = cli(data_dir, "chat", "--thread", final["thread_id"], "What jam is it?")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Plum jam [1].\n\nSources:\n[1] report.pdf (page 2)\n"
    assert "300 jars" in loopback.requests[-1].json["messages"][-1]["content"]


def test_chat_kb_plain_lists_the_cited_sources(
    data_dir: Path, loopback: LoopbackServer, provider: str, farm: str
) -> None:
    loopback.enqueue(CHAT, openai_stream(["Jam [1], and nothing about pears [3]."]))
    result = cli(data_dir, "chat", "--provider", provider, "--model", "m", "--kb", farm,
                 "plum jam jars cellar")  # fmt: skip
    assert result.returncode == 0, result.stderr
    answer, _, listed = result.stdout.partition("\n\nSources:\n")
    assert answer == "Jam [1], and nothing about pears [3]."
    assert listed.splitlines()[0] == "[1] report.pdf (page 2)"


def test_chat_kb_with_an_empty_base_refuses_without_a_request(
    data_dir: Path, loopback: LoopbackServer, provider: str
) -> None:
    assert cli(data_dir, "kb", "create", "Empty").returncode == 0
    result = cli(data_dir, "chat", "--provider", provider, "--model", "m", "--kb", "Empty",
                 "--json", "Anything in here?")  # fmt: skip
    assert result.returncode == 0, result.stderr
    events = json_lines(result.stdout)
    assert events[-1]["type"] == "completed"
    assert events[-1]["text"] == "This knowledge base has no documents yet."
    assert events[-2] == {**events[-2], "type": "sources", "kb_path": "refusal", "sources": []}
    assert loopback.requests == []


def test_chat_kb_with_an_unknown_name_says_how_to_list_them(data_dir: Path, provider: str) -> None:
    result = cli(data_dir, "chat", "--provider", provider, "--model", "m", "--kb", "Nope", "hi")
    assert result.returncode != 0
    assert 'No knowledge base named "Nope"' in result.stderr and "kb list" in result.stderr
