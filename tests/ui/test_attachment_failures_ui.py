"""A file whose reading fails in a way nobody foresaw never leaves its chip
*reading* (and the message going out without it): the chip goes and the
reason shows under the composer, as for any refused file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.services.attachments import AttachmentService
from mira_desktop.ui.composer import ComposerWidget
from mira_desktop.ui.composer.attachments_controller import AttachmentsController
from mira_desktop.ui.controllers.tasks import TaskRunner
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.documents import make_docx_merged_from_the_top
from tests.support.qt_async import until
from tests.ui.test_attachments_ui import ready_chips


async def test_a_docx_the_library_cannot_lay_out_is_refused_saying_why(
    window: MainWindow, tmp_path: Path
) -> None:
    merged = make_docx_merged_from_the_top(tmp_path / "merged.docx")
    notes = tmp_path / "notes.txt"
    notes.write_text("fine\n", encoding="utf-8")
    window.composer_actions.attachments.add_paths([str(merged), str(notes)])
    error = window.composer.attach_error
    await until(lambda: ready_chips(window) == ["notes.txt"] and "merged.docx" in error.text())
    assert len(window.composer.strip.chip_keys()) == 1
    assert "no tr above topmost tr" in error.text() and "Traceback" not in error.text()


async def test_an_unexpected_failure_while_preparing_removes_the_chip_with_the_reason(
    qtbot: Any, services: Services, tmp_path: Path
) -> None:
    """An attachment service without its speech-to-text collaborator raises a
    plain RuntimeError for a recording: not a refusal the controller knew."""
    composer = ComposerWidget()
    qtbot.addWidget(composer)
    composer.show()
    tasks = TaskRunner()
    controller = AttachmentsController(
        composer, AttachmentService(services.media, services.settings), tasks
    )
    memo = tmp_path / "memo.mp3"
    memo.write_bytes(b"ID3" + b"\0" * 64)
    controller.add_paths([str(memo)])
    assert len(composer.strip.chip_keys()) == 1  # reading
    await until(lambda: composer.strip.chip_keys() == [])
    assert composer.attach_error.text() == (
        '"memo.mp3" could not be attached: audio attachments need the transcription service'
    )
    assert controller.prepared() == ()
    await tasks.cancel_all()
