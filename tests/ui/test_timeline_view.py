"""TimelineView: virtualisation, scrolling, streaming, status, copy."""

from __future__ import annotations

import sys
import time

import pytest
from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Slot
from PySide6.QtGui import QColor, QDesktopServices, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QPushButton,
    QTextBrowser,
    QToolButton,
    QWidget,
)

from mira_desktop.core.models import Message, MessageRole, MessageStatus, Usage
from mira_desktop.ui.timeline import TimelineView
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.timeline.stream_buffer import StreamBuffer
from tests.ui.timeline_support import shown_timeline

NOW = "2026-01-01T10:00:00Z"


def _msg(mid: str, role: MessageRole = MessageRole.ASSISTANT, text: str = "", **kw) -> Message:
    return Message(id=mid, thread_id="t1", role=role, text=text, created_at=NOW, **kw)


def _thread(count: int) -> list[Message]:
    out = []
    for i in range(count):
        role = MessageRole.USER if i % 2 == 0 else MessageRole.ASSISTANT
        text = f"Message {i}. " + "lorem ipsum dolor sit amet " * (1 + i % 9)
        if i % 10 == 3:
            text += f"\n\n```python\nprint({i})\n```\n"
        out.append(_msg(f"m{i:05d}", role, text, model="m" if i % 2 else None))
    return out


@pytest.fixture
def view(qtbot):
    return shown_timeline(qtbot)


def _live_ids(view: TimelineView) -> list[str]:
    return [mid for mid in view.message_ids() if view.message_widget(mid) is not None]


def test_five_thousand_messages_open_at_bottom_with_few_widgets(view, qtbot):
    messages = _thread(5000)
    started = time.perf_counter()
    view.set_messages(messages)
    elapsed = time.perf_counter() - started
    qtbot.wait(60)  # let the overscan prefetch run
    assert view.message_count() == 5000
    assert elapsed < 1.0, elapsed  # generous; the budget is a benchmark's business
    assert 0 < view.live_widget_count() < 60
    assert view.message_widget(messages[-1].id) is not None
    assert view.message_widget(messages[0].id) is None
    assert view.is_pinned_to_bottom()


def test_first_paint_comes_before_the_overscan_rows(view, qtbot):
    """Opening a thread builds the rows on screen, paints, and only then the
    rows above it that a scroll would reach next (the first frame pays for
    what is seen)."""
    counts_at_paint: list[int] = []

    class PaintSpy(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                counts_at_paint.append(view.live_widget_count())
            return False

    canvas = view.findChild(QObject, "timelineCanvas")
    spy = PaintSpy()
    canvas.installEventFilter(spy)
    view.set_messages(_thread(5000))
    on_screen = view.live_widget_count()
    qtbot.waitUntil(lambda: bool(counts_at_paint), timeout=2000)
    qtbot.waitUntil(lambda: view.live_widget_count() > on_screen, timeout=2000)
    canvas.removeEventFilter(spy)
    assert counts_at_paint[0] == on_screen < view.live_widget_count()


def test_a_row_is_not_cut_after_a_font_change_and_a_narrower_width(qtbot):
    """The text's size hint follows its current width. With a fixed vertical
    policy the row's layout capped the text at a hint it had cached: after a
    font change (a theme applied) a narrower row, measured taller by the
    timeline, centred a cut-off text in it."""
    from mira_desktop.ui.timeline.message_state import MessageState, ViewOptions
    from mira_desktop.ui.timeline.row_widgets import create_row_widget

    canvas = QWidget()
    qtbot.addWidget(canvas)
    canvas.resize(1000, 800)
    canvas.show()
    text = " ".join(f"word{i}" for i in range(150))
    state = MessageState.from_message(_msg("a1", text=text, model="m"))
    row = create_row_widget(state, ViewOptions(clock=time.monotonic), canvas)
    row.apply()
    row.show()
    row.setGeometry(0, 0, 830, row.measure(830))
    qtbot.wait(30)
    bigger = QFont(canvas.font())
    bigger.setPointSizeF(bigger.pointSizeF() + 2)
    canvas.setFont(bigger)
    qtbot.wait(30)
    body = row.findChild(QTextBrowser)
    top = row.layout().contentsMargins().top()
    for width in (815, 700, 600):
        row.setGeometry(0, 0, width, row.measure(width))
        qtbot.wait(20)
        assert body.height() >= body.document().size().height(), width
        assert body.y() == top, width


def test_scroll_to_middle_materialises_the_right_rows(view, qtbot):
    messages = _thread(5000)
    view.set_messages(messages)
    view.scroll_to_message("m02500", highlight=True)
    qtbot.wait(20)
    live = _live_ids(view)
    assert "m02500" in live
    assert all(2400 < int(mid[1:]) < 2600 for mid in live)
    assert view.live_widget_count() < 60
    widget = view.message_widget("m02500")
    assert widget is not None and 0 <= widget.y() < 40
    assert not view.is_pinned_to_bottom()


def test_keyboard_scrolling_moves_the_window(view, qtbot):
    view.set_messages(_thread(400))
    before = set(_live_ids(view))
    for _ in range(10):
        qtbot.keyClick(view, Qt.Key.Key_PageUp)
    assert not view.is_pinned_to_bottom()
    assert set(_live_ids(view)) != before
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.is_pinned_to_bottom()
    assert view.message_widget("m00399") is not None


def test_streaming_is_coalesced(view, qtbot):
    view.set_messages(_thread(10))
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING, model="qwen"))
    flushes = []
    view.findChild(StreamBuffer).flushed.connect(flushes.append)
    tokens = [f"tok{i} " for i in range(300)]
    started = time.perf_counter()
    for i, token in enumerate(tokens):
        view.append_text("a1", token)
        if i % 3 == 0:
            qtbot.wait(1)
    duration_ms = (time.perf_counter() - started) * 1000
    expected = "".join(tokens)
    assert view.message_text("a1") == expected  # includes what is still buffered
    widget = view.message_widget("a1")
    assert isinstance(widget, AssistantMessageWidget)
    qtbot.waitUntil(lambda: widget.body.toPlainText().strip() == expected.strip(), timeout=2000)
    assert 1 <= len(flushes) <= duration_ms / 40 + 3
    assert view.is_pinned_to_bottom()


def test_scrolled_up_reader_is_not_yanked_while_streaming(view, qtbot):
    view.set_messages(_thread(200))
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING))
    for _ in range(5):
        qtbot.keyClick(view, Qt.Key.Key_PageUp)
    anchor = _live_ids(view)[len(_live_ids(view)) // 2]
    top_before = view.message_widget(anchor).y()
    for i in range(50):
        view.append_text("a1", f"line {i}\n\n")
    view.flush_stream()
    assert not view.is_pinned_to_bottom()
    assert view.message_widget(anchor).y() == top_before


def test_upsert_replaces_and_shows_usage(view, qtbot):
    view.set_messages([_msg("u1", MessageRole.USER, "hi")])
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING, model="qwen3"))
    view.append_text("a1", "Hello")
    view.flush_stream()
    usage = Usage(
        prompt_tokens=12, completion_tokens=34, reasoning_tokens=5, reasoning_estimated=True
    )
    view.upsert_message(_msg("a1", text="Hello there", model="qwen3", usage=usage))
    assert view.message_ids() == ["u1", "a1"]
    assert view.message_text("a1") == "Hello there"
    meta = view.message_widget("a1").findChild(object, "messageMeta").text()
    assert "qwen3" in meta and "↑12" in meta and "↓34" in meta and "reasoning ≈ 5" in meta
    exact = Usage(prompt_tokens=1, completion_tokens=2, reasoning_tokens=7)
    view.upsert_message(_msg("a1", text="Hello there", usage=exact))
    meta = view.message_widget("a1").findChild(object, "messageMeta").text()
    assert "reasoning 7" in meta and "≈" not in meta


def test_stopped_shows_status_and_retry(view, qtbot):
    view.set_messages([_msg("a1", text="partial", status=MessageStatus.STOPPED)])
    widget = view.message_widget("a1")
    assert widget.findChild(object, "messageStatus").text() == "Stopped"
    retry = widget.findChild(QPushButton, "retryButton")
    assert retry.isVisible() and not retry.isEnabled()  # actions off: not a saved idle thread
    view.set_actions_enabled(True)
    assert retry.isEnabled()
    with qtbot.waitSignal(view.retry_requested) as blocker:
        qtbot.mouseClick(retry, Qt.MouseButton.LeftButton)
    assert blocker.args == ["a1"]


def test_failed_shows_error_hint_and_retry(view, qtbot):
    error = {"message": "Connection refused", "hint": "Start Ollama, then retry."}
    view.set_actions_enabled(True)
    view.set_messages([_msg("a1", status=MessageStatus.FAILED, error=error)])
    widget = view.message_widget("a1")
    assert widget.findChild(object, "messageError").text() == "Connection refused"
    assert widget.findChild(object, "messageHint").text() == "Start Ollama, then retry."
    with qtbot.waitSignal(view.retry_requested) as blocker:
        widget.findChild(QPushButton, "retryButton").click()
    assert blocker.args == ["a1"]


def test_copy_message_and_code(view, qtbot):
    text = "Run this:\n\n```bash\necho hi\n```\n"
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), _msg("a1", text=text)])
    widget = view.message_widget("a1")
    with qtbot.waitSignal(view.copy_requested) as blocker:
        widget.findChild(QToolButton, "copyMessageButton").click()
    assert blocker.args == ["a1"]
    assert QGuiApplication.clipboard().text() == text
    widget.body.anchorClicked.emit(QUrl("copy-code:0"))
    assert QGuiApplication.clipboard().text() == "echo hi"
    view.message_widget("u1").findChild(QToolButton, "copyMessageButton").click()
    assert QGuiApplication.clipboard().text() == "question?"


class _UrlCatcher(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    @Slot(QUrl)
    def catch(self, url: QUrl) -> None:
        self.urls.append(url.toString())


def test_links_open_through_desktop_services(view, qtbot):
    catcher = _UrlCatcher()
    QDesktopServices.setUrlHandler("https", catcher, "catch")
    try:
        view.set_messages([_msg("a1", text="See [docs](https://example.com/docs).")])
        body = view.message_widget("a1").body
        body.anchorClicked.emit(QUrl("https://example.com/docs"))
        body.anchorClicked.emit(QUrl("javascript:alert(1)"))
    finally:
        QDesktopServices.unsetUrlHandler("https")
    assert catcher.urls == ["https://example.com/docs"]


def test_chinese_text_renders(view, qtbot):
    view.set_messages(
        [
            _msg("u1", MessageRole.USER, "请用中文回答。"),
            _msg("a1", text="## 标题\n\n你好，**世界**！"),
        ]
    )
    body = view.message_widget("a1").body
    assert "你好，世界！" in body.toPlainText()
    assert body.height() > body.fontMetrics().height()
    assert view.message_widget("u1").text_view.toPlainText() == "请用中文回答。"


def test_clear_and_user_text_is_not_markdown(view, qtbot):
    view.set_messages([_msg("u1", MessageRole.USER, "**not bold** <b>x</b>")])
    assert view.message_widget("u1").text_view.toPlainText() == "**not bold** <b>x</b>"
    view.clear()
    assert view.message_count() == 0 and view.live_widget_count() == 0
    assert view.message_text("u1") == ""


def test_streaming_keeps_the_reference_count_of_none_balanced(view, qtbot):
    """PySide6-Essentials 6.12.0 on CPython 3.11 drops a reference to ``None`` on
    every call of a void method; a streaming answer then kills the process with
    "none_dealloc" within seconds. (CPython >= 3.12 makes ``None`` immortal.)"""
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING))
    view.append_text("a1", "warm up ")
    view.flush_stream()
    before = sys.getrefcount(None)
    for _ in range(50):
        view.append_text("a1", "word " * 5)
        view.flush_stream()
    lost = before - sys.getrefcount(None)
    assert lost < 100, (
        f"{lost} references to None lost while streaming: this PySide6 build crashes "
        "the app; pin PySide6-Essentials<6.12 or run on Python>=3.12"
    )


def test_a_streaming_row_behind_the_stream_does_not_rewind_the_text(view, qtbot):
    view.upsert_message(_msg("a1", status=MessageStatus.STREAMING))
    view.append_text("a1", "Hello brave new world")
    view.flush_stream()
    # a coalesced database write of the same row arrives late, with less text
    view.upsert_message(_msg("a1", text="Hello brave", status=MessageStatus.STREAMING))
    assert view.message_text("a1") == "Hello brave new world"
    view.upsert_message(_msg("a1", text="Hello brave new world!", model="m"))
    assert view.message_text("a1") == "Hello brave new world!"


def test_resizing_remeasures_so_nothing_is_cut(view, qtbot):
    long_text = "A fairly long paragraph that will wrap onto several lines. " * 12
    view.set_messages([_msg("u1", MessageRole.USER, long_text), _msg("a1", text=long_text)])
    for width in (420, 1000, 300):
        view.resize(width, 600)
        widget = view.message_widget("a1")
        body = widget.body
        assert body.height() >= body.document().size().height() - 1
        assert widget.height() >= body.geometry().bottom()


def test_language_change_rebuilds_the_widgets(view, qtbot):
    view.set_messages([_msg("a1", text="x", status=MessageStatus.STOPPED)])
    before = view.message_widget("a1")
    QApplication.sendEvent(view, QEvent(QEvent.Type.LanguageChange))
    after = view.message_widget("a1")
    assert after is not None and after is not before
    assert after.findChild(QPushButton, "retryButton").text() == "Retry"


def test_dark_switch_changes_code_highlighting(view, qtbot):
    view.set_dark(False)  # whatever palette the tests before left
    view.set_messages([_msg("a1", text="```python\ndef f():\n    pass\n```")])
    light_html = view.message_widget("a1").body.toHtml()
    view.set_dark(True)
    assert view.message_widget("a1").body.toHtml() != light_html


def test_sending_a_message_while_scrolled_up_returns_to_the_bottom(view, qtbot):
    view.set_messages(_thread(100))
    qtbot.keyClick(view, Qt.Key.Key_Home)
    assert not view.is_pinned_to_bottom()
    view.upsert_message(_msg("a-new", text="an assistant row does not move the view"))
    assert not view.is_pinned_to_bottom()
    view.upsert_message(_msg("u-new", MessageRole.USER, "my new question"))
    assert view.is_pinned_to_bottom()
    assert view.message_widget("u-new") is not None


def test_theme_switch_recolours_links(view, qtbot):
    view.set_messages([_msg("a1", text="see [x](https://example.com)")])
    body = view.message_widget("a1").body
    app = QApplication.instance()
    original = app.palette()
    palette = QPalette(original)
    palette.setColor(QPalette.ColorRole.Link, QColor("#ff00aa"))
    try:
        app.setPalette(palette)  # what the window's theme switch does
        qtbot.waitUntil(lambda: "#ff00aa" in view.message_widget("a1").body.toHtml().lower())
    finally:
        app.setPalette(original)
    assert view.message_widget("a1").body is body  # recoloured in place, not rebuilt


def test_user_message_lists_its_attached_files(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = TimelineView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    files = [
        {"name": "report.pdf", "mime": "application/pdf", "size": 123_000, "kind": "file"},
        {"name": "chart.png", "mime": "image/png", "size": 2_500_000, "kind": "image"},
    ]
    message = Message(
        id="u1",
        thread_id="t",
        role=MessageRole.USER,
        text="Look at these",
        created_at="2026-11-30T08:00:00.000Z",
        data={"attachments": files},
    )
    view.set_messages([message])
    qtbot.waitUntil(lambda: view.message_widget("u1") is not None)
    widget = view.message_widget("u1")
    label = widget.findChild(QLabel, "messageAttachments")
    assert label is not None and label.isVisible()
    nbsp = "\u00a0"  # inside a file's entry: the line wraps between files only
    assert label.text() == f"report.pdf{nbsp}(120{nbsp}KB),  chart.png{nbsp}(2.4{nbsp}MB)"
    assert widget.height() >= widget.heightForWidth(widget.width()) - 1


def test_height_estimates_count_lines_and_the_row_chrome():
    """The guess every row gets before a widget measures it (5,000 of them
    when a long thread opens): lines from line ends and characters, plus
    the chrome of its kind."""
    from mira_desktop.ui.timeline.message_state import (
        MessageState,
        estimate_height,
        estimate_heights,
    )

    line, char, width = 20, 8.0, 524  # usable: 500 for an answer, ~384 for a question
    text = "x" * 125 + "\n" + "y"  # two line ends' worth + 1,008 px of characters
    cases = [
        (_msg("a", text=text), 60 + (2 + 2) * line),
        (_msg("u", MessageRole.USER, text=text), 44 + (2 + 2) * line),
        (_msg("t", text=text, thinking="hmm"), 60 + line + 12 + 4 * line),
        (_msg("f", text=text, status=MessageStatus.FAILED), 60 + 2 * line + 4 * line),
        (_msg("n", text=text, data={"note": "escalated"}), 60 + line + 4 * line),
        (_msg("x", text=text, data={"note": 3}), 60 + 4 * line),  # not a note
        (_msg("c", MessageRole.SYSTEM_CARD, text=text * 9), 2 * line + 36),  # closed card
    ]
    states = [MessageState.from_message(m) for m, _ in cases]
    estimate_heights(states, width, line, char)
    assert [s.height for s in states] == [h for _, h in cases]
    opened = MessageState.from_message(cases[-1][0])
    opened.card_open = True
    assert estimate_height(opened, width, line, char) > 2 * line + 36


def test_the_meta_line_wraps_instead_of_being_cut_in_a_narrow_window(qtbot) -> None:
    view = shown_timeline(qtbot, (380, 500))
    usage = Usage(prompt_tokens=12_345, completion_tokens=4_567, reasoning_tokens=890)
    answer = _msg("a1", text="Answer", model="llama-3.1-8b-instruct-q4", usage=usage)
    view.set_messages([_msg("u1", MessageRole.USER, "question?"), answer])
    widget = view.message_widget("a1")
    widget.findChild(QToolButton, "copyMessageButton")  # its buttons beside it
    meta = widget.findChild(QLabel, "messageMeta")
    assert meta is not None and "llama-3.1-8b-instruct-q4" in meta.text()
    one_line = meta.fontMetrics().horizontalAdvance(meta.text())
    assert one_line > meta.width()  # it does not fit on one line here…
    # …so it wraps onto lines that are all shown (it used to be cut under the buttons)
    assert meta.wordWrap() and meta.height() >= meta.heightForWidth(meta.width()) > 0
