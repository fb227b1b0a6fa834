"""Fixtures of the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.loopback import LoopbackServer

from .test_cli import cli


@pytest.fixture
def keyless_provider(data_dir: Path, loopback: LoopbackServer) -> str:
    """An OpenAI-compatible provider "loop" at the loopback server, no key."""
    url = loopback.url + "/v1"
    added = cli(data_dir, "provider", "add", "loop", "--kind", "openai", "--base-url", url)
    assert added.returncode == 0, added.stderr
    return "loop"
