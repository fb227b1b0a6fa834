"""Shared set-up of the history and search window tests: services on a real
data folder whose ``HistoryService`` stands on a fixed clock (the seam the
window's grouping reads), a real ``MainWindow`` on the qasync loop, raw-SQL
seeding of threads at chosen times, and small polling helpers (never blocking
``qtbot.wait`` inside async tests). Test modules import the fixtures
``services_fixture`` and ``window_fixture`` (named ``services`` and ``window``)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRectF, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.ids import format_time, new_id
from mira_desktop.services.history import HistoryService
from mira_desktop.services.search import SearchService
from mira_desktop.storage.database import write
from mira_desktop.storage.history_store import HistoryStore
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer
from tests.support.qt_async import until
from tests.support.window_close import close_window

CHAT = "/v1/chat/completions"
#: the clock of the window's history: a Monday afternoon, in UTC
NOW = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)


def ago(**delta: float) -> str:
    return format_time(NOW - timedelta(**delta))


async def until_async(predicate: Callable[[], Any], timeout: float = 5.0) -> None:
    """Poll an async predicate (a service query)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


def with_clock(built: Services) -> Services:
    """The same services with history and search on the fixed clock (UTC)."""
    store = HistoryStore(built.store.worker)
    history = HistoryService(store, built.settings, now=lambda: NOW, tz=UTC)
    search = SearchService(store, now=lambda: NOW, tz=UTC)
    return dataclasses.replace(built, history=history, search=search)


@pytest.fixture(name="services")
async def services_fixture(data_dir: Path, loopback: LoopbackServer) -> AsyncIterator[Services]:
    built = build_services(data_dir)
    await built.providers.add_provider("Local", "openai", loopback.url + "/v1")
    await built.store.save_listed_models("Local", ["m1"])
    await built.settings.set("chat.last_model", {"provider": "Local", "model": "m1"})
    yield with_clock(built)
    await built.aclose()


async def open_window(qtbot: Any, services: Services) -> MainWindow:
    window = MainWindow(services)
    qtbot.addWidget(window)
    window.resize(1100, 760)
    window.show()
    await window.start()
    return window


@pytest.fixture(name="window")
async def window_fixture(qtbot: Any, services: Services) -> AsyncIterator[MainWindow]:
    win = await open_window(qtbot, services)
    yield win
    await close_window(win)


async def seed(
    services: Services,
    rows: Sequence[dict[str, Any]],
) -> list[str]:
    """Insert threads in one transaction: each row gives ``title`` and
    ``updated_at`` and optionally ``workspace_id``, ``pinned``/``pin_order``,
    ``archived``, ``deleted_at``, ``id``. Returns the ids in order."""
    base = (await services.workspaces.default_workspace()).id
    ids = [str(row.get("id") or new_id()) for row in rows]

    def insert(db: Any) -> None:
        with write(db) as conn:
            conn.executemany(
                "INSERT INTO threads (id, title, workspace_id, pinned, pin_order, archived,"
                " deleted_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        thread_id,
                        row["title"],
                        row.get("workspace_id") or base,
                        int(bool(row.get("pinned"))),
                        row.get("pin_order"),
                        int(bool(row.get("archived"))),
                        row.get("deleted_at"),
                        row["updated_at"],
                        row["updated_at"],
                    )
                    for thread_id, row in zip(ids, rows, strict=True)
                ],
            )

    await services.store.worker.run(insert)
    return ids


async def scalar(services: Services, query: str, *params: Any) -> Any:
    return await services.store.worker.run(lambda db: db.execute(query, params).fetchone()[0])


async def refresh(window: MainWindow) -> None:
    window.thread_model.refresh()
    await until(lambda: not window.thread_model.is_loading())
    await asyncio.sleep(0.05)


def row_center(window: MainWindow, row: int) -> QPoint:
    return window.sidebar.list_view.visualRect(window.sidebar.grouped.index(row)).center()


def pin_point(window: MainWindow, row: int) -> QPoint:
    view = window.sidebar.list_view
    rect = QRectF(view.visualRect(window.sidebar.grouped.index(row)))
    return view.delegate.pin_rect(rect).center().toPoint()


def click(qtbot: Any, widget: QWidget, pos: QPoint) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos)


def save_shot(image: QImage, tmp_path: Path, name: str) -> Path:
    """Keep a screenshot in ``tmp_path`` (and ``$MIRA_SCREENSHOT_DIR`` when set)."""
    path = tmp_path / name
    assert image.save(str(path))
    keep = os.environ.get("MIRA_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        image.save(str(Path(keep) / name))
    return path


def not_blank(image: QImage) -> None:
    assert not image.isNull() and image.width() > 200
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 13) for y in range(0, image.height(), 11)
    }
    assert len(colours) > 8, "the screenshot looks blank"
