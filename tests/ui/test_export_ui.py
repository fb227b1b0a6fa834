"""Export, print and import in the real MainWindow (PRODUCT.md §9): the thread
menu (sidebar and header) exports Markdown/HTML/JSON, copies, saves a PDF and
opens a print preview; batch export to a ZIP with Cancel; an answer's
Download / Save to workspace; File → Import. Only the QFileDialog and
QMessageBox static functions are replaced."""

from __future__ import annotations

import asyncio
import io
import json
import os
import threading
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.ui.export.feedback import with_ending
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.theme import apply_theme
from mira_desktop.ui.window.main_window import MainWindow
from tests.services.export.chatgpt_fixture import branching, system_only
from tests.services.export.sample import Sample, build_sample
from tests.ui.history_support import (  # noqa: F401 (fixtures)
    refresh,
    services_fixture,
    until,
    window_fixture,
)

SHOTS = Path(os.environ.get("MIRA_SCREENSHOTS", "/tmp/mira-shots"))


@pytest.fixture
def save_to(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[tuple[str, str]]]:
    """Make QFileDialog.getSaveFileName answer ``path`` (and ``selected`` filter);
    returns the list of (caption, proposed path) it was asked."""

    def install(path: Path, selected: str = "", then: Callable[[], None] | None = None) -> Any:
        asked: list[tuple[str, str]] = []

        def answer(parent: Any, caption: str, start: str = "", filters: str = "", *a: Any):  # type: ignore[no-untyped-def]
            asked.append((caption, start))
            if then is not None:
                then()
            return str(path), selected or filters.split(";;")[0]

        monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(answer))
        return asked

    return install


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []

    def warning(parent: Any, title: str, text: str, *args: Any) -> Any:
        shown.append(f"{title}: {text}")
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", staticmethod(warning))
    return shown


async def sample_in_window(window: MainWindow, services: Services) -> Sample:
    sample = await build_sample(services)
    await refresh(window)
    return sample


def sidebar_action(window: MainWindow, thread_id: str, name: str) -> QAction:
    menu = window.sidebar.thread_menu_for(thread_id)
    assert menu is not None
    found = [a for a in menu.actions() if a.objectName() == name]
    assert found, [a.objectName() for a in menu.actions()]
    return found[0]


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
async def test_export_from_the_thread_menu_writes_the_file(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any, fmt: str
) -> None:
    sample = await sample_in_window(window, services)
    target = tmp_path / f"out.{fmt}"
    asked = save_to(target)
    sidebar_action(window, sample.thread_id, f"export:{fmt}").trigger()
    await until(lambda: target.exists())
    assert asked and asked[0][1].endswith(f".{fmt}")
    text = target.read_text("utf-8")
    assert "推导式" in text
    if fmt == "json":
        assert json.loads(text)["thread"]["id"] == sample.thread_id
    await until(lambda: "Exported to" in window.notice_label.text())


async def test_header_menu_has_the_actions_of_the_open_thread(
    window: MainWindow, services: Services
) -> None:
    sample = await sample_in_window(window, services)
    window.presenter.open_thread(sample.thread_id)
    await until(lambda: window.tasks.get("load-thread") is None)
    window.header.menu.aboutToShow.emit()
    names = [a.objectName() for a in window.header.menu.actions()]
    assert names[:6] == [
        "export:md",
        "export:html",
        "export:json",
        "export:copy",
        "export:print",
        "export:pdf",
    ]
    window.header.menu.aboutToShow.emit()  # rebuilt, not duplicated
    names = [a.objectName() for a in window.header.menu.actions()]
    assert names.count("export:md") == 1


async def test_copy_puts_markdown_on_the_clipboard(window: MainWindow, services: Services) -> None:
    sample = await sample_in_window(window, services)
    QGuiApplication.clipboard().setText("")
    sidebar_action(window, sample.thread_id, "export:copy").trigger()
    await until(lambda: "推导式" in QGuiApplication.clipboard().text())
    text = QGuiApplication.clipboard().text()
    assert "## 列表推导式" in text and "```python" in text


async def test_save_as_pdf_writes_a_pdf_with_the_threads_words(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any
) -> None:
    from pypdf import PdfReader

    sample = await sample_in_window(window, services)
    target = tmp_path / "thread.pdf"
    asked = save_to(target)
    sidebar_action(window, sample.thread_id, "export:pdf").trigger()
    # the notice follows the write (the file grows while it is written)
    await until(lambda: str(target) in window.notice_label.text(), timeout=10)
    assert asked[0][1].endswith(".pdf")
    data = target.read_bytes()
    assert data.startswith(b"%PDF-")
    reader = PdfReader(io.BytesIO(data))
    text = unicodedata.normalize("NFKC", "".join(p.extract_text() for p in reader.pages))
    assert "squares" in text
    assert "推导式" in text


async def show_menu_and_preview(window: MainWindow, thread_id: str, suffix: str) -> None:
    """Screenshot the sidebar's thread menu and the print preview."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    menu = window.sidebar.thread_menu_for(thread_id)
    assert menu is not None
    menu.popup(window.mapToGlobal(window.rect().center()))
    await asyncio.sleep(0.2)
    assert menu.grab().save(str(SHOTS / f"export-thread-menu-{suffix}.png"))
    menu.close()
    sidebar_action(window, thread_id, "export:print").trigger()
    await until(lambda: window.export_actions.preview is not None)
    preview = window.export_actions.preview
    assert preview is not None
    await until(lambda: preview.isVisible())
    preview.resize(1100, 760)
    await asyncio.sleep(0.5)
    assert preview.grab().save(str(SHOTS / f"export-print-preview-{suffix}.png"))
    preview.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
async def test_thread_menu_and_print_preview_screenshots(
    window: MainWindow, services: Services, language: str
) -> None:
    sample = await sample_in_window(window, services)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, "light")
    install_translator(app, language)
    try:
        await asyncio.sleep(0.05)
        menu = window.sidebar.thread_menu_for(sample.thread_id)
        assert menu is not None
        texts = [a.text() for a in menu.actions()]
        files = [a.text() for a in window.file_menu.actions()]
        if language == "zh_CN":
            assert "导出为 Markdown…" in texts and "另存为 PDF…" in texts, texts
            assert "导入对话…" in files, files
        else:
            assert "Export as Markdown…" in texts and "Import conversations…" in files
        await show_menu_and_preview(window, sample.thread_id, f"light-{language}")
    finally:
        install_translator(app, "en")


async def test_batch_export_of_three_threads_makes_a_zip(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any
) -> None:
    samples = [await build_sample(services, f"Batch {n}") for n in range(3)]
    await refresh(window)
    target = tmp_path / "batch.zip"
    save_to(target, "ZIP of JSON files (*.zip)")
    window.sidebar.batch_export_requested.emit([s.thread_id for s in samples])
    await until(lambda: target.exists())
    with zipfile.ZipFile(target) as archive:
        names = [n for n in archive.namelist() if not n.startswith("attachments/")]
    assert len(names) == 3 and all(n.endswith(".json") for n in names)
    await until(lambda: "Exported 3 conversations" in window.notice_label.text())


async def test_batch_bar_export_button_asks_for_the_ticked_threads(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any
) -> None:
    samples = [await build_sample(services, f"Tick {n}") for n in range(2)]
    await refresh(window)
    asked: list[list[str]] = []
    window.sidebar.batch_export_requested.connect(asked.append)
    window.sidebar.set_batch_mode(True)
    for sample in samples:
        window.sidebar.grouped.set_checked(sample.thread_id, True)
    button = window.sidebar.view_bar.batch_buttons["export"]
    assert button.isVisible() and button.isEnabled()
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert window.sidebar.grab().save(str(SHOTS / "export-batch-bar-light-en.png"))
    save_to(tmp_path / "ticked.zip")
    button.click()
    await until(lambda: bool(asked))
    assert sorted(asked[0]) == sorted(s.thread_id for s in samples)
    await until(lambda: (tmp_path / "ticked.zip").exists())


async def test_cancelled_batch_export_leaves_no_file(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any
) -> None:
    samples = [await build_sample(services, f"Cancel {n}") for n in range(3)]
    await refresh(window)
    target = tmp_path / "cancelled.zip"
    batch = window.export_actions.batch

    # The database thread waits until Cancel is pressed: a zero timer alone
    # raced the export of three small threads (and lost now and then once
    # reading got faster). The export's reads queue behind the wait.
    gate = threading.Event()
    held = asyncio.ensure_future(services.store.worker.run(lambda db: gate.wait(10)))

    def press_cancel() -> None:  # as soon as the progress dialog exists
        def cancel() -> None:
            batch.dialog.canceled.emit()  # type: ignore[union-attr]
            gate.set()

        QTimer.singleShot(0, cancel)

    try:
        save_to(target, then=press_cancel)
        window.sidebar.batch_export_requested.emit([s.thread_id for s in samples])
        await until(lambda: "cancelled" in window.notice_label.text())
    finally:
        gate.set()
        await held
    assert not target.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


async def answer_widget_menu(window: MainWindow, sample: Sample) -> QMenu:
    window.presenter.open_thread(sample.thread_id)
    await until(lambda: window.timeline.message_widget(sample.a1) is not None)
    widget = window.timeline.message_widget(sample.a1)
    assert widget is not None
    menu = widget.findChild(QMenu, "messageMoreMenu")
    assert menu is not None
    menu.aboutToShow.emit()
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SHOTS / "export-answer-actions-en.png"))
    return menu


def menu_action(menu: QMenu, name: str) -> QAction:
    found = [a for a in menu.actions() if a.objectName() == name]
    assert found, [a.objectName() for a in menu.actions()]
    return found[0]


async def test_message_download_and_save_to_workspace(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any, warnings: list[str]
) -> None:
    sample = await sample_in_window(window, services)
    menu = await answer_widget_menu(window, sample)
    target = tmp_path / "answer.md"
    asked = save_to(target)
    menu_action(menu, "message:download").trigger()
    await until(lambda: str(target) in window.notice_label.text())  # written
    assert Path(asked[0][1]).name.startswith("chat-message-assistant-")
    assert "推导式" in target.read_text("utf-8")
    save_to(tmp_path / "notes")  # a bare name typed in the dialog: the ending is added
    menu_action(menu, "message:download").trigger()
    await until(lambda: str(tmp_path / "notes.md") in window.notice_label.text())
    assert "推导式" in (tmp_path / "notes.md").read_text("utf-8")
    assert not (tmp_path / "notes").exists()

    menu_action(menu, "message:workspace").trigger()  # no root folder yet
    await until(lambda: bool(warnings))
    assert "root folder" in warnings[0].lower() or "folder" in warnings[0].lower()

    root = tmp_path / "root"
    root.mkdir()
    workspace = await services.workspaces.default_workspace()
    await services.workspaces.set_root_dir(workspace.id, str(root))
    menu.aboutToShow.emit()
    menu_action(menu, "message:workspace").trigger()
    await until(lambda: str(root) in window.notice_label.text())  # written
    [saved] = list(root.glob("chat-message-assistant-*.md"))
    assert "推导式" in saved.read_text("utf-8")
    assert str(saved) in window.notice_label.text()
    assert [p.name for p in root.iterdir()] == [saved.name]  # nothing left aside


def open_file(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    def answer(*args: Any, **kwargs: Any) -> tuple[str, str]:
        return str(path), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(answer))


async def test_import_chatgpt_file_adds_a_thread(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([branching().data]), "utf-8")
    open_file(monkeypatch, source)
    assert window.export_actions.importer.action in window.file_menu.actions()
    window.export_actions.importer.action.trigger()
    await until(lambda: window.export_actions.importer.last_report is not None)
    await until(lambda: "Imported 1 conversations, skipped 0" in window.notice_label.text())
    await until(lambda: not window.thread_model.is_loading())
    await until(lambda: "Branches 分支 🌳" in [t.title for t in window.thread_model.threads()])
    window.export_actions.importer.last_report = None
    window.export_actions.importer.action.trigger()  # again: skipped as a duplicate
    await until(lambda: window.export_actions.importer.last_report is not None)
    await until(lambda: "Imported 0 conversations, skipped 1" in window.notice_label.text())


async def test_an_import_without_the_attached_files_says_so(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = build_services(tmp_path / "other-library")
    try:
        sample = await build_sample(other, "Notes from elsewhere")
        source = tmp_path / "one.json"
        await other.exports.export_thread(sample.thread_id, "json", source)
    finally:
        await other.aclose()
    open_file(monkeypatch, source)
    window.export_actions.importer.action.trigger()
    await until(lambda: window.export_actions.importer.last_report is not None)
    await until(
        lambda: (
            "Attached files not in the export: 1 (their names are kept)."
            in window.notice_label.text()
        )
    )


async def test_malformed_import_shows_the_error_and_adds_nothing(
    window: MainWindow,
    services: Services,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    warnings: list[str],
) -> None:
    before = window.thread_model.rowCount()
    source = tmp_path / "broken.json"
    source.write_text('{"not": "an export"', "utf-8")
    open_file(monkeypatch, source)
    window.export_actions.importer.action.trigger()
    await until(lambda: bool(warnings))
    assert warnings[0].startswith("Import failed")
    await refresh(window)
    assert window.thread_model.rowCount() == before
    assert window.export_actions.importer.last_report is None


@pytest.mark.parametrize(
    ("chosen", "suffix", "written"),
    [
        ("Report 1.5", ".pdf", "Report 1.5.pdf"),
        ("Report", ".pdf", "Report.pdf"),
        ("Report.PDF", ".pdf", "Report.PDF"),
        ("v2.0 backup.tar", ".zip", "v2.0 backup.tar.zip"),
        ("backup.zip", ".zip", "backup.zip"),
    ],
)
def test_the_ending_is_added_not_put_in_place_of_a_dot(
    chosen: str, suffix: str, written: str, tmp_path: Path
) -> None:
    assert with_ending(tmp_path / chosen, suffix) == tmp_path / written


@pytest.fixture
def questions(monkeypatch: pytest.MonkeyPatch) -> Callable[[bool], list[str]]:
    """Make QMessageBox.question answer yes or no; returns the texts asked."""

    def install(yes: bool) -> list[str]:
        asked: list[str] = []

        def question(parent: Any, title: str, text: str, *args: Any) -> Any:
            asked.append(text)
            return QMessageBox.StandardButton.Yes if yes else QMessageBox.StandardButton.No

        monkeypatch.setattr(QMessageBox, "question", staticmethod(question))
        return asked

    return install


async def test_save_as_pdf_after_a_dot_in_the_name_leaves_other_files_alone(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any
) -> None:
    sample = await sample_in_window(window, services)
    other = tmp_path / "Report 1.pdf"
    other.write_bytes(b"another report")
    save_to(tmp_path / "Report 1.5")
    sidebar_action(window, sample.thread_id, "export:pdf").trigger()
    target = tmp_path / "Report 1.5.pdf"
    await until(lambda: str(target) in window.notice_label.text(), timeout=10)
    assert target.read_bytes().startswith(b"%PDF-")
    assert other.read_bytes() == b"another report"


async def test_a_file_of_the_name_with_the_ending_is_replaced_only_when_confirmed(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any, questions: Any
) -> None:
    sample = await sample_in_window(window, services)
    existing = tmp_path / "notes.pdf"
    existing.write_bytes(b"my notes")
    save_to(tmp_path / "notes")
    asked = questions(False)
    sidebar_action(window, sample.thread_id, "export:pdf").trigger()
    await until(lambda: bool(asked))
    assert asked == ["notes.pdf already exists. Replace it?"]
    await asyncio.sleep(0.1)
    assert existing.read_bytes() == b"my notes"

    questions(True)
    sidebar_action(window, sample.thread_id, "export:pdf").trigger()
    await until(lambda: str(existing) in window.notice_label.text(), timeout=10)
    assert existing.read_bytes().startswith(b"%PDF-")


async def test_batch_export_after_a_dot_in_the_name_adds_zip(
    window: MainWindow, services: Services, tmp_path: Path, save_to: Any
) -> None:
    sample = await sample_in_window(window, services)
    other = tmp_path / "backup 2.zip"
    other.write_bytes(b"an older backup")
    save_to(tmp_path / "backup 2.5", "ZIP of JSON files (*.zip)")
    window.sidebar.batch_export_requested.emit([sample.thread_id])
    target = tmp_path / "backup 2.5.zip"
    await until(lambda: "Exported 1 conversations" in window.notice_label.text())
    assert zipfile.is_zipfile(target)
    assert other.read_bytes() == b"an older backup"


async def test_the_import_notice_says_why_each_thread_was_skipped(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([branching().data, system_only().data]), "utf-8")
    open_file(monkeypatch, source)
    importer = window.export_actions.importer
    importer.action.trigger()
    await until(lambda: importer.last_report is not None)
    await until(lambda: "skipped 1" in window.notice_label.text())
    assert window.notice_label.text().startswith(
        "Imported 1 conversations, skipped 1: no messages to import Attached"
    )

    importer.last_report = None
    importer.action.trigger()  # again: one more reason, and one reason twice
    await until(lambda: importer.last_report is not None)
    await until(lambda: "skipped 2" in window.notice_label.text())
    assert window.notice_label.text().startswith(
        "Imported 0 conversations, skipped 2: no messages to import; already imported, nothing new "
    )

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    report = importer.last_report
    assert report is not None
    twice = replace(report, skipped=[*report.skipped, report.skipped[-1]])
    install_translator(app, "zh_CN")
    try:
        importer._done(twice)
        await until(lambda: not window.thread_model.is_loading())
        assert window.notice_label.text().startswith(
            "已导入 0 个对话，跳过 3 个：没有可导入的消息；之前已导入，没有新内容（2 个） "
        )
    finally:
        install_translator(app, "en")
