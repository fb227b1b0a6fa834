"""Pytest fixtures shared by the whole suite. ``loopback`` (function scope)
yields a started :class:`~tests.support.loopback.LoopbackServer` and stops it
afterwards. Register with ``pytest_plugins = ["tests.support.fixtures"]``."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from .loopback import LoopbackServer

log = logging.getLogger(__name__)


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started loopback HTTP server, stopped after the test."""
    with LoopbackServer() as server:
        yield server
