"""Retrieval: Chinese two-character queries, FTS syntax in user text, and the
embedding and rerank paths against the loopback server (real HTTP)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.knowledge import KnowledgeBase
from mira_desktop.services.kb import KnowledgeBaseService
from mira_desktop.services.kb.vectors import unpack
from tests.services.kb_support import CountingReader, kb_service, rows
from tests.support.loopback import LoopbackServer, openai_json_error
from tests.support.replies import ollama_embed, openai_embeddings, rerank_results

DOCS = {
    "cats.md": "Cats purr softly when they are content and warm.",
    "dogs.md": "Dogs bark loudly at strangers near the gate.",
    "study.md": "我们每天学习中文，也学习数学。",
    "tea.md": "绿茶需要用八十度的水冲泡。",
}


async def _kb_with_docs(
    services: Services, tmp_path: Path, names: list[str] | None = None
) -> tuple[KnowledgeBaseService, KnowledgeBase]:
    service = kb_service(services, CountingReader())
    kb = await service.create("Pets")
    for name in names or list(DOCS):
        (tmp_path / name).write_text(DOCS[name], encoding="utf-8")
        await service.add(kb.id, [tmp_path / name])
    return service, kb


async def test_two_character_chinese_query_is_found(services: Services, tmp_path: Path) -> None:
    service, kb = await _kb_with_docs(services, tmp_path)
    result = await service.search(kb.id, "学习")
    assert [h.chunk.document_name for h in result.hits] == ["study.md"]
    assert result.methods == ("short",)
    assert result.hits[0].snippet.count("学习") == 2 and len(result.hits[0].highlights) == 2
    one_char = await service.search(kb.id, "茶")
    assert [h.chunk.document_name for h in one_char.hits] == ["tea.md"]
    mixed = await service.search(kb.id, "绿茶 冲泡 dogs")
    assert {h.chunk.document_name for h in mixed.hits} == {"tea.md", "dogs.md"}


async def test_short_latin_terms_match_whole_words_only(services: Services, tmp_path: Path) -> None:
    service = kb_service(services, CountingReader())
    kb = await service.create("Words")
    (tmp_path / "ai.md").write_text("Our AI, trained last year, helps the nurses.")
    (tmp_path / "said.md").write_text("The captain said that the rain would stop.")
    await service.add(kb.id, [tmp_path])
    result = await service.search(kb.id, "AI")
    assert [h.chunk.document_name for h in result.hits] == ["ai.md"]


async def test_a_term_only_at_a_passage_end_is_found_by_the_last_resort_scan(
    services: Services, tmp_path: Path
) -> None:
    service = kb_service(services, CountingReader())
    kb = await service.create("Edge")
    (tmp_path / "end.md").write_text("Nothing else here but 预算")
    await service.add(kb.id, [tmp_path / "end.md"])
    result = await service.search(kb.id, "预算")
    assert [h.chunk.document_name for h in result.hits] == ["end.md"]


@pytest.mark.parametrize(
    "query",
    ['"', 'cats"', "cats AND OR NOT", "text: cats", "cats*", "(cats", "NEAR(cats purr)",
     "^cats", "cats -purr", "c++ cats?", "'cats'", "{cats}", "[1] cats", "%_cats\\"],
)  # fmt: skip
async def test_fts_syntax_in_queries_never_breaks_search(
    services: Services, tmp_path: Path, query: str
) -> None:
    service, kb = await _kb_with_docs(services, tmp_path, ["cats.md", "dogs.md"])
    result = await service.search(kb.id, query)
    if query != '"':
        assert result.hits[0].chunk.document_name == "cats.md"


async def _loop_openai(services: Services, loopback: LoopbackServer) -> str:
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "sk-kb")
    return "loop"


async def test_embeddings_are_stored_and_used_by_hybrid_search(
    services: Services, tmp_path: Path, loopback: LoopbackServer
) -> None:
    await _loop_openai(services, loopback)
    service = kb_service(services, CountingReader())
    kb = await service.create("Pets")
    await service.configure_embeddings(kb.id, "loop", "embed-small")
    assert loopback.requests == []  # configuring calls nothing
    for name, vector in (("cats.md", [1.0, 0.0, 0.0]), ("dogs.md", [0.0, 2.0, 0.0])):
        (tmp_path / name).write_text(DOCS[name])
        loopback.enqueue("/v1/embeddings", openai_embeddings([vector]))
        await service.add(kb.id, [tmp_path / name])
    bodies = [r.json for r in loopback.requests]
    assert bodies == [
        {"model": "embed-small", "input": [DOCS["cats.md"]], "encoding_format": "float"},
        {"model": "embed-small", "input": [DOCS["dogs.md"]], "encoding_format": "float"},
    ]
    stored = await rows(services, "SELECT text, embedding FROM kb_chunks ORDER BY seq")
    assert [list(unpack(blob)) for _, blob in stored] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    # "feline" shares no word with any passage: only the vector finds the cat
    loopback.enqueue("/v1/embeddings", openai_embeddings([[0.9, 0.1, 0.0]]))
    result = await service.search(kb.id, "feline")
    assert result.methods == ("dense",)
    assert [h.chunk.document_name for h in result.hits] == ["cats.md", "dogs.md"]
    assert result.hits[0].ranks == {"dense": 1}
    assert loopback.requests[-1].json["input"] == ["feline"]
    # both lists agree on the dog: it is fused first
    loopback.enqueue("/v1/embeddings", openai_embeddings([[0.1, 0.9, 0.0]]))
    result = await service.search(kb.id, "barking dogs")
    assert result.hits[0].chunk.document_name == "dogs.md"
    assert result.hits[0].ranks == {"lexical": 1, "dense": 1}


async def test_ollama_embed_fills_in_existing_passages(
    services: Services, tmp_path: Path, loopback: LoopbackServer
) -> None:
    await services.providers.add_provider("local", "ollama", loopback.url)
    service, kb = await _kb_with_docs(services, tmp_path, ["cats.md", "dogs.md", "tea.md"])
    assert loopback.requests == []  # no model yet: ingestion called nothing
    await service.configure_embeddings(kb.id, "local", "nomic-embed-text")
    loopback.enqueue("/api/embed", ollama_embed([[1, 0], [0, 1], [1, 1]]))
    steps: list = []
    assert await service.embed_pending(kb.id, progress=steps.append) == 3
    [request] = loopback.requests
    assert request.path == "/api/embed"
    assert request.json == {
        "model": "nomic-embed-text",
        "input": [DOCS["cats.md"], DOCS["dogs.md"], DOCS["tea.md"]],
    }
    stats = await service.stats(kb.id)
    assert stats.embedded_chunks == 3 and stats.embedding_bytes == 3 * (8 + 1)
    assert steps[-1].done == 3 and steps[-1].total == 3
    assert await service.embed_pending(kb.id) == 0  # nothing left
    # a different model drops the old vectors
    await service.configure_embeddings(kb.id, "local", "other-model")
    assert (await service.stats(kb.id)).embedded_chunks == 0


async def test_a_failing_embedding_server_degrades_to_keywords(
    services: Services, tmp_path: Path, loopback: LoopbackServer
) -> None:
    await _loop_openai(services, loopback)
    service = kb_service(services, CountingReader())
    kb = await service.create("Pets")
    await service.configure_embeddings(kb.id, "loop", "embed-small")
    (tmp_path / "cats.md").write_text(DOCS["cats.md"])
    loopback.enqueue("/v1/embeddings", openai_json_error(500, "out of memory", type="server_error"))
    report = await service.add(kb.id, [tmp_path / "cats.md"])
    assert report.added == 1 and "Embedding failed" in report.warnings[0]
    loopback.enqueue("/v1/embeddings", openai_embeddings([[1.0, 0.0]]))
    assert await service.embed_pending(kb.id) == 1
    loopback.enqueue("/v1/embeddings", openai_json_error(503, "busy", type="server_error"))
    result = await service.search(kb.id, "cats purr")
    assert [h.chunk.document_name for h in result.hits] == ["cats.md"]
    assert result.methods == ("lexical",) and "Vector search failed" in result.warnings[0]


async def test_rerank_reorders_the_fused_passages(
    services: Services, tmp_path: Path, loopback: LoopbackServer
) -> None:
    await _loop_openai(services, loopback)
    service, kb = await _kb_with_docs(services, tmp_path, ["cats.md", "dogs.md"])
    await service.configure_rerank(kb.id, "loop", "jina-reranker-v2")
    loopback.enqueue("/v1/rerank", rerank_results([(1, 0.97), (0, 0.12)]))
    result = await service.search(kb.id, "cats dogs", limit=2)
    [request] = loopback.requests
    assert request.path == "/v1/rerank"
    assert request.json["model"] == "jina-reranker-v2" and request.json["query"] == "cats dogs"
    assert request.json["top_n"] == 2
    fused_order = request.json["documents"]
    assert result.methods == ("lexical", "rerank")
    assert [h.chunk.text for h in result.hits] == [fused_order[1], fused_order[0]]
    assert [h.score for h in result.hits] == [0.97, 0.12]
    assert result.hits[0].ranks["rerank"] == 1
    loopback.enqueue("/v1/rerank", openai_json_error(404, "no such route", type="not_found"))
    fallback = await service.search(kb.id, "cats dogs", limit=2)
    assert [h.chunk.text for h in fallback.hits] == fused_order
    assert "Reranking failed" in fallback.warnings[0]
