"""Ports: the interfaces services need from the outside world, as Protocols.

Services receive implementations through their constructors (``app.py`` wires
the real ones; tests may wire others). Keeping these here lets ``services``
depend on ``core`` alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from .events import StreamEvent
from .models import ChatRequest, ModelInfo


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
