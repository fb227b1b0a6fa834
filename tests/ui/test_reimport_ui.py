"""File → Import of a newer ChatGPT export (PRODUCT.md §9): the notice says
how many conversations imported before got new messages, and how many, in
English and Simplified Chinese; the open thread shows them. Only the
QFileDialog static function is replaced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from mira_desktop.bootstrap import Services
from mira_desktop.ui.i18n import install_translator
from mira_desktop.ui.window.main_window import MainWindow
from tests.services.export.chatgpt_fixture import branching, went_on
from tests.ui.history_support import (  # noqa: F401 (fixtures)
    services_fixture,
    until,
    window_fixture,
)
from tests.ui.test_export_ui import open_file


async def test_a_newer_export_adds_to_the_open_thread_and_says_so(
    window: MainWindow, services: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([branching().data]), "utf-8")
    open_file(monkeypatch, source)
    importer = window.export_actions.importer
    importer.action.trigger()
    await until(lambda: importer.last_report is not None)
    assert importer.last_report is not None
    (thread,) = importer.last_report.imported
    window.presenter.open_thread(thread.id)
    await until(lambda: window.timeline.message_count() == 4)  # the active branch

    source.write_text(json.dumps([went_on().data]), "utf-8")
    importer.last_report = None
    importer.action.trigger()
    await until(lambda: importer.last_report is not None)
    await until(lambda: "imported before" in window.notice_label.text())
    assert window.notice_label.text().startswith(
        "Imported 0 conversations, skipped 0"
        " Added 2 new messages to 1 conversations imported before."
    )
    await until(lambda: window.timeline.message_count() == 6)  # the two new turns shown
    newer = importer.last_report

    importer.last_report = None
    importer.action.trigger()  # once more: nothing new
    await until(lambda: importer.last_report is not None)
    await until(lambda: "skipped 1" in window.notice_label.text())
    assert window.notice_label.text().startswith(
        "Imported 0 conversations, skipped 1: already imported, nothing new"
    )

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    install_translator(app, "zh_CN")
    try:
        importer._done(importer.last_report)
        assert window.notice_label.text().startswith(
            "已导入 0 个对话，跳过 1 个：之前已导入，没有新内容"
        )
        importer._done(newer)
        assert window.notice_label.text().startswith(
            "已导入 0 个对话，跳过 0 个 向之前导入的 1 个对话添加了 2 条新消息。"
        )
    finally:
        install_translator(app, "en")
