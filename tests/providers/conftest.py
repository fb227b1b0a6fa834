"""Fixtures shared by the provider tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from mira_desktop.providers.openai_compat import OpenAIProvider
from tests.support.loopback import LoopbackServer


@pytest.fixture
async def openai(loopback: LoopbackServer) -> AsyncIterator[OpenAIProvider]:
    """An OpenAI-compatible provider talking to the loopback server."""
    async with OpenAIProvider("local", loopback.url + "/v1", "sk-test") as provider:
        yield provider
