"""Ports: the interfaces services need from the outside world, as Protocols.

Services receive implementations through their constructors (``app.py`` wires
the real ones; tests may wire others). Keeping these here lets ``services``
depend on ``core`` alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .models import ChatRequest, ModelInfo

if TYPE_CHECKING:  # the stream events load with the first answer, not at start-up
    from .agent import WebResult
    from .events import StreamEvent
    from .illustration import GeneratedImage


class ChatProvider(Protocol):
    """A model server reached over HTTP, speaking one vendor's wire format."""

    name: str

    def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream one answer. Ends with ``StreamDone`` or raises a ``ProviderError``.

        Cancelling the consuming task closes the HTTP response at once."""
        ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def aclose(self) -> None: ...


class Clock(Protocol):
    def now(self) -> str:
        """Current UTC time as ISO-8601."""
        ...

    def monotonic(self) -> float: ...


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


@runtime_checkable
class EmbeddingProvider(Protocol):
    """A provider that turns texts into vectors (knowledge bases). An optional
    capability of a :class:`ChatProvider`: check with ``isinstance``."""

    name: str

    async def embed(self, texts: list[str], model: str) -> list[list[float]]:
        """One vector per text, in order (batched into several requests as
        needed). Raises a ``ProviderError``."""
        ...


@runtime_checkable
class RerankProvider(Protocol):
    """A provider with a rerank endpoint (Jina/Cohere style); optional."""

    name: str

    async def rerank(
        self, query: str, documents: list[str], model: str, top_n: int | None = None
    ) -> list[tuple[int, float]]:
        """``(index into documents, relevance)`` pairs, most relevant first."""
        ...


@runtime_checkable
class ImageProvider(Protocol):
    """A provider with an image generation endpoint (OpenAI-compatible
    ``/images/generations``); optional, check with ``isinstance``."""

    name: str

    async def generate_image(self, prompt: str, model: str) -> GeneratedImage:
        """The first image made for ``prompt``. Raises a ``ProviderError``."""
        ...


@runtime_checkable
class TranscriptionProvider(Protocol):
    """A provider with a speech-to-text endpoint (OpenAI-compatible
    ``/audio/transcriptions``); optional, check with ``isinstance``."""

    name: str

    async def transcribe(
        self, audio: bytes, filename: str, mime: str, model: str, language: str | None = None
    ) -> str:
        """The text spoken in ``audio`` (a file's bytes, its name and MIME
        type); ``language``: an ISO-639-1 code, or None to let the model tell.
        Raises a ``ProviderError``."""
        ...


class WebSearcher(Protocol):
    """A web search endpoint the agent's ``web_search`` asks (PRODUCT.md §11)."""

    async def search(self, query: str) -> list[WebResult]:
        """The results for ``query``. Raises a ``ProviderError``."""
        ...
