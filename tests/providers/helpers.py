"""Helpers for the provider tests: a request builder, a collector that drains a
provider stream into events plus the error that ended it, text joiners, and a
port on which nothing listens."""

from __future__ import annotations

import logging
import socket
from typing import Any

from mira_desktop.core.errors import ProviderError
from mira_desktop.core.events import StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta
from mira_desktop.core.models import ChatMessage, ChatRequest, ImagePart
from mira_desktop.core.ports import ChatProvider

log = logging.getLogger(__name__)

PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def request(text: str = "Hello", model: str = "test-model", **kwargs: Any) -> ChatRequest:
    """A one-message user request."""
    return ChatRequest(model=model, messages=(ChatMessage("user", text),), **kwargs)


def rich_request(**kwargs: Any) -> ChatRequest:
    """System + history + a user message with an image."""
    messages = (
        ChatMessage("system", "You are terse."),
        ChatMessage("system", "Answer in French."),
        ChatMessage("user", "Hi"),
        ChatMessage("assistant", "Bonjour"),
        ChatMessage("user", "What is this?", images=(ImagePart("image/png", PNG_B64),)),
    )
    return ChatRequest(model="vision-model", messages=messages, **kwargs)


async def collect(
    provider: ChatProvider, req: ChatRequest | None = None
) -> tuple[list[StreamEvent], ProviderError | None]:
    """All events of one stream and the ProviderError that ended it, if any."""
    events: list[StreamEvent] = []
    try:
        async for event in provider.stream_chat(req or request()):
            events.append(event)
    except ProviderError as error:
        return events, error
    return events, None


def text(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def thinking(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ThinkingDelta))


def tool_calls(events: list[StreamEvent]) -> list[ToolCallDelta]:
    return [e for e in events if isinstance(e, ToolCallDelta)]


def closed_port_url() -> str:
    """``http://127.0.0.1:PORT`` where nothing listens (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """One chat.completion.chunk with ``delta`` (and a finish reason)."""
    return {"id": "c", "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": delta, "finish_reason": finish}
    ]}  # fmt: skip
