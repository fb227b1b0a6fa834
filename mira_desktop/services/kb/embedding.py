"""Reaching embedding and rerank models through the configured providers.

A knowledge base names a provider (by its configured name) and a model in its
settings; :class:`EmbeddingClient` gets that provider's live adapter from the
provider service and uses its optional capabilities (``EmbeddingProvider``,
``RerankProvider`` in ``core.ports``). Vectors come back packed for storage
(normalised float32 bytes) with their sign signatures."""

from __future__ import annotations

import logging
from typing import Protocol

from ...core.errors import ConfigError
from ...core.knowledge import ModelRef
from ...core.models import ProviderConfig
from ...core.ports import ChatProvider, EmbeddingProvider, RerankProvider
from .vectors import pack, signature

log = logging.getLogger(__name__)


class ProviderLookup(Protocol):
    """What the knowledge-base services need of ``ProviderService``."""

    async def chat_provider(self, name: str) -> tuple[ProviderConfig, ChatProvider]: ...


class EmbeddingClient:
    def __init__(self, providers: ProviderLookup) -> None:
        self._providers = providers

    async def embedder(self, ref: ModelRef) -> EmbeddingProvider:
        """The adapter of ``ref.provider``, refusing one that cannot embed."""
        config, provider = await self._providers.chat_provider(ref.provider)
        if not isinstance(provider, EmbeddingProvider):
            raise ConfigError(
                f'Provider "{ref.provider}" ({config.kind}) cannot make embeddings.',
                hint="Use an OpenAI-compatible or Ollama provider with an embedding model.",
            )
        return provider

    async def embed(self, ref: ModelRef, texts: list[str]) -> list[tuple[bytes, bytes]]:
        """``(vector bytes, signature)`` per text, in order."""
        if not texts:
            return []
        provider = await self.embedder(ref)
        vectors = await provider.embed(texts, ref.model)
        packed = [pack(vector) for vector in vectors]
        return [(blob, signature(blob)) for blob in packed]

    async def rerank(
        self, ref: ModelRef, query: str, documents: list[str], top_n: int | None = None
    ) -> list[tuple[int, float]]:
        config, provider = await self._providers.chat_provider(ref.provider)
        if not isinstance(provider, RerankProvider):
            raise ConfigError(
                f'Provider "{ref.provider}" ({config.kind}) has no rerank endpoint.',
                hint="Use an OpenAI-compatible provider that serves /rerank (Jina, Cohere…).",
            )
        return await provider.rerank(query, documents, ref.model, top_n)
