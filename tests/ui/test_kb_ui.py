"""Knowledge bases in the real MainWindow on a qasync loop, against the loopback
model server and real generated documents (PRODUCT.md §3 path 2, §13): bind a
base from the header's picker, ask, see the Sources list (document, place,
snippet), click a citation to highlight its source, open a source; the
refusal and the fallback note on the message; the manager — create, add a
file with progress to completion, Cancel mid-way on a folder (the base stays
consistent), delete (threads keep their history); and screenshots."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QTextCursor
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QTreeWidget, QWidget
from pytestqt.qtbot import QtBot

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.errors import NotFoundError
from mira_desktop.core.knowledge import IngestProgress, IngestReport, IngestStatus
from mira_desktop.services.chat import SendRequest
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.kb.kb_manager import KnowledgeBaseDialog
from mira_desktop.ui.kb.sources_widget import SourcesWidget
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.timeline.assistant_message import AssistantMessageWidget
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.documents import make_image, make_pdf
from tests.support.loopback import LoopbackServer, openai_stream
from tests.support.qt_async import until
from tests.support.window_close import close_window

CHAT = "/v1/chat/completions"
ANSWER = "The cellar holds **300 jars** of plum jam [1]. The pears are listed too [2]."


@pytest.fixture
async def services(data_dir: Path, loopback: LoopbackServer) -> AsyncIterator[Services]:
    built = build_services(data_dir)
    await built.providers.add_provider("Local", "openai", loopback.url + "/v1")
    await built.store.save_listed_models("Local", ["m1", "nomic-embed-text"])
    await built.settings.set("chat.last_model", {"provider": "Local", "model": "m1"})
    await built.settings.set("chat.auto_title", False)
    yield built
    await built.aclose()


def write_report(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "harvest-report.pdf"
    path.write_bytes(
        make_pdf(
            [
                ["Harvest notes for the autumn."],
                ["The cellar holds 300 jars of plum jam."],
                ["Pears: 12 trees by the river, picked in September."],
            ]
        )
    )
    return path


async def farm(services: Services, tmp_path: Path, name: str = "Farm") -> str:
    kb = await services.knowledge.create(name)
    await services.knowledge.add(kb.id, [write_report(tmp_path / "docs")])
    return kb.id


async def ask(window: MainWindow, loopback: LoopbackServer, text: str, reply: str) -> str:
    """Send ``text`` from the composer; the id of the finished answer."""
    loopback.enqueue(CHAT, openai_stream([reply]))
    window.composer.set_text(text)
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: window.timeline.message_count() >= 2)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    return window.timeline.message_ids()[-1]


def answer_widget(window: MainWindow, message_id: str) -> AssistantMessageWidget:
    window.timeline.scroll_to_message(message_id)
    widget = window.timeline.message_widget(message_id)
    assert isinstance(widget, AssistantMessageWidget)
    return widget


def sources_of(widget: AssistantMessageWidget) -> SourcesWidget:
    assert widget.sources is not None and widget.sources.isVisible()
    return widget.sources


def click_citation(widget: AssistantMessageWidget, marker: str) -> None:
    """Click the ``marker`` text (e.g. ``[2]``) in the answer like a user."""
    body = widget.body
    cursor = body.document().find(marker)
    assert not cursor.isNull(), marker
    cursor.setPosition(cursor.selectionStart() + 1, QTextCursor.MoveMode.MoveAnchor)
    point = body.cursorRect(cursor).center() + QPoint(2, 0)
    assert body.anchorAt(point).startswith("cite:")
    QtBot.mouseClick(body.viewport(), Qt.MouseButton.LeftButton, pos=point)


async def test_bind_from_the_header_ask_and_follow_the_sources(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kb_id = await farm(services, tmp_path)
    await window.kb_actions.reload_bases()
    picker = window.header.kb_picker
    assert [b.kb.name for b in picker.bases()] == ["Farm"]
    picker.choose(kb_id)  # in the welcome draft
    assert window.presenter.draft_kb_id == kb_id and picker.text() == "KB: Farm"
    answer_id = await ask(window, loopback, "How many jars of plum jam?", ANSWER)
    thread_id = window.presenter.key
    assert (await services.threads.get_thread(thread_id)).kb_id == kb_id
    assert "300 jars of plum jam" in loopback.requests[-1].json["messages"][-1]["content"]
    widget = answer_widget(window, answer_id)
    sources = sources_of(widget)
    first = sources.entry(1)
    assert first is not None and first.isVisible()
    assert "harvest-report.pdf" in first.title.text() and "page 2" in first.title.text()
    assert "<b>jars</b>" in first.snippet.text()
    assert "Farm" in sources.path_label.text()
    # a citation in the answer is a link that highlights its source
    assert 'href="cite:1"' in widget.body.document().toHtml()
    click_citation(widget, "[1]")
    await until(lambda: first.highlighted)
    assert not any(e.highlighted for e in sources.entries() if e is not first)
    # the source's title opens the document at its page
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    first.title.linkActivated.emit("source:1")
    assert opened[0].toLocalFile().endswith("harvest-report.pdf")
    assert opened[0].fragment() == "page=2"
    # the picker follows the saved thread, and unbinds it
    assert picker.current_kb_id() == kb_id
    picker.choose(None)

    async def unbound() -> bool:
        return (await services.threads.get_thread(thread_id)).kb_id is None

    for _ in range(200):
        if await unbound():
            break
        await asyncio.sleep(0.02)
    assert await unbound()


async def test_the_refusal_and_the_fallback_note_are_shown_on_the_message(
    window: MainWindow, services: Services, loopback: LoopbackServer, tmp_path: Path
) -> None:
    empty = await services.knowledge.create("Empty shelf")
    await window.kb_actions.reload_bases()
    window.header.kb_picker.choose(empty.id)
    window.composer.set_text("Anything here?")
    window.composer.send_requested.emit(window.composer.text())
    await until(lambda: window.timeline.message_count() == 2)
    await until(lambda: not window.chat.is_running(window.presenter.key))
    answer_id = window.timeline.message_ids()[-1]
    assert window.timeline.message_text(answer_id) == "This knowledge base has no documents yet."
    assert loopback.requests == []
    refusal = sources_of(answer_widget(window, answer_id))
    assert "no documents yet" in refusal.path_label.text()
    assert "Empty shelf" in refusal.path_label.text()
    assert refusal.entries() == []
    # an image without a question: normal chat, with the note
    kb_id = await farm(services, tmp_path)
    image = await services.attachments.prepare(make_image(tmp_path / "p.png", "PNG"))
    loopback.enqueue(CHAT, openai_stream(["A red picture."]))
    request = SendRequest("", provider="Local", model="m1", kb_id=kb_id, attachments=(image,))
    final = [e async for e in services.chat.send(request)][-1]
    assert final.thread_id
    shown = window.timeline.message_ids()
    window.presenter.open_thread(final.thread_id)
    await until(lambda: window.timeline.message_ids() not in ([], shown))
    note = sources_of(answer_widget(window, window.timeline.message_ids()[-1]))
    assert "was not searched" in note.path_label.text()


async def open_manager(window: MainWindow) -> KnowledgeBaseDialog:
    window.kb_actions.manage_action.trigger()
    dialog = window.kb_actions.dialog
    assert dialog is not None
    await until(lambda: dialog.isVisible() and dialog.loads > 0)
    return dialog


def job_results(dialog: KnowledgeBaseDialog) -> list[Any]:
    """What the manager's next jobs finish with (filled as they end)."""
    results: list[Any] = []
    dialog.documents.job_finished.connect(results.append)
    return results


async def finished(results: list[Any], count: int = 1) -> Any:
    await until(lambda: len(results) >= count, timeout=20)
    return results[count - 1]


async def test_manager_creates_a_base_and_adds_a_file_with_progress(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog = await open_manager(window)
    dialog.name_edit.setText("Recipes")
    dialog.create_button.click()
    await until(lambda: dialog.base_names() == ["Recipes"])
    assert dialog.documents.add_files_button.isEnabled()
    await until(lambda: window.header.kb_picker.bases() != [])
    report = write_report(tmp_path / "in")
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(report)], ""))
    steps: list[IngestProgress] = []
    dialog.documents.progress_changed.connect(steps.append)
    results = job_results(dialog)
    dialog.documents.add_files_button.click()
    assert dialog.documents.progress.isVisible() and dialog.documents.cancel_button.isVisible()
    result = await finished(results)
    assert isinstance(result, IngestReport) and result.added == 1
    assert steps[-1].done == steps[-1].total == 1 and steps[-1].status is IngestStatus.INDEXED
    assert not dialog.documents.progress.isVisible()
    await until(lambda: dialog.documents.document_names() == ["harvest-report.pdf"])
    await until(lambda: (dialog.selected() or [None]) and dialog.selected().documents == 1)  # type: ignore[union-attr]
    item = dialog.base_list.topLevelItem(0)
    assert item.text(1) == "1" and int(item.text(2)) >= 2 and item.text(3)
    assert "added" in dialog.status.text()
    # rename through the list's editor
    item.setText(0, "Kitchen recipes")
    await until(lambda: dialog.base_names() == ["Kitchen recipes"])


async def test_a_base_chosen_takes_files_before_its_document_list_has_loaded(
    window: MainWindow, services: Services
) -> None:
    """Add files/folder wait for a chosen base only, not for its list: they were
    enabled by the list's load, so a click in between did nothing at all."""
    dialog = await open_manager(window)
    assert dialog.base_names() == [] and not dialog.documents.add_files_button.isEnabled()
    kb = await services.knowledge.create("Fresh")
    loads = dialog.documents.loads
    dialog.documents.set_kb(kb.id, kb.name)
    assert dialog.documents.loads == loads  # the list is still on its way
    assert dialog.documents.add_files_button.isEnabled()
    assert dialog.documents.add_folder_button.isEnabled()
    await until(lambda: dialog.documents.loads > loads)


async def test_cancel_mid_way_on_a_folder_leaves_a_consistent_base(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(6):
        (folder / f"note-{n}.md").write_text(f"# Note {n}\n\nThe word zephyr{n} is here.\n")
    kb = await services.knowledge.create("Notes")
    dialog = await open_manager(window)
    dialog.select(kb.id)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))

    def cancel_after_first(step: IngestProgress) -> None:
        if step.status is IngestStatus.INDEXED and step.done == 2:
            dialog.documents.cancel_button.click()

    dialog.documents.progress_changed.connect(cancel_after_first)
    results = job_results(dialog)
    dialog.documents.add_folder_button.click()
    result = await finished(results)
    assert isinstance(result, IngestReport) and result.cancelled and result.added == 2
    assert "Cancelled" in dialog.status.text()
    documents = await services.knowledge.documents(kb.id)
    assert len(documents) == 2 and all(d.chunks >= 1 for d in documents)
    stats = await services.knowledge.stats(kb.id)
    assert (stats.documents, stats.chunks) == (2, sum(d.chunks for d in documents))
    hits = await services.knowledge.search(kb.id, "zephyr0")
    assert hits.hits and hits.hits[0].chunk.document_name == "note-0.md"
    # the rest comes with a re-index (the folder is remembered)
    dialog.documents.reindex_button.click()
    result = await finished(results, 2)
    assert result.added == 4 and len(await services.knowledge.documents(kb.id)) == 6


async def test_deleting_a_base_keeps_its_threads(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kb_id = await farm(services, tmp_path)
    await window.kb_actions.reload_bases()
    window.header.kb_picker.choose(kb_id)
    await ask(window, loopback, "How many jars?", "300 [1].")
    thread_id = window.presenter.key
    asked: list[str] = []

    def yes(_parent: QWidget, _title: str, text: str, *_args: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", staticmethod(yes))
    dialog = await open_manager(window)
    assert dialog.selected() is not None and dialog.selected().kb.id == kb_id  # type: ignore[union-attr]
    dialog.delete_button.click()
    await until(lambda: dialog.base_names() == [])
    assert "keep their" in asked[0] and "history" in asked[0]
    assert "1 thread" in dialog.status.text()
    thread = await services.threads.get_thread(thread_id)
    assert thread.kb_id is None
    assert len(await services.threads.get_active_messages(thread_id)) == 2
    await until(lambda: window.header.kb_picker.current_kb_id() is None)
    await until(lambda: window.header.kb_picker.bases() == [])


async def test_a_new_chat_whose_chosen_base_was_deleted_sends_without_it(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kb_id = await farm(services, tmp_path)
    await window.kb_actions.reload_bases()
    assert window.presenter.is_draft
    window.header.kb_picker.choose(kb_id)
    assert window.kb_actions.current_kb_id() == kb_id
    monkeypatch.setattr(
        QMessageBox, "question", staticmethod(lambda *_a: QMessageBox.StandardButton.Yes)
    )
    dialog = await open_manager(window)
    dialog.delete_button.click()
    await until(lambda: dialog.base_names() == [])
    dialog.close()
    await until(lambda: window.kb_actions.current_kb_id() is None)
    answer = await ask(window, loopback, "Hello?", "Hi there.")
    assert window.timeline.message_text(answer) == "Hi there."
    thread = await services.threads.get_thread(window.presenter.key)
    assert thread.kb_id is None


async def test_a_deleted_base_named_by_a_send_is_said_in_words(
    services: Services, tmp_path: Path
) -> None:
    kb_id = await farm(services, tmp_path)
    await services.knowledge.delete(kb_id)
    with pytest.raises(NotFoundError, match="chosen for this chat no longer exists"):
        await services.rag.prepare(kb_id, "How many jars?")


def keep_shot(image: QImage, tmp_path: Path, name: str) -> None:
    assert not image.isNull() and image.width() > 300
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 17) for y in range(0, image.height(), 13)
    }
    assert len(colours) > 8, "the screenshot looks blank"
    assert image.save(str(tmp_path / name))
    keep = os.environ.get("MIRA_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        image.save(str(Path(keep) / name))


@pytest.mark.parametrize(
    ("theme", "language"), [("light", "en"), ("dark", "en"), ("light", "zh_CN")]
)
async def test_screenshots_of_a_cited_answer_and_the_manager(
    window: MainWindow,
    services: Services,
    loopback: LoopbackServer,
    tmp_path: Path,
    theme: str,
    language: str,
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    kb_id = await farm(services, tmp_path)
    await window.kb_actions.reload_bases()
    try:
        install_translator(app, language)
        window.timeline.set_dark(apply_theme(app, theme))
        window.header.kb_picker.choose(kb_id)
        question = "How many jars of plum jam, and how many pear trees?"
        answer_id = await ask(window, loopback, question, ANSWER)
        widget = answer_widget(window, answer_id)
        click_citation(widget, "[2]")
        await asyncio.sleep(0.1)
        keep_shot(window.grab().toImage(), tmp_path, f"kb_answer_{theme}_{language}.png")
        dialog = await open_manager(window)
        await until(lambda: dialog.documents.loads > 0 and dialog.documents.document_names() != [])
        await asyncio.sleep(0.05)
        keep_shot(dialog.grab().toImage(), tmp_path, f"kb_manager_{theme}_{language}.png")
        dialog.close()
    finally:
        install_translator(app, "en")
        apply_theme(app, "light")


async def test_the_picker_shows_a_bound_thread_at_start_up_without_the_kb_service(
    qtbot: Any, data_dir: Path, tmp_path: Path
) -> None:
    """Start-up lists the bases from their store (the knowledge-base service and
    its ingestion and retrieval stack wait for first use), and the first frame
    of a bound thread already names its base; once the service is built the
    picker reads through it."""
    from tests.ui.history_support import seed

    first = build_services(data_dir)
    kb = await first.knowledge.create("Farm")
    [thread_id] = await seed(first, [{"title": "Jam", "updated_at": "2026-01-02T03:04:05.000Z"}])
    await first.knowledge.bind(thread_id, kb.id)
    await first.aclose()

    services = build_services(data_dir)
    window = MainWindow(services)
    qtbot.addWidget(window)
    try:
        window.show()
        await window.start(thread_id)
        picker = window.header.kb_picker
        await until(lambda: picker.text() == "KB: Farm")
        assert [b.kb.name for b in picker.bases()] == ["Farm"]
        assert "knowledge" not in services.built
        await services.knowledge.rename(kb.id, "Orchard")
        window.kb_actions._after_change()
        await until(lambda: picker.text() == "KB: Orchard")
    finally:
        await close_window(window)
        await services.aclose()


async def test_a_file_that_cannot_be_indexed_is_reported_in_the_interface_language(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ingest report keeps each failure's error, so the manager words it
    in Chinese (the CLI's English stays in ``IngestFailure.error``)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
    try:
        dialog = await open_manager(window)
        dialog.name_edit.setText("Reports")
        dialog.create_button.click()
        await until(lambda: dialog.base_names() == ["Reports"])
        # a base chosen can take files at once (the button waited for its document list)
        assert dialog.documents.add_files_button.isEnabled()
        damaged = tmp_path / "坏掉的.pdf"
        damaged.write_bytes(b"not a pdf at all")
        monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(damaged)], ""))
        results = job_results(dialog)
        dialog.documents.add_files_button.click()
        report = await finished(results)
        assert isinstance(report, IngestReport) and len(report.failed) == 1
        assert report.failed[0].error.startswith('"坏掉的.pdf" cannot be read')
        await until(lambda: "无法读取“坏掉的.pdf”" in dialog.status.text())
        assert "文件已损坏，或并不是PDF 文件（没有 PDF 文件头）" in dialog.status.text()
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")


def tooltip(table: QTreeWidget) -> str:
    item = table.topLevelItem(0)
    return item.toolTip(0) if item is not None else ""


async def test_a_document_that_can_no_longer_be_read_says_why_in_the_interface_language(
    window: MainWindow, services: Services, tmp_path: Path
) -> None:
    """An indexed file damaged later keeps its passages, marked "could not
    read"; its tooltip words the stored error in Chinese (the error is
    stored whole, not only its English text), and a good copy clears it."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    kb_id = await farm(services, tmp_path, "Orchard")
    report = tmp_path / "docs" / "harvest-report.pdf"
    good = report.read_bytes()
    report.write_bytes(b"not a pdf at all")  # another size: read again
    install_translator(app, "zh_CN", cache_dir=tmp_path / "qm")
    try:
        dialog = await open_manager(window)
        # the base is chosen once the list has loaded: Re-index before does nothing
        await until(lambda: dialog.documents.kb_id == kb_id and dialog.documents.reindex_button.isEnabled())  # fmt: skip
        table = dialog.documents.table
        results = job_results(dialog)
        dialog.documents.reindex_button.click()
        await finished(results)
        await until(lambda: table.topLevelItemCount() == 1 and "无法读取" in tooltip(table))
        item = table.topLevelItem(0)
        assert item is not None and item.text(3) == "无法读取"
        [doc] = await services.knowledge.documents(kb_id)
        assert doc.status == "failed" and doc.chunks == 3
        assert doc.error is not None and doc.error.startswith('"harvest-report.pdf" cannot be read')
        assert tooltip(table) == (
            f"{report}\n无法读取“harvest-report.pdf”：文件已损坏，或并不是PDF 文件（没有 PDF 文件头）。"
            "\n请用创建它的程序打开，另存一份新副本，再附加该副本。"
        )
        report.write_bytes(good + b"\n")
        await until(lambda: dialog.documents.reindex_button.isEnabled())
        dialog.documents.reindex_button.click()
        await finished(results, 2)
        await until(lambda: tooltip(table) == str(report))
        [doc] = await services.knowledge.documents(kb_id)
        assert (doc.status, doc.error, doc.error_detail) == ("indexed", None, None)
    finally:
        install_translator(app, "en", cache_dir=tmp_path / "qm")


async def test_audio_in_an_added_folder_is_said_to_be_skipped(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "notes.md").write_text("# Week 1\nThe Calvin cycle fixes carbon.\n")
    (folder / "lecture 1.mp3").write_bytes(b"\xff\xfb" * 64)
    dialog = await open_manager(window)
    dialog.name_edit.setText("Course")
    dialog.create_button.click()
    await until(lambda: dialog.base_names() == ["Course"])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(folder))
    results = job_results(dialog)
    dialog.documents.add_folder_button.click()
    report = await finished(results)
    assert isinstance(report, IngestReport) and report.added == 1
    await until(lambda: "Audio files in folders are not written down" in dialog.status.text())
    assert "(lecture 1.mp3)" in dialog.status.text()


def test_an_answer_with_malformed_imported_sources_still_shows(qtbot) -> None:  # type: ignore[no-untyped-def]
    """An imported thread's ``sources`` with a number that is none, a
    location that is text and highlights that are words: the answer and its
    good sources show (reading them used to raise and the answer did not)."""
    from mira_desktop.core.models import Message, MessageRole
    from tests.ui.timeline_support import shown_timeline

    view = shown_timeline(qtbot)
    sources = [
        {"number": "x", "document": "broken"},
        {"number": 1, "document": "Farm report.pdf", "location": "abc", "snippet": "Wheat"},
        {"number": 2, "document": "Rain.xlsx", "highlights": [["a", "b"]], "snippet": "Rain"},
    ]
    answer = Message(
        id="a1",
        thread_id="t1",
        role=MessageRole.ASSISTANT,
        text="Wheat yields rose [1], after the rain [2].",
        created_at="2026-11-30T08:00:00.000Z",
        data={"kb_path": "answer", "kb_name": "Farm", "sources": sources},
    )
    view.set_messages([answer])
    widget = view.message_widget("a1")
    assert isinstance(widget, AssistantMessageWidget)
    assert "Wheat yields rose" in widget.body.toPlainText()
    assert [entry.source.number for entry in sources_of(widget).entries()] == [1, 2]
