"""The composer's keyboard contract: Enter sends, Shift+Enter breaks the line, an IME
preedit owns Enter, Esc stops a running answer, the Send button turns into Stop, and
a disabled composer says why."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QInputMethodEvent
from PySide6.QtWidgets import QApplication

from mira_desktop.ui.composer import ComposerWidget, standard_reason
from mira_desktop.ui.composer.composer_widget import MAX_LINES


def make_composer(qtbot) -> ComposerWidget:
    composer = ComposerWidget()
    qtbot.addWidget(composer)
    composer.resize(600, 200)
    composer.show()
    return composer


def record(signal) -> list:
    seen: list = []
    signal.connect(lambda *args: seen.append(args[0] if args else None))
    return seen


def test_enter_sends_stripped_text_which_stays_until_it_is_taken(qtbot) -> None:
    composer = make_composer(qtbot)
    sent = record(composer.send_requested)
    qtbot.keyClicks(composer.editor, "  hello Mira ")
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return)
    assert sent == ["hello Mira"]
    assert composer.text() == "  hello Mira "  # nobody took it: a refused send keeps it
    composer.take_text("hello Mira")
    assert composer.text() == ""


def test_enter_on_empty_draft_sends_nothing(qtbot) -> None:
    composer = make_composer(qtbot)
    sent = record(composer.send_requested)
    qtbot.keyClicks(composer.editor, "   ")
    qtbot.keyClick(composer.editor, Qt.Key.Key_Enter)
    assert sent == []
    assert not composer.send_button.isEnabled()


def test_shift_enter_inserts_a_new_line(qtbot) -> None:
    composer = make_composer(qtbot)
    sent = record(composer.send_requested)
    qtbot.keyClicks(composer.editor, "line one")
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.editor, "line two")
    assert sent == []
    assert composer.text() == "line one\nline two"
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return)
    assert sent == ["line one\nline two"]


def test_enter_during_ime_preedit_never_sends(qtbot) -> None:
    composer = make_composer(qtbot)
    sent = record(composer.send_requested)
    QApplication.sendEvent(composer.editor, QInputMethodEvent("zhong", []))
    assert composer.editor.is_composing()
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return)
    assert sent == []

    commit = QInputMethodEvent()
    commit.setCommitString("中")
    QApplication.sendEvent(composer.editor, commit)
    assert not composer.editor.is_composing()
    assert composer.text() == "中"
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return)
    assert sent == ["中"]


def test_running_turns_send_into_stop(qtbot) -> None:
    composer = make_composer(qtbot)
    stops = record(composer.stop_requested)
    assert composer.send_button.text() == "Send"
    composer.set_running(True)
    assert composer.send_button.text() == "Stop"
    assert composer.send_button.isEnabled()
    qtbot.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
    assert len(stops) == 1
    composer.set_running(False)
    assert composer.send_button.text() == "Send"


def test_escape_stops_only_while_running(qtbot) -> None:
    composer = make_composer(qtbot)
    stops = record(composer.stop_requested)
    qtbot.keyClick(composer.editor, Qt.Key.Key_Escape)
    assert stops == []
    composer.set_running(True)
    qtbot.keyClick(composer.editor, Qt.Key.Key_Escape)
    assert len(stops) == 1


def test_enter_while_running_still_requests_a_send(qtbot) -> None:
    """PRODUCT.md §5 busy input: the controller stops the answer and sends."""
    composer = make_composer(qtbot)
    composer.set_running(True)
    sent = record(composer.send_requested)
    composer.set_text("actually, shorter please")
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return)
    assert sent == ["actually, shorter please"]


def test_send_button_sends(qtbot) -> None:
    composer = make_composer(qtbot)
    sent = record(composer.send_requested)
    composer.set_text("from the button")
    assert composer.send_button.isEnabled()
    qtbot.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
    assert sent == ["from the button"]


def test_disabled_reason_blocks_input_and_is_visible(qtbot) -> None:
    composer = make_composer(qtbot)
    sent = record(composer.send_requested)
    composer.set_text("draft kept")
    reason = standard_reason("no_provider")
    composer.set_enabled_reason(reason)
    assert reason == "Add a provider in Settings to start chatting"
    assert composer.reason_label.isVisible()
    assert composer.reason_label.text() == reason
    assert not composer.editor.isEnabled()
    assert not composer.send_button.isEnabled()
    qtbot.keyClick(composer.editor, Qt.Key.Key_Return)
    assert sent == []
    composer.set_enabled_reason(None)
    assert not composer.reason_label.isVisible()
    assert composer.editor.isEnabled()
    assert composer.text() == "draft kept"


def test_grows_with_content_up_to_a_limit(qtbot) -> None:
    composer = make_composer(qtbot)
    start = composer.editor.height()
    composer.set_text("\n".join(f"line {i}" for i in range(4)))
    grown = composer.editor.height()
    assert grown > start
    composer.set_text("\n".join(f"line {i}" for i in range(40)))
    capped = composer.editor.height()
    line = composer.editor.fontMetrics().lineSpacing()
    assert grown < capped <= MAX_LINES * line + 40
    composer.clear()
    assert composer.editor.height() == start


def test_placeholder(qtbot) -> None:
    composer = make_composer(qtbot)
    assert composer.editor.placeholderText() == (
        "Message Mira… (Enter to send, Shift+Enter for a new line)"
    )
