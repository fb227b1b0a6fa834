"""The Ctrl+K search dialog (PRODUCT.md §8): in the real MainWindow the
keyboard flow — Ctrl+K, type 学习, ↓, Enter — opens the thread scrolled to the
highlighted message, on the branch that holds it; filters (today / week / month
/ quarter, workspace, archived); the debounce and the dropping of stale answers
(with a scripted search service); screenshots with highlighted snippets."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QInputMethodEvent, QKeyEvent
from PySide6.QtWidgets import QApplication

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.core.models import Message, MessageRole, Workspace
from mira_desktop.core.search import SearchHit
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.search.search_dialog import DEBOUNCE_MS, SearchDialog
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.window.main_window import MainWindow
from tests.services.seed import make_thread
from tests.ui.history_support import (  # noqa: F401 (fixtures)
    NOW,
    not_blank,
    refresh,
    save_shot,
    services_fixture,
    until,
    window_fixture,
)


async def open_search(qtbot: Any, window: MainWindow) -> SearchDialog:
    """Ctrl+K from the composer (where Qt's editor would take it otherwise)."""
    window.activateWindow()
    await until(window.isActiveWindow)
    window.composer.focus_input()
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    dialog = window.search_actions.dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


async def typed(qtbot: Any, dialog: SearchDialog, text: str) -> list[SearchHit]:
    shown: list[int] = []
    dialog.results_shown.connect(lambda _query, n: shown.append(n))
    if text.isascii():
        qtbot.keyClicks(dialog.query_edit, text)
    else:  # Chinese arrives from the input method as a committed string
        event = QInputMethodEvent()
        event.setCommitString(text)
        QApplication.sendEvent(dialog.query_edit, event)
    await until(lambda: bool(shown) and dialog.model.query == text)
    return dialog.hits()


async def test_ctrl_k_type_arrow_enter_opens_the_highlighted_message(
    qtbot: Any, window: MainWindow, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = await make_thread(services, "学习计划 for the spring", ["Make me a plan", "Sure."])
    notes = await make_thread(
        services,
        "Weekly notes",
        ["What did we talk about?", "我们今天讨论了人工智能和机器学习的最新进展"],
    )
    other = await make_thread(services, "Groceries", ["milk", "bread"])
    await refresh(window)
    highlighted: list[tuple[str, bool]] = []
    original = window.timeline.scroll_to_message

    def spy(message_id: str, *, highlight: bool = False) -> None:
        highlighted.append((message_id, highlight))
        original(message_id, highlight=highlight)

    monkeypatch.setattr(window.timeline, "scroll_to_message", spy)
    dialog = await open_search(qtbot, window)
    await until(dialog.query_edit.hasFocus)
    hits = await typed(qtbot, dialog, "学习")
    assert [h.thread_id for h in hits] == [plan.id, notes.id]  # the title hit ranks first
    assert hits[0].message_id is None and hits[1].message_id is not None
    assert dialog.current_row() == 0
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Down)
    assert dialog.current_row() == 1
    assert dialog.query_edit.hasFocus()  # focus stays in the query field
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Return)
    await until(lambda: not dialog.isVisible())
    await until(
        lambda: window.presenter.current_thread is not None and window.presenter.key == notes.id
    )
    message_id = hits[1].message_id
    assert highlighted == [(message_id, True)]
    assert message_id in window.timeline.message_ids()
    widget = window.timeline.message_widget(message_id)
    assert widget is not None and widget._highlighted  # the drawn highlight
    assert window.sidebar.selected_thread_id() == notes.id
    # Esc closes without opening anything
    dialog = await open_search(qtbot, window)
    await typed(qtbot, dialog, "milk")
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Escape)
    await until(lambda: not dialog.isVisible())
    assert window.presenter.key == notes.id
    del other


async def test_a_hit_on_another_branch_opens_that_branch(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    thread = await make_thread(services, "Branches", ["Explain attention", "旧答案提到了深度学习"])
    old_answer = thread.active_leaf_id
    question = (await services.conversation.active_branch(thread.id))[0]
    stamp = utc_now()
    newer = Message(new_id(), thread.id, MessageRole.ASSISTANT, "新答案", stamp, stamp, question.id)
    await services.store.add_message(newer)  # the newer version is the active one
    assert (await services.threads.get_thread(thread.id)).active_leaf_id == newer.id
    dialog = await open_search(qtbot, window)
    hits = await typed(qtbot, dialog, "深度学习")
    assert [h.message_id for h in hits] == [old_answer]
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Enter)
    await until(lambda: old_answer in window.timeline.message_ids())
    assert newer.id not in window.timeline.message_ids()
    assert (await services.threads.get_thread(thread.id)).active_leaf_id == old_answer
    widget = window.timeline.message_widget(old_answer)
    assert widget is not None and widget._highlighted


async def test_a_hit_undone_since_it_was_found_opens_its_thread_as_it_is(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    shown = await make_thread(services, "Shown first", ["hello", "hi"])
    thread = await make_thread(services, "Undone", ["Explain attention", "旧答案提到了深度学习"])
    await refresh(window)
    window.history_actions.open_thread(shown.id)
    await until(
        lambda: window.presenter.current_thread is not None and window.presenter.key == shown.id
    )
    dialog = await open_search(qtbot, window)
    hits = await typed(qtbot, dialog, "深度学习")
    assert [h.thread_id for h in hits] == [thread.id]
    await services.conversation.undo_last_turn(thread.id)  # while the result is on screen
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Enter)
    await until(lambda: "trash" in window.notice_bar.text())
    # the thread the composer now sends to is the one on screen
    assert window.presenter.key == thread.id
    await until(
        lambda: (
            window.presenter.current_thread is not None
            and window.presenter.current_thread.id == thread.id
        )
    )
    assert window.timeline.message_ids() == []
    assert window.header.title() == "Undone"


async def test_time_workspace_and_archive_filters(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    research = await services.workspaces.create("Research", color="teal")
    await window.workspace_actions.reload()
    await make_thread(services, "A", ["kiwi today"], at=NOW - timedelta(hours=1))
    await make_thread(services, "B", ["kiwi this month"], at=NOW - timedelta(days=10))
    await make_thread(services, "C", ["kiwi this quarter"], at=NOW - timedelta(days=40))
    await make_thread(services, "D", ["kiwi long ago"], at=NOW - timedelta(days=200))
    hidden = await make_thread(
        services, "E", ["kiwi archived research"], at=NOW, workspace_id=research.id
    )
    await services.history.archive(hidden.id)
    dialog = await open_search(qtbot, window)
    titles = {h.thread_title for h in await typed(qtbot, dialog, "kiwi")}
    assert titles == {"A", "B", "C", "D"}

    async def after(change: Any) -> set[str]:
        shown: list[int] = []
        dialog.results_shown.connect(lambda _q, n: shown.append(n))
        change()
        await until(lambda: bool(shown))
        dialog.results_shown.disconnect()
        return {h.thread_title for h in dialog.hits()}

    assert await after(lambda: dialog.chips["today"].click()) == {"A"}
    assert await after(lambda: dialog.chips["week"].click()) == {"A"}  # Monday
    assert not dialog.chips["today"].isChecked()  # one time filter at a time
    assert await after(lambda: dialog.chips["month"].click()) == {"A", "B"}
    assert await after(lambda: dialog.chips["quarter"].click()) == {"A", "B", "C"}
    assert await after(lambda: dialog.chips["quarter"].click()) == {"A", "B", "C", "D"}
    assert await after(lambda: dialog.archived_box.setChecked(True)) == {"A", "B", "C", "D", "E"}
    index = dialog.workspace_combo.findData(research.id)
    assert await after(lambda: dialog.workspace_combo.setCurrentIndex(index)) == {"E"}
    dialog.reject()


class ScriptedSearch:
    """A search service whose answers take as long as the script says."""

    def __init__(self, delays: dict[str, float]) -> None:
        self.delays = delays
        self.queries: list[str] = []

    async def search(self, query: str, **filters: Any) -> list[SearchHit]:
        self.queries.append(query)
        await asyncio.sleep(self.delays.get(query, 0.0))
        return [
            SearchHit(new_id(), f"Result for {query}", None, query, ((0, len(query)),), 1.0,
                      utc_now(), "w")
        ]  # fmt: skip


async def test_debounce_and_stale_answers_are_dropped(qtbot: Any) -> None:
    fake = ScriptedSearch({"ab": 0.4})
    dialog = SearchDialog(fake, [Workspace("w", "Mira BASE", is_default=True)])  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.query_edit, "abc")  # three quick keys: one search
    await asyncio.sleep(DEBOUNCE_MS / 1000 + 0.15)
    assert fake.queries == ["abc"]
    await until(lambda: dialog.model.query == "abc")
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Backspace)  # "ab": slow
    await until(lambda: fake.queries == ["abc", "ab"])
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_D)  # "abd": fast, runs once "ab" ends
    await until(lambda: dialog.model.query == "abd")
    await asyncio.sleep(0.5)  # the slow answer for "ab" arrives (or is cancelled) too late
    assert dialog.model.query == "abd"
    assert [h.thread_title for h in dialog.hits()] == ["Result for abd"]
    dialog.query_edit.clear()
    await until(lambda: dialog.model.rowCount() == 0)
    assert "Type to search" in dialog.status_label.text()


async def test_one_search_at_a_time_and_the_newest_query_follows(qtbot: Any) -> None:
    """Keys typed while a search runs start none of their own (their SQL
    would queue on the database thread): when it ends, the newest query runs,
    once; a filter changed meanwhile is part of it."""
    fake = ScriptedSearch({"x": 0.5})
    dialog = SearchDialog(fake, [Workspace("w", "Mira BASE", is_default=True)])  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    pause = DEBOUNCE_MS / 1000 + 0.05  # each key's debounce ends while "x" runs
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_X)
    await until(lambda: fake.queries == ["x"])
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Y)
    await asyncio.sleep(pause)
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Z)
    await asyncio.sleep(pause)
    dialog.chips["week"].click()
    await asyncio.sleep(pause)
    assert fake.queries == ["x"]  # still running
    await until(lambda: dialog.model.query == "xyz")
    await asyncio.sleep(pause)
    assert fake.queries == ["x", "xyz"]
    assert [h.thread_title for h in dialog.hits()] == ["Result for xyz"]
    qtbot.keyClick(dialog.query_edit, Qt.Key.Key_Backspace)  # nothing running: at once
    await until(lambda: dialog.model.query == "xy")
    assert fake.queries == ["x", "xyz", "xy"]
    dialog.reject()


async def test_searching_is_said_only_of_a_slow_search(qtbot: Any) -> None:
    """A search answered within SEARCHING_NOTE_MS leaves the status line alone
    until its results (no blink of "Searching…" with every key); a slower one
    says it is searching."""
    fake = ScriptedSearch({"quick": 0.1, "slow": 0.6})
    dialog = SearchDialog(fake, [Workspace("w", "Mira BASE", is_default=True)])  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    seen: list[str] = []
    qtbot.keyClicks(dialog.query_edit, "quick")
    while dialog.model.query != "quick":
        seen.append(dialog.status_label.text())
        await asyncio.sleep(0.01)
    assert fake.queries == ["quick"] and not any("Searching" in text for text in seen), seen
    assert "1 result(s)" in dialog.status_label.text()
    dialog.query_edit.setText("slow")
    await until(lambda: "Searching" in dialog.status_label.text())
    assert dialog.model.query == "quick"  # the last results stay meanwhile
    await until(lambda: dialog.model.query == "slow")
    assert "1 result(s)" in dialog.status_label.text()
    dialog.reject()


async def test_only_the_rows_painted_have_their_snippets_cut(
    qtbot: Any, window: MainWindow, services: Services
) -> None:
    """A search returns 50 hits; the dialog shows a few rows, and only the hits
    it paints are asked for their snippet (``SearchHit.cut_later``)."""
    for n in range(60):
        filler = " ".join(["filler"] * (n % 7 + 20))
        await make_thread(services, f"Thread {n}", ["hello", f"{filler} machine learning {n}"])
    dialog = await open_search(qtbot, window)
    hits = await typed(qtbot, dialog, "learning")
    assert len(hits) == 50
    not_blank(dialog.grab().toImage())  # paints the visible rows
    cut = [n for n, hit in enumerate(hits) if hit.is_cut]
    assert 0 in cut and len(cut) < 20 and 49 not in cut, cut
    dialog.results.scrollToBottom()
    not_blank(dialog.grab().toImage())
    assert hits[49].is_cut
    assert "machine learning" in hits[49].snippet
    dialog.reject()


@pytest.mark.parametrize(
    ("theme", "language"), [("light", "en"), ("dark", "en"), ("light", "zh_CN")]
)
async def test_search_dialog_screenshots(
    qtbot: Any,
    window: MainWindow,
    services: Services,
    tmp_path: Path,
    theme: str,
    language: str,
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    research = await services.workspaces.create("Research", color="purple")
    await make_thread(services, "机器学习入门", ["什么是机器学习？", "机器学习是让计算机从数据中学习规律的方法。"],
                      at=NOW - timedelta(hours=2), workspace_id=research.id)  # fmt: skip
    await make_thread(services, "Study plan", ["Help me plan my week", "A learning plan: 学习 Python every morning, review on Friday."],
                      at=NOW - timedelta(days=2))  # fmt: skip
    await make_thread(services, "Weekly notes", ["notes", "我们今天讨论了人工智能和深度学习的最新进展，以及学习资源。"],
                      at=NOW - timedelta(days=12))  # fmt: skip
    await window.workspace_actions.reload()
    try:
        install_translator(app, language)
        window.timeline.set_dark(apply_theme(app, theme))
        dialog = await open_search(qtbot, window)
        hits = await typed(qtbot, dialog, "学习")
        assert len(hits) >= 3
        dialog.move_current(1)
        await asyncio.sleep(0.1)
        image = dialog.grab().toImage()
        not_blank(image)
        save_shot(image, tmp_path, f"search_{theme}_{language}.png")
        dialog.reject()
    finally:
        install_translator(app, "en")
        apply_theme(app, "light")


def test_highlights_count_in_utf16_after_an_emoji(qapp: Any) -> None:
    """Search gives highlight spans in code points; Qt lays text out in UTF-16
    units, where an emoji is two: the span moves with it."""
    from PySide6.QtGui import QFont, QPalette

    from mira_desktop.ui.search.search_results import mark_format, text_layout, utf16_spans

    text = "ok 😀 apple pie 苹果"
    apple, chinese = (text.index("apple"), text.index("apple") + 5), (text.index("苹果"), len(text))
    assert text[apple[0] : apple[1]] == "apple"
    assert utf16_spans(text, (apple, chinese)) == ((6, 11), (16, 18))
    assert utf16_spans("苹果 apple", ((3, 8),)) == ((3, 8),)  # BMP only: as given
    assert utf16_spans("\udc80😀 apple", ((3, 8),)) == ((4, 9),)  # a lone surrogate too
    layout = text_layout(text, (apple,), QFont(), mark_format(QPalette(), bold=False), 400.0, 2)
    (marked,) = layout.formats()
    assert (marked.start, marked.length) == (6, 5)
    assert text.encode("utf-16-le")[12:22].decode("utf-16-le") == "apple"
    assert layout.lineCount() == 1


@pytest.fixture
def app_stays(qapp: QApplication) -> Iterator[None]:
    """As ``launch`` sets it: the chosen result closes the dialog, the only
    window of these tests, which must not stop the test's loop."""
    quits = qapp.quitOnLastWindowClosed()
    qapp.setQuitOnLastWindowClosed(False)
    yield
    qapp.setQuitOnLastWindowClosed(quits)


def press_enter(dialog: SearchDialog) -> None:
    QApplication.sendEvent(
        dialog.query_edit,
        QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier),
    )


@pytest.mark.usefixtures("app_stays")
async def test_enter_right_after_a_new_query_opens_its_result_never_the_older_rows(
    qtbot: Any, services: Services
) -> None:
    """Results for "alpha" on screen; the reader pastes "beta" and presses Enter
    before its search ran: "Beta plans" opens, never the "Alpha plans" row still
    shown. A query without results opens nothing, and the dialog stays."""
    alpha = await make_thread(services, "Alpha plans", ["alpha release notes", "ok"])
    beta = await make_thread(services, "Beta plans", ["beta rollout", "ok"])
    dialog = SearchDialog(services.search, await services.workspaces.list_workspaces())
    qtbot.addWidget(dialog)
    chosen: list[str] = []
    dialog.result_chosen.connect(lambda thread_id, _message: chosen.append(thread_id))
    dialog.show()
    dialog.query_edit.setText("alpha")
    await until(lambda: dialog.model.query == "alpha")
    assert {h.thread_id for h in dialog.hits()} == {alpha.id}
    dialog.query_edit.setText("zzz-nothing")
    press_enter(dialog)
    assert chosen == []  # not "Alpha plans", still on screen
    await until(lambda: dialog.model.query == "zzz-nothing")
    await asyncio.sleep(0.1)
    assert chosen == [] and dialog.isVisible()
    dialog.query_edit.setText("alpha")
    await until(lambda: dialog.model.query == "alpha")
    dialog.query_edit.setText("beta")
    press_enter(dialog)
    await until(lambda: bool(chosen))
    assert chosen == [beta.id]
    assert not dialog.isVisible()


@pytest.mark.usefixtures("app_stays")
async def test_enter_while_the_search_runs_opens_its_first_hit_and_typing_on_forgets_it(
    qtbot: Any,
) -> None:
    fake = ScriptedSearch({"slow": 0.4, "slower": 0.4, "later": 0.4})
    dialog = SearchDialog(fake, [Workspace("w", "Mira BASE", is_default=True)])  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    chosen: list[str] = []
    dialog.result_chosen.connect(lambda thread_id, _message: chosen.append(thread_id))
    dialog.show()
    dialog.query_edit.setText("first")
    await until(lambda: dialog.model.query == "first")
    dialog.query_edit.setText("slow")
    await until(lambda: fake.queries[-1] == "slow")  # running, "first" still shown
    press_enter(dialog)
    assert chosen == []
    qtbot.keyClicks(dialog.query_edit, "er")  # typing on after Enter: not done yet
    await until(lambda: dialog.model.query == "slower")
    await asyncio.sleep(0.1)
    assert chosen == [] and dialog.isVisible()
    dialog.query_edit.setText("later")
    await until(lambda: fake.queries[-1] == "later")
    press_enter(dialog)
    assert chosen == []
    await until(lambda: bool(chosen))
    assert dialog.model.query == "later" and chosen == [dialog.hits()[0].thread_id]
