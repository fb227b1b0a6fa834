"""The model context in the real MainWindow: the ``/`` command menu and
``/compact`` (the "Context compressed" card, "Nothing to compact yet."),
automatic compaction during a send, the context summary dialog, the context
meter ring and its popup, and the anchor rail beside the timeline."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QWidget

from mira_desktop.bootstrap import Services
from mira_desktop.core.models import MessageRole
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.timeline.system_card import SystemCardWidget
from mira_desktop.ui.window import context_actions
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.documents import make_image, make_pdf
from tests.support.loopback import LoopbackServer, openai_stream
from tests.ui.test_attachments_ui import (
    CHAT,
    attach_by_button,
    set_model,
    until,
    use_workspace,
    workspace_root,
)

__all__ = ["workspace_root"]

SUMMARY = "The user asked about Q3 revenue (42 million, DOI 10.1000/xyz) and chart colours."


async def turn(window: MainWindow, loopback: LoopbackServer, text: str, answer: str = "ok") -> None:
    count = len(loopback.requests)
    loopback.enqueue(CHAT, openai_stream([answer]))
    window.composer.set_text(text)
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: len(loopback.requests) > count)  # more with an automatic compaction
    await until(lambda: not window.chat.is_running(window.presenter.key))
    await until(lambda: not window.presenter.is_draft)


def cards(window: MainWindow) -> list[str]:
    timeline = window.timeline
    return [
        i
        for i in timeline.message_ids()
        if (m := timeline.message(i)) is not None and m.role is MessageRole.SYSTEM_CARD
    ]


async def test_slash_opens_the_command_menu_and_compact_adds_the_card(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    workspace_root: Path,
) -> None:
    await use_workspace(window, services, workspace_root)
    await turn(window, loopback, "What was Q3 revenue?", "42 million, see DOI 10.1000/xyz.")
    await turn(window, loopback, "And the chart colours?", "Blue and red.")
    editor, popup = window.composer.editor, window.composer.command_popup
    editor.setFocus()
    qtbot.keyClicks(editor, "/")
    await until(lambda: window.tasks.pending() == 0)  # the skills were looked for
    assert popup.is_open() and popup.payloads() == ["compact"]  # agent off: none offered
    window.composer.clear()
    agent = window.agent_actions.agent_action
    agent.trigger()  # skills are the agent's: offered with it on
    await until(lambda: window.presenter.agent_on())
    qtbot.keyClicks(editor, "/")
    await until(lambda: popup.is_open() and len(popup.payloads()) == 3)
    assert popup.payloads() == ["compact", "skill:plot-data", "skill:summarise-paper"]
    qtbot.keyClicks(editor, "sum")
    await until(lambda: popup.payloads() == ["skill:summarise-paper"])
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert window.composer.text() == "/skill:summarise-paper " and not popup.is_open()
    agent.trigger()  # off again: a typed skill is refused, and stays typed
    await until(lambda: not window.presenter.agent_on())
    qtbot.keyClicks(editor, "the Q3 report")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert "Skills are used by the agent" in window.notice_bar.text()
    assert window.composer.text() == "/skill:summarise-paper the Q3 report"
    assert len(loopback.requests) == 2  # nothing sent raw to the model
    window.composer.clear()
    qtbot.keyClicks(editor, "/comp")
    await until(lambda: popup.payloads() == ["compact"])
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert window.composer.text() == "/compact "
    qtbot.keyClicks(editor, "keep the numbers")
    loopback.enqueue(CHAT, openai_stream([SUMMARY]))
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    await until(lambda: len(cards(window)) == 1)
    assert len(loopback.requests) == 3
    assert "keep the numbers" in json.dumps(loopback.requests[-1].json)
    card_id = cards(window)[0]
    assert window.timeline.message_ids()[-1] == card_id
    assert window.timeline.message_text(card_id) == SUMMARY
    widget = window.timeline.message_widget(card_id)
    assert isinstance(widget, SystemCardWidget)
    assert widget.title() == "Context compressed" and not widget.is_open()
    assert not widget.body.isVisible()
    qtbot.mouseClick(widget._toggle, Qt.MouseButton.LeftButton)
    await until(lambda: widget.is_open() and widget.body.isVisible())
    assert "DOI 10.1000/xyz" in widget.body.toPlainText()
    assert "Context compressed" in window.notice_bar.text()
    # nothing new since the card: the second /compact says so, without a model call
    window.composer.set_text("/compact")
    window.composer.send_requested.emit("/compact")
    await until(lambda: window.notice_bar.text() == "Nothing to compact yet.")
    assert len(loopback.requests) == 3 and len(cards(window)) == 1
    # the next turn replays the checkpoint, not the compacted messages
    await turn(window, loopback, "Next question")
    sent = json.dumps(loopback.requests[-1].json, ensure_ascii=False)
    assert "Blue and red." not in sent and "Q3 revenue (42 million" in sent
    # the card keeps its place after a reload
    window.presenter.new_chat()
    window.presenter.open_thread(window.thread_model.thread_at(0).id)
    await until(lambda: len(cards(window)) == 1)


async def test_compact_in_a_new_chat_says_nothing_to_compact(
    window: MainWindow, loopback: LoopbackServer
) -> None:
    window.composer.set_text("/compact")
    window.composer.send_requested.emit("/compact")
    await until(lambda: window.notice_bar.text() == "Nothing to compact yet.")
    assert loopback.requests == [] and window.presenter.is_draft


async def test_a_transient_notice_goes_away_and_a_newer_one_stays(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(context_actions, "NOTICE_MS", 50)  # not 6 s in a test
    window.composer.send_requested.emit("/compact")  # nothing to compact in a new chat
    await until(lambda: window.notice_bar.text() == "Nothing to compact yet.")
    await until(lambda: window.notice_bar.text() == "" and window.notice_bar.isHidden())
    window.context_actions.notify("first")
    window.context_actions.notify("second", transient=False)  # before the first's timer
    await asyncio.sleep(0.3)
    assert window.notice_bar.text() == "second" and not window.notice_bar.isHidden()


async def test_automatic_compaction_shows_a_notice_and_the_card(
    window: MainWindow, services: Services, loopback: LoopbackServer
) -> None:
    await services.providers.update_model_settings(
        "Local", "m1", context_window=600, vision=False, tier=None, compaction_threshold=0.5
    )
    long_answer = " ".join(f"fact{n}" for n in range(220))
    await turn(window, loopback, "Tell me everything", long_answer)
    notices: list[str] = []
    window.presenter.notice.connect(notices.append)
    loopback.set_default(CHAT, openai_stream([SUMMARY]))
    await turn(window, loopback, "And now?", SUMMARY)
    await until(lambda: len(cards(window)) == 1)
    assert "Compressing context…" in notices
    assert any("Context compressed" in n for n in notices)
    ids = window.timeline.message_ids()
    assert ids.index(cards(window)[0]) == len(ids) - 1  # after the answer that needed it


async def test_the_summary_dialog_generates_saves_and_clears(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    actions = window.context_actions
    assert not actions.summary_action.isEnabled()  # a new chat has no summary
    await turn(window, loopback, "Plan a trip to Kyoto", "Day 1: temples.")
    key = window.presenter.key
    assert actions.summary_action.isEnabled()
    actions.summary_action.trigger()
    dialog = actions.summary_dialog
    assert dialog is not None
    await until(lambda: dialog.isVisible() and not dialog.is_busy())
    assert "No summary yet" in dialog.info.text()
    loopback.enqueue(CHAT, openai_stream(["Trip to Kyoto; day 1 temples."]))
    qtbot.mouseClick(dialog.generate_button, Qt.MouseButton.LeftButton)
    assert dialog.is_busy() and not dialog.generate_button.isEnabled()
    await until(lambda: not dialog.is_busy())
    assert dialog.editor.toPlainText() == "Trip to Kyoto; day 1 temples."
    assert "up to date" in dialog.info.text()
    dialog.editor.setPlainText("Kyoto trip, written by hand.")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    await until(lambda: not dialog.is_busy() and dialog.status.text() == "Saved.")
    saved = await services.summaries.get(key)
    assert saved is not None and saved.text == "Kyoto trip, written by hand."
    await turn(window, loopback, "Day 2?", "Gardens.")
    assert "Kyoto trip, written by hand." in json.dumps(loopback.requests[-1].json)
    dialog.load()
    await until(lambda: not dialog.is_busy() and "2 newer" in dialog.info.text())
    qtbot.mouseClick(dialog.clear_button, Qt.MouseButton.LeftButton)
    await until(lambda: not dialog.is_busy() and dialog.status.text() == "Cleared.")
    assert await services.summaries.get(key) is None and dialog.editor.toPlainText() == ""


async def test_the_meter_shows_the_window_share_and_its_popup_matches_the_service(
    window: MainWindow, services: Services, loopback: LoopbackServer, qtbot: Any
) -> None:
    meter = window.composer.meter
    await until(lambda: meter.meter() is not None)
    assert meter.meter().context_window is None  # m1 has no window yet: a grey ring
    assert meter.colour() == QColor(
        meter.palette().color(meter.palette().ColorRole.PlaceholderText)
    )
    await set_model(services, window=8192)
    await turn(window, loopback, "Count my tokens, please", "Counted.")
    window.composer.set_text("a draft that is being typed right now")
    key = window.presenter.key
    expected = await services.meter.measure(key, "a draft that is being typed right now")
    await until(lambda: meter.meter() == expected)
    assert expected.context_window == 8192 and expected.share is not None
    qtbot.mouseClick(meter, Qt.MouseButton.LeftButton)
    popup = meter.popup
    await until(popup.isVisible)
    figures = popup.figures()
    assert figures["current"].startswith(f"{expected.current_tokens:,}".replace(",", ""))
    assert figures["window"].replace(",", "") == "8192"
    assert figures["remaining"].replace(",", "") == str(expected.remaining)
    assert figures["peak"].replace(",", "") == str(expected.peak_tokens)
    popup.hide()
    # typing updates the ring after a pause
    window.composer.set_text("a draft that is being typed right now, and it keeps on growing")
    await until(
        lambda: meter.meter() is not None and meter.meter().current_tokens > expected.current_tokens
    )


async def test_the_anchor_rail_marks_each_question_and_jumps_to_it(
    window: MainWindow, loopback: LoopbackServer, qtbot: Any
) -> None:
    long = "\n\n".join(f"Paragraph {n} of a long answer that fills the screen." for n in range(30))
    for n in range(4):
        await turn(window, loopback, f"Question number {n}", long)
    rail = window.anchor_rail
    timeline = window.timeline
    users = [i for i in timeline.message_ids() if timeline.message(i).role is MessageRole.USER]
    assert rail.mark_ids() == users and rail.is_active()
    await until(lambda: rail.current_id() == users[-1])  # the bottom is shown
    qtbot.mouseClick(rail, Qt.MouseButton.LeftButton, pos=rail.mark_position(0))
    await until(lambda: abs((timeline.message_view_y(users[0]) or 0) - 8) <= 2)
    await until(lambda: rail.current_id() == users[0])
    assert rail.preview(1) == "Question number 1"
    qtbot.mouseClick(rail, Qt.MouseButton.LeftButton, pos=rail.mark_position(2))
    await until(lambda: abs((timeline.message_view_y(users[2]) or 0) - 8) <= 2)
    await asyncio.sleep(0)


def _not_blank(path: Path) -> None:
    image = QImage(str(path))
    assert not image.isNull() and image.width() >= 200
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 5) for y in range(0, image.height(), 3)
    }
    assert len(colours) > 12, f"{path.name} looks blank"


@pytest.mark.parametrize(
    ("theme", "language"), [("light", "en"), ("dark", "en"), ("light", "zh_CN")]
)
async def test_screenshots_of_the_composer_popups_card_and_role_dialog(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    workspace_root: Path,
    tmp_path: Path,
    theme: str,
    language: str,
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    folder = Path(os.environ.get("MIRA_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []

    def shoot(name: str, widget: QWidget | None = None) -> None:
        path = folder / f"{name}-{theme}-{language}.png"
        assert (widget or window).grab().save(str(path))
        shots.append(path)

    try:
        install_translator(app, language)
        window.timeline.set_dark(apply_theme(app, theme))
        await use_workspace(window, services, workspace_root)
        await set_model(services, window=8192)
        role = await services.roles.create(
            "Patient tutor", description="Explains step by step", persona="A calm teacher."
        )
        await window.context_actions.reload_roles()
        window.header.role_picker.choose(role.id)
        await turn(window, loopback, "What was Q3 revenue? 三季度收入是多少？", "42 million.")
        await turn(window, loopback, "And the chart colours?", "Blue and red.")
        loopback.enqueue(
            CHAT, openai_stream([SUMMARY + "\n\n- revenue: 42 million\n- DOI 10.1000/xyz"])
        )
        window.composer.send_requested.emit("/compact keep the numbers")
        await until(lambda: len(cards(window)) == 1)
        card = window.timeline.message_widget(cards(window)[0])
        assert isinstance(card, SystemCardWidget)
        qtbot.mouseClick(card._toggle, Qt.MouseButton.LeftButton)
        pdf = workspace_root / "docs" / "report.pdf"
        pdf.write_bytes(make_pdf([["Quarterly report", "Revenue grew to 42 million"]]))
        png = make_image(workspace_root / "chart.png", "PNG")
        await attach_by_button(window, qtbot, monkeypatch, [pdf, png])
        window.composer.set_text("Compare the report with the chart, please.")
        await until(lambda: window.composer.meter.meter() is not None)
        await asyncio.sleep(0.4)
        shoot("composer-card")
        window.composer.clear()
        window.composer.editor.setFocus()
        qtbot.keyClicks(window.composer.editor, "@rep")
        await until(lambda: len(window.composer.mention_popup.payloads()) >= 2)
        await asyncio.sleep(0.1)
        shoot("mention-popup")
        window.composer.clear()
        window.agent_actions.agent_action.trigger()  # the skills are offered to the agent
        await until(window.presenter.agent_on)
        qtbot.keyClicks(window.composer.editor, "/")
        await until(lambda: len(window.composer.command_popup.payloads()) == 3)
        await asyncio.sleep(0.1)
        shoot("command-popup")
        window.composer.clear()
        qtbot.mouseClick(window.composer.meter, Qt.MouseButton.LeftButton)
        await until(window.composer.meter.popup.isVisible)
        shoot("meter-popup", window.composer.meter.popup)
        window.composer.meter.popup.hide()
        window.context_actions.open_roles()
        dialog = window.context_actions.role_dialog
        assert dialog is not None
        await until(lambda: dialog.isVisible() and dialog.loads > 0)
        await asyncio.sleep(0.1)
        shoot("role-dialog", dialog)
        dialog.close()
        for path in shots:
            _not_blank(path)
        if language == "zh_CN":
            assert window.composer.confirm_bar.send_button.text() == "仍然发送"
            assert card.title() == "上下文已压缩"
    finally:
        install_translator(app, "en")
        window.timeline.set_dark(apply_theme(app, "light"))
