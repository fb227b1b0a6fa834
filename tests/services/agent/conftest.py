"""A workspace folder on disk for the agent's tools, and a scope on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.services.agent.scope import WorkspaceScope


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def scope(root: Path) -> WorkspaceScope:
    return WorkspaceScope(root)
