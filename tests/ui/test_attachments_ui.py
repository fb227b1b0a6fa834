"""Attachments in the real MainWindow (qasync loop, loopback model server, a real
data folder, real generated documents): the file button, chips, sending files
and images, removing a chip (the held file leaves the media folder), a failed
draft that gives its text and chips back, the non-vision warning, drag and
drop, pasting an image (and cells from a spreadsheet, which stay text), and
the ``@`` search in a workspace's root folder.

The fixtures and helpers here are shared by ``test_roles_ui.py`` and
``test_context_ui.py``."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QWidget

from mira_desktop.bootstrap import Services
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.documents import make_image, make_pdf
from tests.support.loopback import LoopbackServer, openai_json_error, openai_stream
from tests.support.opened_urls import opened_files
from tests.support.qt_async import until

CHAT = "/v1/chat/completions"


async def set_model(services: Services, *, vision: bool = False, window: int | None = None) -> None:
    await services.providers.update_model_settings(
        "Local", "m1", context_window=window, vision=vision, tier=None, compaction_threshold=None
    )


def ready_chips(window: MainWindow) -> list[str]:
    return [c.info.name for c in window.composer.strip.chips() if c.info is not None]


def media_files(data_dir: Path) -> list[Path]:
    root = data_dir / "media"
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def last_user_content(loopback: LoopbackServer) -> Any:
    return loopback.requests[-1].json["messages"][-1]["content"]


def content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")


def image_parts(content: Any) -> list[dict[str, Any]]:
    return [] if isinstance(content, str) else [p for p in content if p["type"] == "image_url"]


@pytest.fixture
def report_pdf(tmp_path: Path) -> Path:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf([["Quarterly report", "Revenue grew to 42 million"]]))
    return path


@pytest.fixture
def chart_png(tmp_path: Path) -> Path:
    return make_image(tmp_path / "chart.png", "PNG")


def pick_files(monkeypatch: pytest.MonkeyPatch, paths: list[Path]) -> None:
    monkeypatch.setattr(
        QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(p) for p in paths], "")
    )


async def attach_by_button(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch, paths: list[Path]
) -> None:
    pick_files(monkeypatch, paths)
    before = len(ready_chips(window))
    qtbot.mouseClick(window.composer.attach_button, Qt.MouseButton.LeftButton)
    await until(lambda: len(ready_chips(window)) == before + len(paths))


async def test_file_button_attaches_a_pdf_and_an_image_and_send_carries_both(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    report_pdf: Path,
    chart_png: Path,
) -> None:
    await set_model(services, vision=True)
    await attach_by_button(window, qtbot, monkeypatch, [report_pdf, chart_png])
    chips = window.composer.strip.chips()
    assert [c.info.name for c in chips if c.info] == ["report.pdf", "chart.png"]
    assert "PDF" in chips[0].detail_label.text() and "640×480" in chips[1].detail_label.text()
    assert not chips[1].icon.pixmap().isNull()  # the thumbnail
    loopback.enqueue(CHAT, openai_stream(["Got both."]))
    window.composer.set_text("What do these show?")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    assert window.composer.strip.chip_keys() == []  # the send took them
    await until(lambda: len(loopback.requests) == 1)
    content = last_user_content(loopback)
    assert "Revenue grew to 42 million" in content_text(content)
    assert "What do these show?" in content_text(content)
    parts = image_parts(content)
    assert len(parts) == 1 and parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    await until(lambda: not window.chat.is_running(window.presenter.key))
    assert window.composer.strip.chip_keys() == [] and window.composer_actions.in_flight() == []
    stored = await services.attachments.attachments([window.timeline.message_ids()[0]])
    assert [a.name for a in next(iter(stored.values()))] == ["report.pdf", "chart.png"]
    # under the short question, the files' line is readable: no emoji (boxes
    # without an emoji font), on one line, not squeezed to the bubble's width
    files = window.timeline.message_widget(window.timeline.message_ids()[0]).findChild(
        QLabel, "messageAttachments"
    )
    assert files is not None and files.isVisible()
    text = files.text()
    assert text.startswith("report.pdf\u00a0(") and ",  chart.png\u00a0(" in text
    assert not any(ord(c) > 0x2FFF for c in text)
    assert files.width() >= files.fontMetrics().horizontalAdvance(text)
    assert files.height() < 2 * files.fontMetrics().lineSpacing()
    # the picture is shown as a square under the question (scaled off the Qt thread)
    question = window.timeline.message_widget(window.timeline.message_ids()[0])
    [thumb] = question.thumbnail_labels()  # the PDF has none
    await until(lambda: thumb.pixmap() is not None and not thumb.pixmap().isNull())
    assert (thumb.pixmap().width(), thumb.pixmap().height()) == (72, 72)
    assert thumb.toolTip() == "chart.png" and thumb.isVisible()
    assert thumb.geometry().bottom() < files.geometry().top()  # above the files' line
    with opened_files() as opened:  # a click opens it in the system's viewer
        qtbot.mouseClick(thumb, Qt.MouseButton.LeftButton)
        await until(lambda: opened != [])
    shown = Path(opened[0].toLocalFile())
    assert shown.name == "chart.png" and shown.read_bytes() == chart_png.read_bytes()


async def test_a_picture_sent_without_words_shows_no_empty_bubble(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    chart_png: Path,
) -> None:
    await set_model(services, vision=True)
    await attach_by_button(window, qtbot, monkeypatch, [chart_png])
    loopback.enqueue(CHAT, openai_stream(["A chart."]))
    await until(window.composer.chips_ready)
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)  # no words, only the picture
    await until(lambda: window.timeline.message_count() == 2)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    question = window.timeline.message_widget(window.timeline.message_ids()[0])
    bubble = question.findChild(QWidget, "userBubble")
    assert bubble is not None and not bubble.isVisible()
    [thumb] = question.thumbnail_labels()
    await until(lambda: thumb.pixmap() is not None and not thumb.pixmap().isNull())
    assert thumb.isVisible() and thumb.geometry().top() < 24  # at the top, not under a gap


async def test_removing_a_chip_deletes_the_held_file(
    window: MainWindow,
    data_dir: Path,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("a note nobody else holds\n", encoding="utf-8")
    await attach_by_button(window, qtbot, monkeypatch, [notes])
    assert len(media_files(data_dir)) == 1
    chip = window.composer.strip.chips()[0]
    qtbot.mouseClick(chip.remove_button, Qt.MouseButton.LeftButton)
    assert window.composer.strip.chip_keys() == []
    await until(lambda: media_files(data_dir) == [])


async def test_a_refused_file_shows_the_reason_under_the_composer(
    window: MainWindow,
    services: Services,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    await services.settings.set("attachments.max_mb", 0.01)
    big = tmp_path / "big.txt"
    big.write_text("x" * 50_000, encoding="utf-8")
    pick_files(monkeypatch, [big])
    qtbot.mouseClick(window.composer.attach_button, Qt.MouseButton.LeftButton)
    error = window.composer.attach_error
    await until(lambda: error.isVisible())
    assert "big.txt" in error.text() and "Traceback" not in error.text()
    assert window.composer.strip.chip_keys() == []


async def test_several_refused_files_each_say_why_until_the_next_batch(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Two refused files dropped with a good one: both reasons are shown (the
    later one used to replace the first); the next batch starts clean, and a
    send clears what is left."""
    await services.settings.set("attachments.max_mb", 0.01)
    big = tmp_path / "big.txt"
    big.write_text("x" * 50_000, encoding="utf-8")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"not a pdf at all")
    notes = tmp_path / "notes.txt"
    notes.write_text("fine\n", encoding="utf-8")
    window.composer_actions.attachments.add_paths([str(big), str(broken), str(notes)])
    error = window.composer.attach_error
    await until(lambda: ready_chips(window) == ["notes.txt"] and error.text().count("\n") == 1)
    lines = error.text().splitlines()
    assert any("big.txt" in line for line in lines) and any("broken.pdf" in line for line in lines)
    window.composer_actions.attachments.add_paths([str(broken)])  # a new batch
    await until(lambda: error.text().count("broken.pdf") == 1 and "big.txt" not in error.text())
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    window.composer.set_text("Read this")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(loopback.requests) == 1)
    assert not error.isVisible()


async def test_a_failed_draft_gives_back_its_text_and_chips(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    report_pdf: Path,
) -> None:
    await attach_by_button(window, qtbot, monkeypatch, [report_pdf])
    held = window.composer_actions.attachments.prepared()
    loopback.enqueue(CHAT, openai_json_error(500, "backend exploded", type="server_error"))
    window.composer.set_text("Summarise the report")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(loopback.requests) == 1)
    await until(lambda: window.composer.text() == "Summarise the report")
    await until(lambda: ready_chips(window) == ["report.pdf"])
    assert window.composer_actions.attachments.prepared()[0].pending_id == held[0].pending_id
    assert "backend exploded" in window.notice_label.text()
    assert window.presenter.is_draft
    # the pending file is still held: sending again works without re-reading it
    loopback.enqueue(CHAT, openai_stream(["Done."]))
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(lambda: len(loopback.requests) == 2)
    assert "Revenue grew to 42 million" in content_text(last_user_content(loopback))


async def test_a_model_without_vision_gets_a_warning_and_cancel_sends_nothing(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    chart_png: Path,
) -> None:
    await attach_by_button(window, qtbot, monkeypatch, [chart_png])
    window.composer.set_text("Describe the chart")
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    bar = window.composer.confirm_bar
    await until(bar.is_asking)
    assert "m1" in bar.label.text() and "chart.png" in bar.label.text()
    qtbot.mouseClick(bar.cancel_button, Qt.MouseButton.LeftButton)
    assert not bar.is_asking()
    await asyncio.sleep(0.2)
    assert loopback.requests == []
    assert window.composer.text() == "Describe the chart" and ready_chips(window) == ["chart.png"]
    # Send anyway: the text goes, the image stays out (with a note in the request)
    loopback.enqueue(CHAT, openai_stream(["I cannot see it."]))
    qtbot.keyClick(window.composer.editor, Qt.Key.Key_Return)
    await until(bar.is_asking)
    qtbot.mouseClick(bar.send_button, Qt.MouseButton.LeftButton)
    await until(lambda: len(loopback.requests) == 1)
    content = last_user_content(loopback)
    assert image_parts(content) == [] and "Describe the chart" in content_text(content)


def drop(target: QWidget, paths: list[Path]) -> None:
    """Drag ``paths`` over ``target`` and drop them, as a file manager would
    (the events do not own their mime data: it lives until they were handled)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    enter = QDragEnterEvent(
        QPoint(12, 12),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    event = QDropEvent(
        QPointF(12, 12),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, event)
    assert event.isAccepted()
    del enter, event, mime


async def test_drag_and_drop_onto_the_composer_and_the_conversation_area(
    window: MainWindow, report_pdf: Path, chart_png: Path
) -> None:
    drop(window.composer.editor.viewport(), [report_pdf])
    await until(lambda: ready_chips(window) == ["report.pdf"])
    assert window.composer.text() == ""  # the path did not become text
    drop(window.stack, [chart_png])
    await until(lambda: ready_chips(window) == ["report.pdf", "chart.png"])


async def test_pasting_an_image_from_the_clipboard_attaches_it_as_png(
    window: MainWindow, data_dir: Path
) -> None:
    image = QImage(120, 80, QImage.Format.Format_RGB32)
    image.fill(QColor("#3a7bd5"))
    QApplication.clipboard().setImage(image)
    window.composer.editor.setFocus()
    window.composer.editor.paste()
    await until(lambda: len(ready_chips(window)) == 1)
    name = ready_chips(window)[0]
    assert name.startswith("pasted-image-") and name.endswith(".png")
    prepared = window.composer_actions.attachments.prepared()[0]
    assert prepared.is_image and prepared.document.image is not None
    assert prepared.document.image.width == 120
    assert window.composer.text() == ""


def spreadsheet_copy(*, plain: bool) -> QMimeData:
    """What a spreadsheet (Excel, LibreOffice Calc) puts on the clipboard for
    copied cells: their text (tab-separated) and HTML, and a picture of them."""
    mime = QMimeData()
    if plain:
        mime.setText("Region\tSales\nNorth\t120\nSouth\t80")
    mime.setHtml(
        "<table><tr><td>Region</td><td>Sales</td></tr>"
        "<tr><td>North</td><td>120</td></tr><tr><td>South</td><td>80</td></tr></table>"
    )
    picture = QImage(200, 60, QImage.Format.Format_RGB32)
    picture.fill(QColor("white"))
    mime.setImageData(picture)
    return mime


async def test_cells_pasted_from_a_spreadsheet_are_text_not_a_picture(
    window: MainWindow, qtbot: Any
) -> None:
    editor = window.composer.editor
    pictures: list[QImage] = []
    window.composer.image_pasted.connect(pictures.append)  # emitted as the paste happens
    editor.setFocus()
    QApplication.clipboard().setMimeData(spreadsheet_copy(plain=True))
    qtbot.keyClick(editor, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert window.composer.text() == "Region\tSales\nNorth\t120\nSouth\t80"
    window.composer.clear()
    QApplication.clipboard().setMimeData(spreadsheet_copy(plain=False))  # HTML, no plain text
    qtbot.keyClick(editor, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    text = window.composer.text()
    assert "Region" in text and "120" in text and "80" in text
    assert pictures == [] and window.composer.strip.chip_keys() == []


@pytest.fixture
async def workspace_root(tmp_path: Path, services: Services) -> Path:
    root = tmp_path / "project"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "report-2024.md").write_text("# Report 2024\nSales rose 7%.\n", "utf-8")
    (root / "quarterly-report.txt").write_text("Q3 report body\n", "utf-8")
    (root / "notes.txt").write_text("unrelated\n", "utf-8")
    (root / ".agent" / "skills" / "summarise-paper").mkdir(parents=True)
    (root / ".agent" / "skills" / "plot-data").mkdir(parents=True)
    return root


async def use_workspace(window: MainWindow, services: Services, root: Path) -> str:
    workspace = await services.workspaces.create("Project", root_dir=str(root))
    window.sidebar.set_workspaces(await services.workspaces.list_workspaces())
    window.sidebar.workspace_list.select_workspace(workspace.id)
    await until(lambda: window.sidebar.workspace_id() == workspace.id)
    return workspace.id


async def test_at_searches_the_workspace_folder_and_enter_attaches(
    window: MainWindow, services: Services, qtbot: Any, workspace_root: Path
) -> None:
    await use_workspace(window, services, workspace_root)
    editor, popup = window.composer.editor, window.composer.mention_popup
    editor.setFocus()
    os.utime(workspace_root / "notes.txt", (2_000_000_000, 2_000_000_000))  # changed last
    qtbot.keyClicks(editor, "Look at @")
    await until(popup.is_open)  # a bare @: the files changed most recently
    await until(lambda: bool(popup.payloads()))
    assert popup.payloads()[0] == "notes.txt"
    assert popup.title.text() == "Recently changed files"
    qtbot.keyClicks(editor, "rep")
    await until(popup.is_open)
    await until(lambda: len(popup.payloads()) == 2)
    assert set(popup.payloads()) == {"docs/report-2024.md", "quarterly-report.txt"}
    first = popup.payloads()[0]
    qtbot.keyClick(editor, Qt.Key.Key_Down)
    qtbot.keyClick(editor, Qt.Key.Key_Up)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert not popup.is_open()
    assert window.composer.text() == "Look at "  # the @keyword went, nothing was sent
    await until(lambda: ready_chips(window) == [Path(first).name])
    # Esc closes, and the popup stays closed for that @ until it changes
    qtbot.keyClicks(editor, "@notes")
    await until(popup.is_open)
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert not popup.is_open()
    await asyncio.sleep(0.3)
    assert not popup.is_open() and window.composer.text() == "Look at @notes"


async def test_at_without_a_workspace_folder_says_how_to_set_one(
    window: MainWindow, qtbot: Any
) -> None:
    editor, popup = window.composer.editor, window.composer.mention_popup
    editor.setFocus()
    qtbot.keyClicks(editor, "@abc")
    await until(popup.is_open)
    assert popup.payloads() == [] and "folder" in popup.message.text()


async def test_files_handed_to_the_open_window_are_attached(
    window: MainWindow, services: Services, tmp_path: Path, qtbot: Any
) -> None:
    """``mira-desktop notes.md`` while the window runs: the second launch
    hands the file over (``files_received``) and it used to be only
    announced ("Received 1 file"), never attached. It is attached now, as if
    dropped — the first launch's own files too."""
    from mira_desktop.ui.launch import _serve_later_launches
    from mira_desktop.ui.single_instance import SingleInstance

    (tmp_path / "first.md").write_text("# given to the first launch\n")
    (tmp_path / "notes.md").write_text("# notes\n")
    instance = SingleInstance(services.data_dir)
    assert instance.acquire()
    try:
        _serve_later_launches(instance, window, [str(tmp_path / "first.md")])
        await until(lambda: ready_chips(window) == ["first.md"])
        instance.files_received.emit([str(tmp_path / "notes.md")])  # what a later launch sends
        await until(lambda: ready_chips(window) == ["first.md", "notes.md"])
    finally:
        instance.release()
