"""What a click hands to the system, when the data behind it came from
elsewhere (an imported conversation keeps its data as written): a picture's
name never says where its copy is written or what runs it, a source that is
a program is shown in its folder, a mail link attaches nothing. The system's
programs are Qt's URL handler hook (tests/support/opened_urls.py)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QWidget

from mira_desktop.bootstrap import Services
from mira_desktop.core.knowledge_results import Source
from mira_desktop.core.opened_files import cache_name, mail_link, runs_when_opened
from mira_desktop.ui.kb.sources_widget import SourceEntry
from mira_desktop.ui.timeline.markdown import render_markdown_blocks
from mira_desktop.ui.timeline.rich_text import RichTextView
from mira_desktop.ui.window.main_window import MainWindow
from tests.services.seed import attach_media, execute, make_thread, message_ids
from tests.support.opened_urls import opened_files
from tests.ui.test_attachments_ui import until


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(out, "PNG")
    return out.getvalue()


async def test_an_imported_pictures_name_cannot_write_outside_the_cache_or_run(
    window: MainWindow, services: Services, tmp_path: Path
) -> None:
    thread = await make_thread(services, "imported", ["look", "nice"])
    question, _ = await message_ids(services, thread.id)
    data = png()
    sha = await services.media.put(data, "image/png")
    await attach_media(services, question, sha, ref_count=1)
    hostile = "../../../../../" + str(tmp_path / "escaped" / "pwn.sh").lstrip("/")
    item = {"name": hostile, "sha256": sha, "kind": "image", "mime": "image/png", "size": len(data)}
    await execute(
        services,
        "UPDATE messages SET data_json = ? WHERE id = ?",
        json.dumps({"attachments": [item]}),
        question,
    )
    window.history_actions.open_thread(thread.id)
    await until(lambda: question in window.timeline.message_ids())
    with opened_files() as opened:
        window.timeline.media_requested.emit(question, "attachment", f"open:{sha}")
        await until(lambda: opened != [])
    shown = Path(opened[0].toLocalFile())
    cache = services.data_dir / "cache"
    assert shown.parent == cache / "attachments" and shown.name == "pwn.png"
    assert shown.read_bytes() == data
    assert not (tmp_path / "escaped").exists()


def test_a_source_that_is_a_program_is_shown_in_its_folder(qtbot: Any, tmp_path: Path) -> None:
    program = tmp_path / "tools" / "calc.exe"
    program.parent.mkdir()
    program.write_bytes(b"MZ")
    document = tmp_path / "Handbook.pdf"
    document.write_bytes(b"%PDF-1.4")
    parent = QWidget()
    qtbot.addWidget(parent)
    fields = {"location": {}, "snippet": "", "chunk_id": "c", "score": 1.0}
    disguised = SourceEntry(Source(1, "Handbook.pdf", str(program), **fields), parent)
    real = SourceEntry(Source(2, "Handbook.pdf", str(document), **fields), parent)
    with opened_files() as opened:
        assert disguised.open_document() and real.open_document()
    assert [Path(u.toLocalFile()) for u in opened] == [program.parent, document]


class _Mail(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


@contextmanager
def mails() -> Iterator[list[str]]:
    handler = _Mail()
    QDesktopServices.setUrlHandler("mailto", handler, "open")
    try:
        yield handler.opened
    finally:
        QDesktopServices.unsetUrlHandler("mailto")


def test_a_mail_link_in_an_answer_attaches_no_file(qtbot: Any) -> None:
    view = RichTextView()
    qtbot.addWidget(view)
    with mails() as opened:
        view.anchorClicked.emit(
            QUrl("mailto:ops@example.com?attach=/home/u/.ssh/id_rsa&subject=Logs")
        )
    assert opened == ["mailto:ops@example.com?subject=Logs"]


def test_hovering_a_link_shows_where_it_really_goes(qtbot: Any) -> None:
    view = RichTextView()
    qtbot.addWidget(view)
    view.set_rendered(
        render_markdown_blocks(
            "See [docs.python.org](https://elsewhere.example/login).", dark=False
        )
    )
    view.highlighted.emit(QUrl("https://elsewhere.example/login"))
    assert view.link_target == "https://elsewhere.example/login"
    view.highlighted.emit(QUrl())  # the pointer left the link
    assert view.link_target == ""


@pytest.mark.parametrize(
    ("name", "mime", "expected"),
    [
        ("../../../../tmp/pwn.sh", "image/png", "pwn.png"),
        ("C:\\Windows\\evil.bat", "", "evil.bin"),
        ("猫 的照片.jpg", "image/jpeg", "猫 的照片.jpg"),
        ("", "audio/wav", "file.wav"),
        ("report\u202egnp.exe", "image/png", "report-gnp.png"),
        ("..", "image/gif", "file.gif"),
    ],
)
def test_cache_names_are_plain_names_with_the_stored_types_ending(
    name: str, mime: str, expected: str
) -> None:
    assert cache_name(name, mime) == expected


def test_what_runs_when_opened_and_what_a_mail_link_keeps() -> None:
    assert runs_when_opened("C:\\Windows\\System32\\calc.exe")
    assert runs_when_opened("/home/u/notes/setup.PY") and runs_when_opened("/x/start.desktop")
    assert not runs_when_opened("/x/a.pdf") and not runs_when_opened("/x/Makefile")
    assert mail_link("mailto:a@b?Attach=x&attachment=y&body=hi") == "mailto:a@b?body=hi"
    assert mail_link("mailto:a@b") == "mailto:a@b"
