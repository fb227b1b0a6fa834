"""Services built on a real data folder, talking HTTP to the loopback server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services, build_services
from tests.support.loopback import Hang, LoopbackServer, Reply, raw_stream

CHAT = "/v1/chat/completions"


@pytest.fixture
async def services(data_dir: Path) -> AsyncIterator[Services]:
    built = build_services(data_dir)
    yield built
    await built.aclose()


@pytest.fixture
async def loop_provider(services: Services, loopback: LoopbackServer) -> str:
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "sk-secret-123")
    return "loop"


def sse_delta(**delta: object) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}) + "\n"


def text_then_hang(*texts: str, thinking: tuple[str, ...] = ()) -> Reply:
    """An OpenAI stream that sends some deltas, then waits for the client to go."""
    lines = [sse_delta(reasoning_content=t) for t in thinking]
    lines += [sse_delta(content=t) for t in texts]
    return raw_stream([*lines, Hang()])
