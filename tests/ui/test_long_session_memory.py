"""A long session must not leave things behind (``tests/benchmarks/bench_memory.py``
measures it over hundreds of actions): the real window offscreen on a real
data folder of seeded threads, driven many times over, and what it keeps
counted — live widgets, menus, dialogs, cache entries. Counts, not timings."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import ApprovalState, ToolCard, ToolStatus
from mira_desktop.services.seed import SeedService
from mira_desktop.storage.seed_repo import SeedStore
from mira_desktop.ui.sidebar.thread_menu import ThreadMenu
from mira_desktop.ui.timeline.markdown import render_markdown
from mira_desktop.ui.timeline.row_pool import SPARES
from mira_desktop.ui.timeline.tool_cards import ToolCardView
from mira_desktop.ui.timeline.tool_text_dialog import ToolTextDialog
from mira_desktop.ui.window.find_actions import SEARCH_DELAY_MS
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.qt_async import until

ROUNDS = 12


async def seeded(window: MainWindow, services: Services, threads: int, messages: int) -> list[str]:
    """``threads`` threads of ``messages`` messages, listed in the sidebar."""
    report = await SeedService(SeedStore(services.store.worker)).seed(threads, messages, seed=5)
    window.thread_model.refresh()
    grouped = window.sidebar.grouped
    await until(lambda: all(grouped.row_of(t) >= 0 for t in report.thread_ids))
    return list(report.thread_ids)


async def open_thread(window: MainWindow, thread_id: str) -> None:
    """As a click in the sidebar opens it, until its rows are shown."""
    window.history_actions.open_thread(thread_id)
    task = window.tasks.get("load-thread")
    if task is not None:
        await task
    await asyncio.sleep(0.03)  # painted, the rows near the screen built


def children_of(widget: object, kind: type) -> int:
    return sum(isinstance(child, kind) for child in widget.children())  # type: ignore[attr-defined]


async def test_switching_threads_back_and_forth_keeps_the_same_widgets(
    window: MainWindow, services: Services
) -> None:
    ids = await seeded(window, services, 4, 30)
    for thread_id in ids:  # each once: rows and their modules made
        await open_thread(window, thread_id)
    spares = sum(SPARES.values())  # made a moment after the window showed
    await until(lambda: window.timeline.spare_row_count() == spares)
    widgets = len(QApplication.allWidgets())
    rows = window.timeline.live_widget_count()
    for n in range(ROUNDS * 2):
        await open_thread(window, ids[n % len(ids)])
    await until(lambda: window.timeline.spare_row_count() == spares)
    assert window.timeline.live_widget_count() == rows  # the last thread again
    assert len(QApplication.allWidgets()) == widgets


async def test_right_clicks_in_the_sidebar_leave_at_most_one_menu(
    window: MainWindow, services: Services
) -> None:
    ids = await seeded(window, services, 3, 2)
    sidebar = window.sidebar
    view, grouped = sidebar.list_view, sidebar.grouped
    workspaces = sidebar.workspace_list
    for n in range(ROUNDS):
        row = grouped.row_of(ids[n % len(ids)])
        view.customContextMenuRequested.emit(view.visualRect(grouped.index(row)).center())
        menu = sidebar.thread_menu
        assert menu is not None and menu.isVisible()
        menu.close()  # dismissed (Esc, a click outside)
        workspaces.customContextMenuRequested.emit(
            workspaces.visualItemRect(workspaces.item(1)).center()  # Mira BASE
        )
        assert workspaces.menu is not None and workspaces.menu.isVisible()
        workspaces.menu.hide()  # gone another way: the next right-click drops it
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert children_of(sidebar, ThreadMenu) <= 1  # each kept its actions and lambdas
    assert children_of(workspaces, QMenu) <= 1


async def test_find_left_open_keeps_only_the_thread_on_screen_folded(
    window: MainWindow, services: Services
) -> None:
    ids = await seeded(window, services, 6, 20)
    find = window.find_actions
    find.open()
    assert find.bar is not None
    find.bar.field.setText("the")  # and left open while other threads are read
    for n in range(len(ids) + 2):
        await open_thread(window, ids[n % len(ids)])
        await asyncio.sleep(SEARCH_DELAY_MS / 1000 + 0.1)  # its search ran in this thread
        assert find.folded_count() <= window.timeline.message_count() == 20


def test_a_tool_cards_whole_text_window_goes_once_closed(qtbot: Any) -> None:
    """An agent step's "Show all" opens its whole text in a window of the
    main window; the card is a timeline row, dropped when it scrolls away or
    another thread opens — the window (and the text it holds) must not stay."""
    window = QWidget()
    qtbot.addWidget(window)
    window.show()
    diff = "".join(f"+line {n}\n" for n in range(500))
    card = ToolCard(
        "w1", "write", {"path": "a.txt"}, "Create a.txt", ToolStatus.WAITING,
        ApprovalState.PENDING, diff=diff,
    )  # fmt: skip
    for n in range(ROUNDS):
        row = ToolCardView(window)
        row.show()
        row.show_card(card)
        qtbot.mouseClick(row.show_all, Qt.MouseButton.LeftButton)
        shown = row.full_view
        assert shown is not None and shown.isVisible() and "line 499" in shown.text.toPlainText()
        if n % 2:  # read, closed, read again, then the row goes
            shown.reject()
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            qtbot.mouseClick(row.show_all, Qt.MouseButton.LeftButton)
            again = row.full_view
            assert (
                again is not None and again.isVisible() and "line 499" in again.text.toPlainText()
            )
            again.reject()
            row.deleteLater()
        else:  # the row goes while it is read: it stays open until closed
            row.deleteLater()
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            assert shown.isVisible() and "line 499" in shown.text.toPlainText()
            shown.reject()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert children_of(window, ToolTextDialog) == 0


def test_highlighted_code_blocks_are_kept_up_to_a_size_not_a_count() -> None:
    """Rendered code blocks are kept (a finished block of a streaming answer,
    a row rendered again), but by size: a block may hold 200,000 characters
    and its HTML is larger still, so a count alone (512) let the kept blocks
    reach gigabytes over a day of long code answers."""
    render_markdown("```\nwarm = up\n```\n", dark=False)  # the parser, made once
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(60):  # 60 different long blocks, ~100,000 characters each
            code = f"# file {n}\n" + "total = total + row.amount  # add it up\n" * 2_500
            assert "total = total" in render_markdown(f"```\n{code}```\n", dark=False)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 6_000_000  # 60 × (code + HTML) = ~13.6 MB were kept
