"""Embeddings and rerank through the real adapters against the loopback server:
the recorded request bodies, batching, and typed errors."""

from __future__ import annotations

import pytest

from mira_desktop.core.errors import AuthenticationError, MalformedStreamError, ModelNotFoundError
from mira_desktop.core.ports import EmbeddingProvider, RerankProvider
from mira_desktop.providers.anthropic import AnthropicProvider
from mira_desktop.providers.embeddings import EMBED_BATCH
from mira_desktop.providers.ollama import OllamaProvider
from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import LoopbackServer, json_reply, ollama_error, openai_json_error
from tests.support.replies import ollama_embed, openai_embeddings, rerank_results


async def test_openai_embed_posts_inputs_and_returns_vectors_in_index_order(
    loopback: LoopbackServer,
) -> None:
    body = {
        "data": [
            {"index": 1, "embedding": [0.0, 1.0]},
            {"index": 0, "embedding": [1.0, 0.0]},
        ]
    }
    loopback.enqueue("/v1/embeddings", json_reply(body))
    async with OpenAIProvider("o", loopback.url + "/v1", "sk-e") as provider:
        vectors = await provider.embed(["alpha", "贝塔"], "text-embed")
    assert vectors == [[1.0, 0.0], [0.0, 1.0]]
    [request] = loopback.requests
    assert request.path == "/v1/embeddings"
    assert request.json == {
        "model": "text-embed",
        "input": ["alpha", "贝塔"],
        "encoding_format": "float",
    }
    assert request.headers["authorization"] == "Bearer sk-e"


async def test_openai_embed_batches_long_inputs(loopback: LoopbackServer) -> None:
    texts = [f"t{i}" for i in range(EMBED_BATCH + 3)]
    loopback.enqueue("/v1/embeddings", openai_embeddings([[1.0, i] for i in range(EMBED_BATCH)]))
    loopback.enqueue("/v1/embeddings", openai_embeddings([[2.0, i] for i in range(3)]))
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:
        vectors = await provider.embed(texts, "m")
    assert len(vectors) == EMBED_BATCH + 3 and vectors[-1] == [2.0, 2.0]
    assert [len(r.json["input"]) for r in loopback.requests] == [EMBED_BATCH, 3]


async def test_ollama_embed_uses_api_embed(loopback: LoopbackServer) -> None:
    loopback.enqueue("/api/embed", ollama_embed([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]))
    async with OllamaProvider("l", loopback.url) as provider:
        vectors = await provider.embed(["一", "two"], "nomic-embed-text")
    assert vectors == [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]
    assert loopback.requests[0].json == {"model": "nomic-embed-text", "input": ["一", "two"]}


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (openai_embeddings([[1.0]]), MalformedStreamError),  # 1 vector for 2 texts
        (openai_embeddings([[1.0], [1.0, 2.0]]), MalformedStreamError),  # ragged
        (json_reply({"data": [{"index": 0, "embedding": ["x"]}] * 2}), MalformedStreamError),
        (json_reply({"nothing": True}), MalformedStreamError),
        (openai_json_error(401, "bad key", type="invalid_api_key"), AuthenticationError),
        (openai_json_error(404, "model 'm' not found", type="not_found_error"), ModelNotFoundError),
    ],
)
async def test_openai_embed_errors_are_typed(
    loopback: LoopbackServer, reply: object, error: type[Exception]
) -> None:
    loopback.enqueue("/v1/embeddings", reply)  # type: ignore[arg-type]
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:
        with pytest.raises(error):
            await provider.embed(["a", "b"], "m")


async def test_ollama_embed_model_missing_is_typed(loopback: LoopbackServer) -> None:
    loopback.enqueue("/api/embed", ollama_error(404, 'model "nomic" not found, try pulling it'))
    async with OllamaProvider("l", loopback.url) as provider:
        with pytest.raises(ModelNotFoundError):
            await provider.embed(["a"], "nomic")


async def test_openai_rerank_posts_query_and_documents(loopback: LoopbackServer) -> None:
    loopback.enqueue("/v1/rerank", rerank_results([(0, 0.1), (2, 0.9), (7, 0.5)]))
    async with OpenAIProvider("o", loopback.url + "/v1") as provider:
        pairs = await provider.rerank("q?", ["a", "b", "c"], "jina-reranker", top_n=2)
    assert pairs == [(2, 0.9), (0, 0.1)]  # sorted, out-of-range index dropped
    assert loopback.requests[0].json == {
        "model": "jina-reranker",
        "query": "q?",
        "documents": ["a", "b", "c"],
        "top_n": 2,
    }


async def test_capabilities_are_optional_protocols() -> None:
    openai = OpenAIProvider("o", "http://127.0.0.1:9/v1")
    ollama = OllamaProvider("l", "http://127.0.0.1:9")
    anthropic = AnthropicProvider("a", "http://127.0.0.1:9")
    assert isinstance(openai, EmbeddingProvider) and isinstance(openai, RerankProvider)
    assert isinstance(ollama, EmbeddingProvider) and not isinstance(ollama, RerankProvider)
    assert not isinstance(anthropic, EmbeddingProvider)
    for provider in (openai, ollama, anthropic):
        await provider.aclose()
