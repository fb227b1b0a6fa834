"""A workspace folder on disk for the agent's tools, and a scope on it; a
project folder and its workspace for chats with the agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.services.agent.scope import WorkspaceScope


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def scope(root: Path) -> WorkspaceScope:
    return WorkspaceScope(root)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder for a chat with the agent."""
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    (folder / "README.md").write_text("# Demo\n\n你好，世界\n", encoding="utf-8")
    return folder


@pytest.fixture
async def workspace_id(services: Services, project: Path) -> str:
    """A workspace whose folder is ``project``."""
    workspace = await services.workspaces.create("Demo", root_dir=str(project))
    return workspace.id
