"""GUI tests run offscreen, every ``async def`` test on a qasync loop (the pattern of
tech-notes §4): blocking ``qtbot.wait*`` must not be used inside async tests."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtWidgets import QApplication

from mira_desktop.ui.controllers.event_loop import new_event_loop


def pytest_asyncio_loop_factories(config, item):  # type: ignore[no-untyped-def]
    return {"qasync": lambda: new_event_loop(QApplication.instance() or QApplication([]))}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)
