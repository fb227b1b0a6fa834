"""Wire formats of the knowledge-base endpoints: embedding requests in batches
(OpenAI-compatible ``POST {base}/embeddings`` and Ollama's ``POST /api/embed``)
and Jina/Cohere-style ``POST {base}/rerank``; parsing their answers into plain
vectors and ``(index, relevance)`` pairs, with a malformed answer (wrong count,
non-numeric values, ragged dimensions) raised as ``MalformedStreamError``."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Sequence
from typing import Any

from mira_desktop.core.errors import MalformedStreamError

log = logging.getLogger(__name__)

#: Texts per embedding request: small enough for local servers' limits.
EMBED_BATCH = 64


def batches(texts: Sequence[str], size: int = EMBED_BATCH) -> Iterator[list[str]]:
    """``texts`` in consecutive lists of at most ``size``."""
    for start in range(0, len(texts), size):
        yield list(texts[start : start + size])


def openai_embedding_body(texts: list[str], model: str) -> dict[str, Any]:
    return {"model": model, "input": texts, "encoding_format": "float"}


def ollama_embedding_body(texts: list[str], model: str) -> dict[str, Any]:
    return {"model": model, "input": texts}


def _vector(value: Any, provider: str) -> list[float]:
    if not isinstance(value, list) or not value:
        raise MalformedStreamError("The server sent an empty or invalid vector", provider=provider)
    try:
        vector = [float(x) for x in value]
    except (TypeError, ValueError):
        raise MalformedStreamError(
            "The server sent a vector with non-numeric values", provider=provider
        ) from None
    if not all(math.isfinite(x) for x in vector):
        raise MalformedStreamError(
            "The server sent a vector with NaN or infinity", provider=provider
        )
    return vector


def _checked(vectors: list[list[float]], expected: int, provider: str) -> list[list[float]]:
    if len(vectors) != expected:
        raise MalformedStreamError(
            f"The server sent {len(vectors)} vectors for {expected} texts", provider=provider
        )
    if len({len(v) for v in vectors}) > 1:
        raise MalformedStreamError(
            "The server sent vectors of different lengths", provider=provider
        )
    return vectors


def parse_openai_embeddings(obj: Any, expected: int, provider: str) -> list[list[float]]:
    """``{"data": [{"index": i, "embedding": [...]}, ...]}`` → vectors in input order."""
    items = obj.get("data") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        raise MalformedStreamError("The server's answer has no embeddings", provider=provider)
    ordered = sorted(
        (item for item in items if isinstance(item, dict)),
        key=lambda item: item.get("index", 0) if isinstance(item.get("index"), int) else 0,
    )
    vectors = [_vector(item.get("embedding"), provider) for item in ordered]
    return _checked(vectors, expected, provider)


def parse_ollama_embeddings(obj: Any, expected: int, provider: str) -> list[list[float]]:
    """``{"embeddings": [[...], ...]}`` → vectors."""
    items = obj.get("embeddings") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        raise MalformedStreamError("The server's answer has no embeddings", provider=provider)
    return _checked([_vector(item, provider) for item in items], expected, provider)


def rerank_body(query: str, documents: list[str], model: str, top_n: int | None) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "query": query, "documents": documents}
    if top_n is not None:
        body["top_n"] = top_n
    return body


def parse_rerank(obj: Any, count: int, provider: str) -> list[tuple[int, float]]:
    """``{"results": [{"index", "relevance_score"}]}`` → pairs, best first.
    Indexes outside the documents are dropped."""
    items = obj.get("results") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        raise MalformedStreamError("The server's rerank answer has no results", provider=provider)
    pairs: list[tuple[int, float]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        index, score = item.get("index"), item.get("relevance_score", item.get("score"))
        if isinstance(index, int) and 0 <= index < count and isinstance(score, int | float):
            pairs.append((index, float(score)))
    pairs.sort(key=lambda pair: pair[1], reverse=True)
    return pairs
