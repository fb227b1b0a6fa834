"""Changes another process makes to the data folder while the window is open
(PRODUCT.md §8): the real ``mira-desktop`` CLI in a subprocess trashes, renames
and starts threads; the sidebar of the real window on the same folder shows
them by itself (``PRAGMA data_version`` looked at on a slow timer and when the
window is activated), keeps the highlighted thread and the rows in sight where
they were, and pages on by key, so no thread is skipped for good."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QWidget

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import format_time
from mira_desktop.ui.window.main_window import MainWindow
from tests.cli.test_cli import cli
from tests.support.loopback import LoopbackServer
from tests.support.replies import openai_stream
from tests.ui.history_support import (  # noqa: F401 (fixtures)
    CHAT,
    refresh,
    seed,
    services_fixture,
    until,
    window_fixture,
)


async def run_cli(data_dir: Path, *args: str) -> None:
    """The CLI in a subprocess, the window's loop running meanwhile."""
    result = await asyncio.to_thread(cli, data_dir, *args)
    assert result.returncode == 0, result.stderr


async def seed_recent(services: Services, count: int) -> list[str]:
    """``count`` threads, the first the most recently active, all before now
    (a chat the CLI starts sorts above them)."""
    now = datetime.now(UTC)
    rows = [
        {"title": f"thread {k:03d}", "updated_at": format_time(now - timedelta(minutes=k + 1))}
        for k in range(count)
    ]
    return await seed(services, rows)


def top_row(window: MainWindow) -> tuple[str, int]:
    """The first thread in sight and where it stands in the viewport."""
    view, grouped = window.sidebar.list_view, window.sidebar.grouped
    row = view.rowAt(0)
    while grouped.thread_at(row) is None:
        row += 1
    thread = grouped.thread_at(row)
    assert thread is not None
    return thread.id, view.rowViewportPosition(row)


async def test_the_sidebar_shows_what_the_cli_changed_and_keeps_its_place(
    qtbot: Any,
    window: MainWindow,
    services: Services,
    data_dir: Path,
    loopback: LoopbackServer,
) -> None:
    await services.settings.set("chat.auto_title", False)
    ids = await seed_recent(services, 250)
    await refresh(window)
    model, view = window.thread_model, window.sidebar.list_view
    assert len(model.threads()) == 100
    window.sidebar.select_thread(ids[40])
    view.verticalScrollBar().setValue(
        view.rowViewportPosition(window.sidebar.grouped.row_of(ids[30]))
    )
    anchor = top_row(window)
    assert ids.index(anchor[0]) > 3  # the rows the CLI trashes are above it
    loopback.enqueue(CHAT, openai_stream(["Hello from the terminal"]))
    await run_cli(data_dir, "thread", "trash", ids[2])
    await run_cli(data_dir, "thread", "trash", ids[3])
    await run_cli(data_dir, "thread", "rename", ids[0], "Renamed", "by", "the", "CLI")
    await run_cli(data_dir, "chat", "--provider", "Local", "--model", "m1", "Hi there")
    await until(lambda: model.threads()[0].id not in ids, timeout=10)  # the CLI's new chat
    shown = {t.id: t for t in model.threads()}
    assert ids[2] not in shown and ids[3] not in shown
    assert shown[ids[0]].title == "Renamed by the CLI"
    assert window.sidebar.selected_thread_id() == ids[40]  # the highlight stayed
    assert top_row(window) == anchor  # rows went above it: it did not move
    # paging on: every active thread once, none skipped by the rows that went
    while model.canFetchMore():
        model.fetchMore()
        await model.wait_idle()
    listed = [t.id for t in model.threads()]
    active = [t.id for t in await services.history.list_threads(0, 1000)]
    assert len(active) == 249 and listed == active


async def test_activating_the_window_looks_at_once(
    qtbot: Any, window: MainWindow, services: Services, data_dir: Path
) -> None:
    """The timer looks every few seconds; coming back to the window (after the
    terminal) looks at once."""
    ids = await seed_recent(services, 5)
    await refresh(window)
    window.activateWindow()
    await until(window.isActiveWindow)
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    await until(lambda: not window.isActiveWindow())
    await run_cli(data_dir, "thread", "rename", ids[4], "Named in the terminal")
    titles = lambda: [t.title for t in window.thread_model.threads()]  # noqa: E731
    await asyncio.sleep(0.3)
    assert "Named in the terminal" not in titles()
    window.activateWindow()
    await until(lambda: "Named in the terminal" in titles(), timeout=1.5)  # not the timer's 3 s
