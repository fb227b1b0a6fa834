"""History management in the real MainWindow (qasync, a real data folder, the
loopback model server; PRODUCT.md §8): date groups on the history's clock,
collapse remembered across a restart, pins (button, drag order, Ctrl+1),
workspaces (filter, move, create, delete with its confirmation), inline rename,
archive, trash / restore / delete forever / empty, batch mode, the automatic
title after the first answer, the purge at start-up and a 100,000-thread list
that stays lazy."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt, QThread
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.ids import format_time, utc_now
from mira_desktop.storage.database import write
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.sidebar.batch import encode_ids
from mira_desktop.ui.sidebar.grouped_model import GroupedThreadModel
from mira_desktop.ui.sidebar.thread_list_model import ThreadListModel
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import Hang, LoopbackServer, openai_stream, raw_stream
from tests.support.window_close import close_window
from tests.ui.history_support import (  # noqa: F401 (fixtures)
    CHAT,
    ago,
    click,
    not_blank,
    open_window,
    pin_point,
    refresh,
    row_center,
    scalar,
    seed,
    services_fixture,
    until,
    until_async,
    window_fixture,
)

GROUPED = [
    {"title": "Pinned plan", "updated_at": ago(days=50), "pinned": True, "pin_order": 0},
    {"title": "This afternoon", "updated_at": ago(hours=1)},
    {"title": "Last night", "updated_at": ago(days=1)},
    {"title": "Earlier this week", "updated_at": ago(days=4)},
    {"title": "Earlier this month", "updated_at": ago(days=20)},
    {"title": "In September", "updated_at": ago(days=70)},
    {"title": "Last year", "updated_at": ago(days=400)},
]


def labels(window: MainWindow) -> list[str]:
    g = window.sidebar.grouped
    return [str(g.data(g.index(g.header_row(k)))) for k in g.group_keys()]


def titles(window: MainWindow) -> list[str]:
    g = window.sidebar.grouped
    rows = range(g.rowCount())
    return [t.title for r in rows if (t := g.thread_at(r)) is not None]


async def test_groups_follow_the_history_clock_and_translate(
    window: MainWindow, services: Services
) -> None:
    await seed(services, GROUPED)
    await refresh(window)
    g = window.sidebar.grouped
    assert g.group_keys() == [
        "pinned",
        "today",
        "yesterday",
        "previous_7_days",
        "previous_30_days",
        "month:2026-09",
        "month:2025-10",
    ]
    assert labels(window) == [
        "Pinned",
        "Today",
        "Yesterday",
        "Previous 7 days",
        "Previous 30 days",
        "September",
        "October 2025",
    ]
    assert titles(window) == [row["title"] for row in GROUPED]
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        install_translator(app, "zh_CN")
        assert labels(window) == [
            "置顶",
            "今天",
            "昨天",
            "过去 7 天",
            "过去 30 天",
            "九月",
            "2025年10月",
        ]
    finally:
        install_translator(app, "en")


async def test_collapsed_groups_are_remembered_across_a_restart(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    await seed(services, GROUPED)
    await refresh(window)
    g = window.sidebar.grouped
    click(qtbot, window.sidebar.list_view.viewport(), row_center(window, g.header_row("today")))
    assert "This afternoon" not in titles(window)
    assert g.data(g.index(g.header_row("today")), GroupedThreadModel.CollapsedRole) is True
    await until_async(lambda: _has(services.history.collapsed_groups(), "today"))
    window.close()
    second = await open_window(qtbot, services)
    try:
        assert "today" in second.sidebar.grouped.collapsed()
        assert "This afternoon" not in titles(second)
        assert "Last night" in titles(second)
        g2 = second.sidebar.grouped
        click(
            qtbot, second.sidebar.list_view.viewport(), row_center(second, g2.header_row("today"))
        )
        assert "This afternoon" in titles(second)
        await until_async(lambda: _lacks(services.history.collapsed_groups(), "today"))
    finally:
        await close_window(second)


async def _has(coro: Any, key: str) -> bool:
    return key in await coro


async def _lacks(coro: Any, key: str) -> bool:
    return key not in await coro


async def test_pin_button_drag_order_and_ctrl_1(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    a, b, c = await seed(
        services,
        [
            {"title": "Alpha", "updated_at": ago(hours=1)},
            {"title": "Beta", "updated_at": ago(hours=2)},
            {"title": "Gamma", "updated_at": ago(hours=3)},
        ],
    )
    await refresh(window)
    g = window.sidebar.grouped
    viewport = window.sidebar.list_view.viewport()
    for thread_id in (b, c):  # the hover button pins; pins go to the end of the block
        click(qtbot, viewport, pin_point(window, g.row_of(thread_id)))
        await until(lambda t=thread_id: g.row_of(t) >= 0 and g.thread_at(g.row_of(t)).pinned)
    assert g.group_keys()[0] == "pinned"
    assert [p.id for p in await services.history.pinned_threads()] == [b, c]
    assert window.presenter.is_draft  # clicking a pin does not open the thread
    # drag Gamma above Beta: the model's drop between rows, as the view does it
    data = encode_ids([c])
    drop_row = g.row_of(b)
    assert g.canDropMimeData(data, Qt.DropAction.MoveAction, drop_row, 0, QModelIndex())
    assert not g.canDropMimeData(encode_ids([a]), Qt.DropAction.MoveAction, 1, 0, QModelIndex())
    g.dropMimeData(data, Qt.DropAction.MoveAction, drop_row, 0, QModelIndex())
    await until(lambda: g.pinned_ids() == [c, b])
    assert [p.id for p in await services.history.pinned_threads()] == [c, b]
    # Ctrl+1 opens the first pinned thread, Ctrl+2 the second
    window.activateWindow()
    await asyncio.sleep(0.05)
    qtbot.keyClick(window.sidebar.list_view, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    await until(lambda: window.presenter.key == c and window.presenter.current_thread is not None)
    assert window.header.title() == "Gamma"
    assert window.sidebar.selected_thread_id() == c
    window.sidebar.pinned_actions[1].trigger()
    await until(lambda: window.presenter.key == b)
    # the filled pin unpins
    click(qtbot, viewport, pin_point(window, g.row_of(c)))
    await until(lambda: g.pinned_ids() == [b])
    assert [p.id for p in await services.history.pinned_threads()] == [b]
    # the order survives a restart
    await services.history.pin(a)
    window.close()
    second = await open_window(qtbot, services)
    try:
        assert second.sidebar.grouped.pinned_ids() == [b, a]
    finally:
        await close_window(second)


async def test_inline_rename_saves_on_enter_and_cancels_on_escape(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    (thread_id,) = await seed(services, [{"title": "Old name", "updated_at": ago(hours=1)}])
    await refresh(window)
    view = window.sidebar.list_view
    g = window.sidebar.grouped
    click(qtbot, view.viewport(), row_center(window, g.row_of(thread_id)))
    await until(lambda: window.header.title() == "Old name")
    updated_before = await scalar(services, "SELECT updated_at FROM threads")
    qtbot.keyClick(view, Qt.Key.Key_F2)
    editor = view.findChild(QLineEdit, "RenameEditor")
    assert editor is not None and editor.text() == "Old name"
    editor.setText("  A  better   name ")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    await until(lambda: g.thread_at(g.row_of(thread_id)).title == "A better name")
    assert await scalar(services, "SELECT title FROM threads") == "A better name"
    assert await scalar(services, "SELECT title_source FROM threads") == "manual"
    assert await scalar(services, "SELECT updated_at FROM threads") == updated_before
    assert window.header.title() == "A better name"
    # Esc cancels; the context menu's Rename opens the same editor
    menu = window.sidebar.thread_menu_for(thread_id)
    assert menu is not None
    menu.action_named("rename").trigger()
    editor = view.findChild(QLineEdit, "RenameEditor")
    assert editor is not None and editor.isVisible()
    editor.setText("Never mind")
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    await asyncio.sleep(0.1)
    assert await scalar(services, "SELECT title FROM threads") == "A better name"


async def test_open_thread_and_its_menu_keep_qobject_thread_callable(
    window: MainWindow, services: Services
) -> None:
    """The presenter's open thread and the menu's thread are data attributes
    with their own names: ``QObject.thread()`` still answers the Qt thread."""
    (thread_id,) = await seed(services, [{"title": "Mine", "updated_at": ago(hours=1)}])
    await refresh(window)
    window.presenter.open_thread(thread_id)
    await until(lambda: window.header.title() == "Mine")  # the thread is shown
    gui_thread = QThread.currentThread()
    assert window.presenter.thread() is gui_thread
    menu = window.sidebar.thread_menu_for(thread_id)
    assert menu is not None
    assert menu.thread() is gui_thread
    shown = window.presenter.current_thread
    assert shown is not None and shown.id == thread_id
    assert menu.menu_thread.id == thread_id


async def test_a_long_title_typed_inline_is_kept_whole_and_drawn_elided(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    (thread_id,) = await seed(services, [{"title": "Old name", "updated_at": ago(hours=1)}])
    await refresh(window)
    view, g = window.sidebar.list_view, window.sidebar.grouped
    click(qtbot, view.viewport(), row_center(window, g.row_of(thread_id)))
    await until(lambda: window.header.title() == "Old name")
    qtbot.keyClick(view, Qt.Key.Key_F2)
    editor = view.findChild(QLineEdit, "RenameEditor")
    assert editor is not None
    title = " ".join(f"word{n:03d}" for n in range(30))  # 239 characters
    editor.setText(title)
    assert editor.text() == title  # the editor takes it all (it stopped at 60)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    await until(lambda: g.thread_at(g.row_of(thread_id)).title == title)
    assert await scalar(services, "SELECT title FROM threads") == title
    await until(lambda: window.header.title() == title)
    shown = window.header.title_label.text()  # drawn elided, whole in the tooltip
    assert shown.endswith("…") and len(shown) < len(title)
    index = g.index(g.row_of(thread_id))
    for tooltip in (window.header.title_label.toolTip(), index.data(Qt.ItemDataRole.ToolTipRole)):
        assert title in tooltip and tooltip.startswith("<p>")  # rich text: Qt wraps it
    not_blank(view.grab().toImage())  # the row paints (its title elided by the delegate)


async def test_archive_view_and_unarchive(window: MainWindow, services: Services) -> None:
    keep, archive = await seed(
        services,
        [
            {"title": "Keep me", "updated_at": ago(hours=1)},
            {"title": "Archive me", "updated_at": ago(hours=2)},
        ],
    )
    await refresh(window)
    sidebar = window.sidebar
    menu = sidebar.thread_menu_for(archive)
    assert menu is not None
    menu.action_named("archive").trigger()
    await until(lambda: titles(window) == ["Keep me"])
    assert await scalar(services, "SELECT archived FROM threads WHERE id = ?", archive) == 1
    sidebar.view_bar.view_buttons["archived"].click()
    await until(lambda: titles(window) == ["Archive me"])
    assert sidebar.grouped.group_keys() == ["today"]  # no Pinned group in the archive
    menu = sidebar.thread_menu_for(archive)
    assert menu is not None and menu.action_named("pin") is None
    menu.action_named("unarchive").trigger()
    await until(lambda: titles(window) == [])
    assert sidebar.empty_label.isVisible() and "archived" in sidebar.empty_label.text()
    sidebar.view_bar.view_buttons["active"].click()
    await until(lambda: titles(window) == ["Keep me", "Archive me"])
    del keep


async def test_trash_restore_purge_and_empty(
    qtbot: Any, window: MainWindow, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, third = await seed(
        services, [{"title": f"T{n}", "updated_at": ago(hours=n)} for n in (1, 2, 3)]
    )
    await refresh(window)
    sidebar, g = window.sidebar, window.sidebar.grouped
    click(qtbot, sidebar.list_view.viewport(), row_center(window, g.row_of(first)))
    await until(
        lambda: window.presenter.key == first and window.presenter.current_thread is not None
    )
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Delete)  # Del: to the trash
    await until(lambda: titles(window) == ["T2", "T3"])
    assert window.presenter.is_draft  # the open thread gave way to a new chat
    assert "trash" in window.notice_bar.text()
    window.notice_bar.action_button.click()  # Undo
    await until(lambda: titles(window) == ["T1", "T2", "T3"])
    sidebar.thread_menu_for(second).action_named("trash").trigger()  # type: ignore[union-attr]
    await until(lambda: "T2" not in titles(window))
    sidebar.view_bar.view_buttons["trash"].click()
    await until(lambda: titles(window) == ["T2"])
    assert sidebar.view_bar.empty_trash_button.isVisible()
    sidebar.thread_menu_for(second).action_named("restore").trigger()  # type: ignore[union-attr]
    await until(lambda: titles(window) == [])
    assert await scalar(services, "SELECT deleted_at FROM threads WHERE id = ?", second) is None
    # delete forever asks first: "No" keeps it, "Yes" purges
    await services.history.trash_many([second, third])
    await refresh(window)
    questions: list[str] = []
    answer = QMessageBox.StandardButton.No

    def question(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
        questions.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    sidebar.thread_menu_for(third).action_named("purge").trigger()  # type: ignore[union-attr]
    await until(lambda: len(questions) == 1)
    await asyncio.sleep(0.1)
    assert "forever" in questions[0]
    assert await scalar(services, "SELECT COUNT(*) FROM threads WHERE id = ?", third) == 1
    answer = QMessageBox.StandardButton.Yes
    sidebar.list_view.setCurrentIndex(g.index(g.row_of(third)))
    qtbot.keyClick(sidebar.list_view, Qt.Key.Key_Delete)  # Del in the trash: delete forever
    await until(lambda: titles(window) == ["T2"])
    assert await scalar(services, "SELECT COUNT(*) FROM threads WHERE id = ?", third) == 0
    sidebar.view_bar.empty_trash_button.click()
    await until(lambda: len(questions) == 3)
    assert "1 conversation" in questions[2]
    await until(lambda: titles(window) == [])
    assert await scalar(services, "SELECT COUNT(*) FROM threads") == 1  # T1 only
    await until(lambda: not sidebar.view_bar.empty_trash_button.isEnabled())  # nothing left


async def test_batch_select_all_archives_pages_not_loaded(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    await seed(
        services, [{"title": f"Batch {n}", "updated_at": ago(minutes=n)} for n in range(150)]
    )
    await refresh(window)
    sidebar, g = window.sidebar, window.sidebar.grouped
    assert window.thread_model.rowCount() == 100  # one page loaded
    sidebar.view_bar.batch_button.click()
    assert sidebar.view_bar.batch_bar.isVisible()
    click(qtbot, sidebar.list_view.viewport(), row_center(window, 1))  # ticks, never opens
    assert g.checked_count() == 1 and window.presenter.is_draft
    sidebar.view_bar.select_all.click()
    assert g.checked_count() == 150 and sidebar.view_bar.count_label.text() == "150 selected"
    click(qtbot, sidebar.list_view.viewport(), row_center(window, 2))  # untick one
    assert g.checked_count() == 149
    sidebar.view_bar.batch_buttons["archive"].click()
    await until_async(lambda: _count(services, "archived = 1", 149), timeout=20)
    await until(lambda: titles(window) == ["Batch 1"])
    assert not sidebar.view_bar.select_all.isChecked()


async def _count(services: Services, where: str, expected: int) -> bool:
    return await scalar(services, f"SELECT COUNT(*) FROM threads WHERE {where}") == expected


async def test_first_answer_of_a_new_chat_gets_a_title(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    loopback.enqueue(CHAT, openai_stream(["Spaced repetition works."]))
    loopback.enqueue(CHAT, openai_stream(["Title: “Learning with flashcards”"]))
    window.composer.set_text("How do I learn vocabulary fast?")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: window.header.title() == "Learning with flashcards")
    thread_id = window.presenter.key
    g = window.sidebar.grouped
    assert g.thread_at(g.row_of(thread_id)).title == "Learning with flashcards"
    assert "six words" in loopback.requests[-1].json["messages"][0]["content"]
    # a second answer in the same thread asks for no title
    loopback.enqueue(CHAT, openai_stream(["Also: sleep."]))
    window.composer.set_text("Anything else?")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: not window.chat.is_running(thread_id) and len(loopback.requests) == 3)
    await asyncio.sleep(0.2)
    assert len(loopback.requests) == 3


async def test_a_chat_whose_first_answer_was_stopped_is_named_by_the_next(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "Flashcards help "}}]}
    loopback.enqueue(CHAT, raw_stream([f"data: {json.dumps(chunk)}\n\n".encode(), Hang()]))
    window.composer.set_text("How do I learn vocabulary fast?")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: not window.presenter.is_draft)  # saved: text arrived
    thread_id = window.presenter.key
    window.composer.stop_requested.emit()
    await until(lambda: not window.chat.is_running(thread_id))
    assert len(loopback.requests) == 1  # no title asked for a stopped answer
    loopback.enqueue(CHAT, openai_stream(["Also: spaced repetition."]))
    loopback.enqueue(CHAT, openai_stream(["Learning with flashcards"]))
    window.composer.set_text("Go on")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: window.header.title() == "Learning with flashcards")
    assert (await services.threads.get_thread(thread_id)).title == "Learning with flashcards"


async def test_start_up_purges_the_trash_after_30_days(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mira_desktop.ui import launch

    built = build_services(data_dir)
    await seed(
        built,
        [
            {"title": "Long gone", "updated_at": utc_now(), "deleted_at": _days_ago(40)},
            {"title": "Recently deleted", "updated_at": utc_now(), "deleted_at": _days_ago(3)},
        ],
    )
    await built.aclose()
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # _main installs its own
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    args = argparse.Namespace(
        screenshot=str(tmp_path / "shot.png"), gui_thread=None, theme="light", lang="en"
    )
    assert await launch._main(app, args, data_dir) == 0
    check = build_services(data_dir)
    try:
        rows = await check.store.worker.run(
            lambda db: db.execute("SELECT title FROM threads").fetchall()
        )
        assert [r[0] for r in rows] == ["Recently deleted"]
    finally:
        await check.aclose()


def _days_ago(days: int) -> str:
    from datetime import UTC, datetime, timedelta

    return format_time(datetime.now(UTC) - timedelta(days=days))


async def test_a_hundred_thousand_threads_stay_lazy(window: MainWindow, services: Services) -> None:
    def insert(db: Any) -> None:  # one transaction, raw SQL
        base = db.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()[0]
        with write(db) as conn:
            conn.executemany(
                "INSERT INTO threads (id, title, workspace_id, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    (f"bulk-{n:06d}", f"Bulk thread {n}", base, stamp, stamp)
                    for n in range(100_000)
                    for stamp in (ago(minutes=n * 7),)
                ),
            )

    await services.store.worker.run(insert)
    pages: list[tuple[int, int]] = []
    window.thread_model.page_loaded.connect(lambda offset, n: pages.append((offset, n)))
    loop = asyncio.get_running_loop()
    started = loop.time()
    await refresh(window)
    opened = loop.time() - started
    assert window.thread_model.total() == 100_000
    assert len(pages) <= 2, pages
    assert opened < 10.0  # generous: timing budgets belong to the benchmarks
    bar = window.sidebar.list_view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)  # the middle of what is loaded
    await asyncio.sleep(0.2)
    assert len(pages) <= 2
    for _ in range(3):  # each time the end comes into view, one more page
        before = len(pages)
        bar.setValue(bar.maximum())
        await until(lambda b=before: len(pages) == b + 1)
        await window.thread_model.wait_idle()
    assert window.thread_model.rowCount() <= 100 * (len(pages))
    assert len(pages) <= 5
    g = window.sidebar.grouped
    assert g.group_keys()[:2] == ["today", "yesterday"]
    assert g.data(g.index(1), ThreadListModel.IdRole) == "bulk-000000"
