"""GUI tests run offscreen, every ``async def`` test on a qasync loop (the pattern of
tech-notes §4): blocking ``qtbot.wait*`` must not be used inside async tests."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
import qasync  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def pytest_asyncio_loop_factories(config, item):  # type: ignore[no-untyped-def]
    return {"qasync": lambda: qasync.QEventLoop(QApplication.instance() or QApplication([]))}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)
