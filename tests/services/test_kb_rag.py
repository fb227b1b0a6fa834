"""The knowledge-base chat path's preparation: the empty-base refusal (no model
call), the no-question fallback note, numbered sources with the system prompt,
their JSON form, and citation parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError
from mira_desktop.core.knowledge import (
    EMPTY_KB_REFUSAL,
    NOT_SEARCHED_NOTE,
    RagOutcome,
    Source,
    sources_from_data,
    sources_to_data,
)
from mira_desktop.services.kb import parse_citations
from tests.services.seed import make_thread
from tests.support.loopback import LoopbackServer


async def test_empty_knowledge_base_is_refused_without_any_model_call(
    services: Services, loopback: LoopbackServer
) -> None:
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1")
    kb = await services.knowledge.create("Empty")
    await services.knowledge.configure_embeddings(kb.id, "loop", "embed-small")
    thread = await make_thread(services, "Ask the empty base")
    await services.knowledge.bind(thread.id, kb.id)
    context = await services.rag.prepare(thread.id, "What is in here?")
    assert context.outcome is RagOutcome.REFUSAL
    assert context.text == EMPTY_KB_REFUSAL == "This knowledge base has no documents yet."
    assert context.sources == () and context.system_prompt == ""
    assert loopback.requests == []
    assert context.to_data() == {"kb_id": kb.id, "kb_path": "refusal"}


async def test_files_without_a_question_fall_back_to_normal_chat(services: Services) -> None:
    kb = await services.knowledge.create("Docs")
    for text in ("", "   ", "\n?!"):
        context = await services.rag.prepare(kb.id, text, has_files=True)
        assert context.outcome is RagOutcome.FALLBACK
        assert context.note == NOT_SEARCHED_NOTE
        assert (
            context.note == "The knowledge base was not searched: the message has no text question."
        )
    assert context.to_data()["kb_note"] == NOT_SEARCHED_NOTE


async def test_a_question_gets_numbered_sources_and_instructions(
    services: Services, tmp_path: Path
) -> None:
    (tmp_path / "orchard.md").write_text(
        "# Apples\n\nThe orchard grows 40 apple trees.\n\n# Pears\n\nThere are 12 pear trees.\n"
    )
    (tmp_path / "barn.md").write_text("The barn stores apple crates in winter.")
    kb = await services.knowledge.create("Farm")
    await services.knowledge.add(kb.id, [tmp_path])
    thread = await make_thread(services, "Farm questions")
    await services.knowledge.bind(thread.id, kb.id)
    context = await services.rag.prepare(thread.id, "How many apple trees are there?")
    assert context.outcome is RagOutcome.ANSWER and context.kb_name == "Farm"
    assert [s.number for s in context.sources] == list(range(1, len(context.sources) + 1))
    first = context.sources[0]
    assert (first.document, first.location, first.label) == (
        "orchard.md",
        {"line": 1, "heading": "Apples"},
        "Apples",
    )
    assert "40 apple trees" in first.snippet and first.path == str(tmp_path / "orchard.md")
    prompt = context.system_prompt
    assert "[1] orchard.md, Apples\n# Apples\n\nThe orchard grows 40 apple trees." in prompt
    assert "cite" in prompt.lower() and "does not contain" in prompt
    data = json.loads(json.dumps(context.to_data()))
    assert data["kb_path"] == "answer"
    assert sources_from_data(data["sources"]) == list(context.sources)
    assert data["sources"][0]["location_label"] == "Apples"


async def test_nothing_matching_still_asks_the_model_to_say_so(
    services: Services, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("Only about turnips.")
    kb = await services.knowledge.create("Veg")
    await services.knowledge.add(kb.id, [tmp_path / "a.md"])
    context = await services.rag.prepare(kb.id, "quantum chromodynamics")
    assert context.outcome is RagOutcome.ANSWER and context.sources == ()
    assert "No passage of the knowledge base matched" in context.system_prompt


async def test_a_thread_without_a_knowledge_base_is_an_error(services: Services) -> None:
    thread = await make_thread(services, "plain")
    with pytest.raises(ConfigError):
        await services.rag.prepare(thread.id, "hello?")


def _sources(count: int) -> list[Source]:
    return [
        Source(n, f"doc{n}.pdf", f"/d/doc{n}.pdf", {"page": n}, "…", f"c{n}", 1.0 / n)
        for n in range(1, count + 1)
    ]


@pytest.mark.parametrize(
    ("answer", "numbers"),
    [
        ("Apples grow here [1].", [1]),
        ("Both [2][1] say so, and again [1].", [2, 1]),
        ("See [1, 3] and [2，3].", [1, 3, 2]),
        ("Pages [2-4] agree.", [2, 3, 4]),
        ("Invented [9] and [0] are ignored; [4] is real.", [4]),
        ("A link [1](http://x) and a list [ 2 ] item.", [2]),
        ("No citations at all.", []),
    ],
)
def test_citations_map_markers_to_sources(answer: str, numbers: list[int]) -> None:
    sources = _sources(5)
    citations = parse_citations(answer, sources)
    assert [c.number for c in citations] == numbers
    assert all(c.source is sources[c.number - 1] for c in citations)


def test_source_data_round_trips() -> None:
    source = Source(
        1, "销售.xlsx", "/d/销售.xlsx", {"sheet": "销售"}, "北京 | 1200", "c1", 0.5,
        document_id="d1", kb_id="k1", highlights=((0, 2),),
    )  # fmt: skip
    data = sources_to_data([source])
    assert data == [
        {
            "number": 1,
            "document": "销售.xlsx",
            "document_id": "d1",
            "path": "/d/销售.xlsx",
            "location": {"sheet": "销售"},
            "location_label": "sheet 销售",
            "snippet": "北京 | 1200",
            "highlights": [[0, 2]],
            "chunk_id": "c1",
            "kb_id": "k1",
            "score": 0.5,
        }
    ]
    assert sources_from_data(json.loads(json.dumps(data))) == [source]
    assert sources_from_data("junk") == [] and sources_from_data([1, None]) == []
