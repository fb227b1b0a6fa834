"""The agent in the real window (PRODUCT.md §11): the header menu's switch on
a welcome draft, a tool card waiting for approval with its diff, Approve and
Deny clicked, the card's Roll back (asked first; refused with the files
named when they changed since), the approval mode, and Chinese wording. The
model is the loopback server; the files are real."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import MODE_KEY, ToolStatus, answer_cards
from mira_desktop.services.agent import knowledge, previews, subagents, web_search
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.tool_cards import ToolCardView
from mira_desktop.ui.window.main_window import MainWindow
from tests.services.kb_support import farm_kb
from tests.support.loopback import LoopbackServer, openai_stream, openai_tool_stream
from tests.support.qt_async import until
from tests.ui.history_support import until_async

CHAT = "/v1/chat/completions"
EDIT = {"path": "app.py", "old_string": "hello", "new_string": "bonjour"}


@pytest.fixture
async def project(tmp_path: Path, services: Services) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    base = await services.workspaces.default_workspace()
    await services.workspaces.set_root_dir(base.id, str(root))
    return root


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Qt's question and warning boxes, answered Yes and recorded."""
    asked: list[str] = []

    def question(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    def warning(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
    monkeypatch.setattr(QMessageBox, "warning", staticmethod(warning))
    return asked


def shown_status(window: MainWindow, message_id: str) -> ToolStatus | None:
    """The first card's status as its view shows it (None: no card yet)."""
    widget = window.timeline.message_widget(message_id)
    if not isinstance(widget, AssistantMessageWidget) or widget.tool_cards is None:
        return None
    views = widget.tool_cards.views
    card = views[0].card if views else None
    return card.status if card is not None else None


def card_view(window: MainWindow, message_id: str, index: int = 0) -> ToolCardView:
    widget = window.timeline.message_widget(message_id)
    assert isinstance(widget, AssistantMessageWidget) and widget.tool_cards is not None
    return widget.tool_cards.views[index]


async def ask_agent(window: MainWindow, loopback: LoopbackServer, qtbot: Any, text: str) -> str:
    """Send ``text`` with the agent switched on; the id of the answer shown."""
    action = window.agent_actions.agent_action
    if not action.isChecked():
        action.trigger()
    window.composer.set_text(text)
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(window.timeline.message_ids()) >= 2)
    return window.timeline.message_ids()[-1]


async def test_a_change_waits_for_approval_with_its_diff_then_runs_and_rolls_back(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    project: Path,
    questions: list[str],
    qtbot: Any,
) -> None:
    assert window.agent_actions.agent_action in window.header.menu.actions()
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)], "I will edit app.py."))
    loopback.enqueue(CHAT, openai_stream(["Changed the greeting."]))
    answer_id = await ask_agent(window, loopback, qtbot, "Greet in French")
    await until(lambda: shown_status(window, answer_id) is ToolStatus.WAITING)
    view = card_view(window, answer_id)
    assert view.approve.isVisible() and view.deny.isVisible() and not view.rollback.isVisible()
    assert view.details.isVisible() and "bonjour" in view.details.text()  # the diff, open
    assert "Waiting for your approval" in view.state.text()
    assert (project / "app.py").read_text() == "print('hello')\n"  # not before approval

    qtbot.mouseClick(view.approve, Qt.MouseButton.LeftButton)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert (project / "app.py").read_text() == "print('bonjour')\n"
    thread = await services.threads.get_thread(window.presenter.key)
    assert thread.agent_enabled
    view = card_view(window, answer_id)
    assert view.card is not None and view.card.status is ToolStatus.DONE
    assert "Approved" in view.state.text() and view.rollback.isVisible()
    assert not view.approve.isVisible()
    assert "Changed the greeting." in window.timeline.message_text(answer_id)

    # someone edits the file: the rollback is refused, naming it, and writes nothing
    (project / "app.py").write_text("print('mine')\n")
    qtbot.mouseClick(view.rollback, Qt.MouseButton.LeftButton)
    await until(lambda: len(questions) == 2)
    assert "app.py" in questions[0] and "app.py" in questions[1]
    assert "changed since" in questions[1]
    assert (project / "app.py").read_text() == "print('mine')\n"

    (project / "app.py").write_text("print('bonjour')\n")
    qtbot.mouseClick(card_view(window, answer_id).rollback, Qt.MouseButton.LeftButton)
    await until(lambda: (project / "app.py").read_text() == "print('hello')\n")
    await until(lambda: "Rolled back" in card_view(window, answer_id).state.text())
    assert not card_view(window, answer_id).rollback.isVisible()
    saved = await services.store.get_message(answer_id)
    assert answer_cards(saved.data)[0].rolled_back


async def test_deny_leaves_the_file_and_the_card_says_so_in_chinese(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    project: Path,
    qtbot: Any,
    qapp: Any,
) -> None:
    install_translator(qapp, "zh_CN")
    try:
        loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))
        loopback.enqueue(CHAT, openai_stream(["好的，我没有修改。"]))
        answer_id = await ask_agent(window, loopback, qtbot, "改成法语")
        await until(lambda: window.timeline.message_widget(answer_id) is not None)
        # shown_status: None until the card is there (card_view asserts it is)
        await until(lambda: shown_status(window, answer_id) is ToolStatus.WAITING)
        view = card_view(window, answer_id)
        assert view.approve.text() == "批准" and view.deny.text() == "拒绝"
        assert view.title.text() == "编辑 app.py（1 处替换）"
        qtbot.mouseClick(view.deny, Qt.MouseButton.LeftButton)
        await until(lambda: not window.chat.is_running(window.presenter.key))
        assert (project / "app.py").read_text() == "print('hello')\n"
        view = card_view(window, answer_id)
        assert view.card is not None and view.card.status is ToolStatus.DENIED
        assert view.state.text() == "已拒绝"
    finally:
        install_translator(qapp, "en")


async def test_the_approval_mode_is_a_setting_in_the_header_menu(
    window: MainWindow, services: Services, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    ask = window.agent_actions.ask_action
    await until(lambda: ask.isChecked())
    ask.trigger()  # auto: the agent runs its calls without asking
    await until_async(lambda: _mode_is(services, "auto"))
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    answer_id = await ask_agent(window, loopback, qtbot, "Greet in French")
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert (project / "app.py").read_text() == "print('bonjour')\n"
    view = card_view(window, answer_id)
    assert view.card is not None and view.card.approval is None
    assert view.state.text() == "Done"


async def _mode_is(services: Services, value: str) -> bool:
    return bool(await services.store.get_setting(MODE_KEY) == value)


def test_every_summary_the_cards_translate_is_still_written_by_the_previews(qapp: Any) -> None:
    literals = {
        node.value
        for module in (previews, web_search, subagents, knowledge)
        for node in ast.walk(ast.parse(Path(module.__file__).read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    templates = ToolCardView().templates()
    assert templates and set(templates) <= literals


async def test_the_progress_panel_shows_the_steps_of_the_branch_on_screen(
    window: MainWindow, services: Services, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    steps = [
        {"title": "Read app.py", "status": "completed"},
        {"title": "Change the greeting", "status": "in_progress"},
        {"title": "Run it", "status": "pending"},
    ]
    loopback.enqueue(CHAT, openai_tool_stream([("p1", "update_progress", {"steps": steps})]))
    loopback.enqueue(CHAT, openai_stream(["On it."]))
    await ask_agent(window, loopback, qtbot, "Greet in French")
    await until(lambda: not window.chat.is_running(window.presenter.key))
    panel = window.agent_actions.progress_panel
    assert panel is not None and panel.isVisible()
    assert panel.header.text() == "Progress · 1 of 3"
    assert [(row.text(), row.checkState()) for row in panel.rows] == [
        ("Read app.py", Qt.CheckState.Checked),
        ("Change the greeting", Qt.CheckState.PartiallyChecked),
        ("Run it", Qt.CheckState.Unchecked),
    ]
    assert panel.geometry().bottom() < window.composer.geometry().top()  # above the composer
    qtbot.mouseClick(panel.header, Qt.MouseButton.LeftButton)  # folded: the header stays
    assert panel.isVisible() and panel.rows == []
    thread_id = window.presenter.key
    window.presenter.new_chat()
    await until(lambda: not panel.isVisible())
    window.presenter.open_thread(thread_id)
    await until(lambda: panel.isVisible())


async def test_plan_mode_answers_a_proposed_plan_that_is_implemented_with_one_click(
    window: MainWindow, services: Services, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    plan_action = window.agent_actions.plan_action
    assert plan_action in window.header.menu.actions() and not plan_action.isChecked()
    plan_action.trigger()  # on the welcome draft: plan mode alone brings the agent
    assert window.presenter.draft_plan
    loopback.enqueue(CHAT, openai_tool_stream([("r1", "read", {"path": "app.py"})]))
    loopback.enqueue(CHAT, openai_stream(["1. Change `hello` to `bonjour` in app.py."]))
    window.composer.set_text("How would you greet in French?")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(window.timeline.message_ids()) >= 2)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    plan_id = window.timeline.message_ids()[-1]
    widget = window.timeline.message_widget(plan_id)
    assert isinstance(widget, AssistantMessageWidget) and widget.plan_actions is not None
    assert (
        widget.plan_actions.isVisible() and widget.plan_actions.implement.text() == "Implement plan"
    )
    thread = await services.threads.get_thread(window.presenter.key)
    assert thread.mode == "plan" and plan_action.isChecked()
    assert "write" not in {t["function"]["name"] for t in loopback.requests[0].json["tools"]}

    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))
    loopback.enqueue(CHAT, openai_stream(["Implemented."]))
    qtbot.mouseClick(widget.plan_actions.implement, Qt.MouseButton.LeftButton)
    await until(lambda: len(window.timeline.message_ids()) >= 4)
    assert window.timeline.message_text(window.timeline.message_ids()[-2]) == "Implement the plan."
    await until(
        lambda: shown_status(window, window.timeline.message_ids()[-1]) is ToolStatus.WAITING
    )
    assert (await services.threads.get_thread(window.presenter.key)).mode == "chat"
    card_view(window, window.timeline.message_ids()[-1]).approve.click()
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert (project / "app.py").read_text() == "print('bonjour')\n"
    await until(lambda: not plan_action.isChecked())  # the header follows the thread


def waiting_line(window: MainWindow, message_id: str) -> str:
    """The status line under an answer without words ("" when none shows)."""
    widget = window.timeline.message_widget(message_id)
    assert isinstance(widget, AssistantMessageWidget)
    box = widget.status_box
    return box.status.text() if box is not None and box.isVisibleTo(widget) else ""


async def test_an_answer_waiting_for_approval_says_so_not_that_it_waits_for_the_model(
    window: MainWindow, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    loopback.enqueue(CHAT, openai_tool_stream([("e1", "edit", EDIT)]))  # no words before it
    loopback.enqueue(CHAT, openai_stream(["Left as it is."]))
    answer_id = await ask_agent(window, loopback, qtbot, "Greet in French")
    await until(lambda: shown_status(window, answer_id) is ToolStatus.WAITING)
    assert waiting_line(window, answer_id) == "Waiting for your approval"
    card_view(window, answer_id).deny.click()
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert waiting_line(window, answer_id) == ""


def plan_buttons_shown(window: MainWindow, message_id: str) -> bool:
    widget = window.timeline.message_widget(message_id)
    assert isinstance(widget, AssistantMessageWidget)
    return widget.plan_actions is not None and widget.plan_actions.isVisibleTo(widget)


async def test_only_the_newest_plan_keeps_its_buttons(
    window: MainWindow, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    window.agent_actions.plan_action.trigger()
    loopback.enqueue(CHAT, openai_stream(["1. Change the greeting."]))
    window.composer.set_text("How would you greet in French?")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(window.timeline.message_ids()) == 2)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    first = window.timeline.message_ids()[-1]
    await until(lambda: plan_buttons_shown(window, first))

    loopback.enqueue(CHAT, openai_stream(["1. Change the greeting.\n2. Add a test."]))
    window.composer.set_text("Add a test too")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(window.timeline.message_ids()) == 4)
    assert not plan_buttons_shown(window, first)  # the thread answers: no buttons
    await until(lambda: not window.chat.is_running(window.presenter.key))
    second = window.timeline.message_ids()[-1]
    await until(lambda: plan_buttons_shown(window, second))
    assert not plan_buttons_shown(window, first)

    requests = len(loopback.requests)
    window.timeline.plan_requested.emit(first, "implement")  # a click that beat the update
    assert "only the latest plan" in window.notice_bar.text()
    assert len(loopback.requests) == requests and len(window.timeline.message_ids()) == 4

    loopback.enqueue(CHAT, openai_stream(["Implemented."]))
    widget = window.timeline.message_widget(second)
    assert isinstance(widget, AssistantMessageWidget) and widget.plan_actions is not None
    qtbot.mouseClick(widget.plan_actions.implement, Qt.MouseButton.LeftButton)
    await until(lambda: len(window.timeline.message_ids()) == 6)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert not plan_buttons_shown(window, second)  # implemented: the answer came after it


async def test_questions_lock_the_composer_until_they_are_answered(
    window: MainWindow, services: Services, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    asked = {
        "questions": [
            {"question": "Which greeting?", "options": ["bonjour", "salut"]},
            {"question": "Anything else?"},
        ]
    }
    loopback.enqueue(CHAT, openai_tool_stream([("q1", "ask_user_question", asked)]))
    loopback.enqueue(CHAT, openai_stream(["Salut it is."]))
    answer_id = await ask_agent(window, loopback, qtbot, "Greet in French")
    await until(lambda: shown_status(window, answer_id) is ToolStatus.WAITING)
    view = card_view(window, answer_id)
    form = view.form
    assert form is not None and form.isVisible()
    assert not view.approve.isVisible()  # questions want answers, not an approval
    assert view.state.text() == "Waiting for your answer"
    assert waiting_line(window, answer_id) == "Waiting for your answer"
    assert not window.composer.editor.isEnabled()
    assert window.composer.reason_label.text() == "Answer the questions above to continue"
    assert [form.fields[0].itemText(i) for i in range(form.fields[0].count())] == [
        "bonjour",
        "salut",
    ]
    form.fields[0].setCurrentIndex(1)
    qtbot.keyClicks(form.fields[1].lineEdit(), "Keep it short")
    qtbot.mouseClick(form.send, Qt.MouseButton.LeftButton)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    sent = loopback.requests[-1].json["messages"][-1]["content"]
    assert "→ salut" in sent and "→ Keep it short" in sent
    assert window.composer.editor.isEnabled()
    view = card_view(window, answer_id)
    assert view.state.text() == "Answered" and (view.form is None or not view.form.isVisible())


async def test_a_commands_output_grows_in_its_card_while_it_runs(
    window: MainWindow, services: Services, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    await services.store.set_setting(MODE_KEY, "auto")
    command = "echo first; sleep 1.5; echo second"
    loopback.enqueue(CHAT, openai_tool_stream([("b1", "bash", {"command": command})]))
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    answer_id = await ask_agent(window, loopback, qtbot, "Run it")

    def running_with_output() -> bool:
        if shown_status(window, answer_id) is not ToolStatus.RUNNING:
            return False
        card = card_view(window, answer_id).card
        return card is not None and card.output.startswith("first")

    await until(running_with_output)
    view = card_view(window, answer_id)
    assert view.state.text() == "Running…" and view.toggle.isVisible()
    qtbot.mouseClick(view.toggle, Qt.MouseButton.LeftButton)
    assert view.details.isVisible() and "first" in view.details.text()
    assert "second" not in view.details.text()
    await until(lambda: not window.chat.is_running(window.presenter.key), timeout=10)
    view = card_view(window, answer_id)
    assert view.state.text() == "Done"


async def test_the_words_said_before_a_call_stand_above_its_card(
    window: MainWindow, services: Services, loopback: LoopbackServer, project: Path, qtbot: Any
) -> None:
    await services.store.set_setting(MODE_KEY, "auto")
    loopback.enqueue(CHAT, openai_tool_stream([("l1", "ls", {})], "Let me look around."))
    loopback.enqueue(
        CHAT, openai_tool_stream([("r1", "read", {"path": "app.py"})], "Now the code.")
    )
    loopback.enqueue(CHAT, openai_stream(["It prints **hello**."]))
    answer_id = await ask_agent(window, loopback, qtbot, "What does it print?")
    await until(lambda: not window.chat.is_running(window.presenter.key))
    widget = window.timeline.message_widget(answer_id)
    assert isinstance(widget, AssistantMessageWidget) and widget.tool_cards is not None
    box = widget.tool_cards
    assert [view.toPlainText() for view in box.word_views] == [
        "Let me look around.",
        "Now the code.",
    ]
    first, second = box.word_views
    ls_card, read_card = box.views
    assert first.y() < ls_card.y() < second.y() < read_card.y()  # words, call, words, call
    assert widget.body.toPlainText() == "It prints hello."
    assert read_card.y() < widget.body.y()
    # Copy still copies the whole answer
    assert window.timeline.message_text(answer_id).startswith("Let me look around.")


async def test_the_agents_search_of_the_bound_base_shows_its_sources_in_chinese(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    project: Path,
    tmp_path: Path,
    qtbot: Any,
    qapp: Any,
) -> None:
    kb_id = await farm_kb(services, tmp_path)
    await window.kb_actions.reload_bases()
    window.header.kb_picker.choose(kb_id)  # in the welcome draft, with the agent on
    install_translator(qapp, "zh_CN")
    try:
        search = {"query": "apple trees"}
        loopback.enqueue(CHAT, openai_tool_stream([("k1", "search_knowledge_base", search)]))
        loopback.enqueue(CHAT, openai_stream(["果园里有 40 棵苹果树 [1]。"]))
        answer_id = await ask_agent(window, loopback, qtbot, "有多少棵苹果树？")
        await until(lambda: not window.chat.is_running(window.presenter.key))
        assert (await services.threads.get_thread(window.presenter.key)).kb_id == kb_id
        await until(lambda: shown_status(window, answer_id) is ToolStatus.DONE)
        assert card_view(window, answer_id).title.text() == "在知识库中搜索 apple trees"
        widget = window.timeline.message_widget(answer_id)
        assert isinstance(widget, AssistantMessageWidget)
        await until(lambda: widget.sources is not None and widget.sources.isVisible())
        sources = widget.sources
        assert sources is not None
        assert sources.path_label.text() == "智能体检索了知识库“Farm”"
        first = sources.entry(1)
        assert first is not None and first.isVisible()
        assert "orchard.pdf" in first.title.text()
        assert 'href="cite:1"' in widget.body.document().toHtml()  # the citation links
    finally:
        install_translator(qapp, "en")


async def test_the_agent_switch_names_the_folder_only_where_there_is_one(
    window: MainWindow, services: Services, tmp_path: Path
) -> None:
    """Mira BASE usually has no folder: the switch then says the agent
    answers without one (it searches the knowledge base and the web)."""
    action = window.agent_actions.agent_action
    window.header.menu.aboutToShow.emit()
    await until(lambda: action.text() == "Answer as an agent (no project folder)")
    base = await services.workspaces.default_workspace()
    await services.workspaces.set_root_dir(base.id, str(tmp_path))
    window.header.menu.aboutToShow.emit()
    await until(lambda: action.text() == "Work in the project folder")
