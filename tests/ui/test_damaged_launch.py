"""The window's launch on a damaged database (a real file, garbled): people
are asked whether to recover; Yes saves what can be read and says how much,
No leaves the file as it is; other errors are shown in a message box, and a
headless launch says why on stderr instead of a traceback."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from mira_desktop.ui import launch
from mira_desktop.ui.damaged_database import open_services
from tests.storage.test_salvage import garble_page_holding, seeded


@dataclass
class Boxes:
    """Message boxes shown (title, text); questions get ``answer``."""

    answer: QMessageBox.StandardButton = QMessageBox.StandardButton.Yes
    shown: list[tuple[str, str]] = field(default_factory=list)


@pytest.fixture
def boxes(monkeypatch: pytest.MonkeyPatch) -> Boxes:
    boxes = Boxes()

    def exec_(box: QMessageBox) -> QMessageBox.StandardButton:
        boxes.shown.append((box.windowTitle(), box.text()))
        if box.standardButtons() & QMessageBox.StandardButton.Yes:
            return boxes.answer
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    return boxes


def destroy_header(path: Path) -> bytes:
    with path.open("r+b") as f:
        f.write(b"\x13" * 100)
    return path.read_bytes()


async def test_yes_recovers_a_damaged_page_and_says_how_much(qapp, data_dir: Path, boxes: Boxes) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    """The header is fine but a page is not: the launch opens; the window's
    doctor (Help → Check data) finds it. A destroyed header is asked about
    at once: here the damage is in a page, so the file opens as is."""
    path = seeded(data_dir)
    garble_page_holding(path, "message 7-7 ")
    services, notice = await open_services(data_dir, interactive=True)
    assert services is not None and notice == "" and boxes.shown == []
    try:
        report = await services.doctor.fix()  # what Help → Check data → Repair does
        assert report.healthy and report.salvage is not None
        assert 1180 <= report.salvage.messages < 1200
    finally:
        await services.aclose()


async def test_yes_on_a_destroyed_header_starts_empty_and_keeps_the_file(qapp, data_dir: Path, boxes: Boxes) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    before = destroy_header(seeded(data_dir))

    services, notice = await open_services(data_dir, interactive=True)

    assert services is not None
    try:
        [(title, text)] = boxes.shown
        assert title == "Damaged database" and text.startswith("Mira's database is damaged (")
        assert notice.startswith("The damaged database could not be read at all; Mira starts")
        assert await services.store.count_threads() == 0
    finally:
        await services.aclose()
    [kept] = (data_dir / "backups").glob("*-damaged.sqlite3")
    assert kept.read_bytes() == before


async def test_no_quits_and_leaves_the_file_alone(qapp, data_dir: Path, boxes: Boxes) -> None:  # type: ignore[no-untyped-def]
    path = seeded(data_dir)
    before = destroy_header(path)
    boxes.answer = QMessageBox.StandardButton.No

    assert await open_services(data_dir, interactive=True) == (None, "")
    assert len(boxes.shown) == 1 and path.read_bytes() == before
    assert not list((data_dir / "backups").glob("*-damaged.sqlite3"))


async def test_another_error_is_shown_not_swallowed(qapp, data_dir: Path, boxes: Boxes) -> None:  # type: ignore[no-untyped-def]
    (data_dir / "mira.sqlite3").mkdir()  # a folder where the file should be

    assert await open_services(data_dir, interactive=True) == (None, "")
    [(title, text)] = boxes.shown
    assert title == "Mira cannot open its data" and text.startswith("Cannot open the database")


async def test_a_headless_launch_says_why_and_exits_1(
    qapp, data_dir: Path, boxes: Boxes, tmp_path: Path, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    path = seeded(data_dir)
    destroy_header(path)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # _main installs its own
    app = QApplication.instance()
    args = argparse.Namespace(
        screenshot=str(tmp_path / "shot.png"), gui_thread=None, theme="light", lang="en"
    )
    assert await launch._main(app, args, data_dir) == 1
    assert boxes.shown == []  # nothing asked
    err = capsys.readouterr().err
    assert f'The database "{path}" is damaged' in err and "doctor --fix" in err
    assert not (tmp_path / "shot.png").exists()
