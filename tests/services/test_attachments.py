"""Attachments from the composer's chip to the stored message part, on a real
data folder: nothing is left behind by removing a chip, deleting a message or a
crash while composing; the ``@`` picker's search stays inside the workspace."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError, ReaderError
from mira_desktop.core.ids import new_id, utc_now
from mira_desktop.core.models import Message, MessageRole, Thread
from mira_desktop.services.attachments import AttachmentService, search_workspace_files
from mira_desktop.services.workspace_files import resolve_workspace_file
from mira_desktop.storage.media_store import MediaStore
from tests.support.documents import make_image, make_pdf, make_xlsx

DAY = 24 * 3600.0


def stored_files(services: Services) -> list[Path]:
    return sorted(p for p in (services.data_dir / "media").rglob("*") if p.is_file())


async def saved_message(services: Services) -> str:
    now = utc_now()
    workspace = await services.store.default_workspace()
    thread = await services.store.create_thread(
        Thread(id=new_id(), title="附件", workspace_id=workspace.id, created_at=now, updated_at=now)
    )
    message = Message(new_id(), thread.id, MessageRole.USER, "看看这个", now, now)
    await services.store.add_message(message)
    return message.id


@pytest.fixture
def report_pdf(tmp_path: Path) -> Path:
    path = tmp_path / "报告.pdf"
    path.write_bytes(make_pdf([["Quarterly report", "收入增长"], ["Page two"]]))
    return path


async def test_prepare_then_discard_leaves_nothing(services: Services, report_pdf: Path) -> None:
    prepared = await services.attachments.prepare(report_pdf)
    assert prepared.attachment.kind == "file" and prepared.name == "报告.pdf"
    assert prepared.document.sections[0].location == {"page": 1}
    assert stored_files(services) == [services.media.path(prepared.sha256)]
    assert await services.media.ref_count(prepared.sha256) == 1
    await services.attachments.discard(prepared)
    assert stored_files(services) == []
    assert await services.media.ref_count(prepared.sha256) is None  # the row is gone too


async def test_prepare_attach_release_collect_leaves_nothing(
    services: Services, report_pdf: Path, tmp_path: Path
) -> None:
    image = await services.attachments.prepare(make_image(tmp_path / "图.png", "PNG"))
    document = await services.attachments.prepare(report_pdf)
    message_id = await saved_message(services)
    parts = await services.attachments.attach_to_message(message_id, [document, image])
    assert [(p.kind, p.name, p.ordinal) for p in parts] == [
        ("file", "报告.pdf", 0),
        ("image", "图.png", 1),
    ]
    assert parts[0].info["pages"] == [1, 2] and parts[1].info["image"]["width"] == 640
    assert await services.attachments.attachments([message_id]) == {message_id: parts}
    again = await services.attachments.load_document(parts[0])
    assert again.text == document.document.text
    assert len(stored_files(services)) == 2
    await services.attachments.release_message_media([message_id])
    await services.attachments.collect()
    assert stored_files(services) == []


async def test_same_file_twice_is_stored_once_and_held_twice(
    services: Services, report_pdf: Path
) -> None:
    first = await services.attachments.prepare(report_pdf)
    second = await services.attachments.prepare(report_pdf)
    assert first.sha256 == second.sha256 and first.pending_id != second.pending_id
    assert await services.media.ref_count(first.sha256) == 2
    await services.attachments.discard(first)
    assert stored_files(services) == [services.media.path(first.sha256)]
    await services.attachments.discard(second)
    assert stored_files(services) == []


CRASHING_COMPOSER = """
import asyncio, os, sys
from pathlib import Path
from mira_desktop.bootstrap import build_services

async def main():
    services = build_services(Path(sys.argv[1]))
    await services.attachments.prepare(Path(sys.argv[2]))
    os._exit(3)  # Mira dies before sending: no clean-up of its own

asyncio.run(main())
"""


async def test_pending_references_left_by_a_crash_are_collected(
    services: Services, report_pdf: Path, tmp_path: Path
) -> None:
    await services.attachments.prepare(report_pdf)  # this window's chip, kept
    report = await services.attachments.collect()
    assert report.expired_pending == 0 and len(stored_files(services)) == 1
    other = tmp_path / "notes.txt"
    other.write_text("a chip of a window that crashed", encoding="utf-8")
    crashed = subprocess.run(
        [sys.executable, "-c", CRASHING_COMPOSER, str(services.data_dir), str(other)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode == 3, crashed.stderr
    assert len(stored_files(services)) == 2
    # its process is gone: released at once, however young; this window's stays
    report = await services.attachments.collect()
    assert report.expired_pending == 1 and len(report.removed) == 1
    assert len(stored_files(services)) == 1
    # …even days later, with a command line collecting beside the window
    later = MediaStore(
        services.store.worker, services.data_dir / "media", clock=lambda: time.time() + 2 * DAY
    )
    report = await AttachmentService(later, services.settings).collect()
    assert report.expired_pending == 0 and len(stored_files(services)) == 1


async def test_pending_references_of_an_older_version_expire_after_a_day(
    services: Services, report_pdf: Path
) -> None:
    """Rows written before the owner was recorded: the day's rule."""
    unowned = MediaStore(services.store.worker, services.data_dir / "media")
    await AttachmentService(unowned, services.settings).prepare(report_pdf)
    assert (await services.attachments.collect()).expired_pending == 0
    later = MediaStore(
        services.store.worker, services.data_dir / "media", clock=lambda: time.time() + 2 * DAY
    )
    report = await AttachmentService(later, services.settings).collect()
    assert report.expired_pending == 1
    assert stored_files(services) == [] and len(report.removed) == 1


async def test_a_refused_file_stores_nothing(services: Services, tmp_path: Path) -> None:
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"definitely not a zip")
    with pytest.raises(ReaderError) as info:
        await services.attachments.prepare(broken)
    assert "Word document" in str(info.value)
    assert stored_files(services) == []


async def test_size_limit_comes_from_settings(services: Services, tmp_path: Path) -> None:
    sheet = make_xlsx(tmp_path / "数据.xlsx")
    await services.settings.set("attachments.max_mb", 0.001)
    with pytest.raises(ReaderError) as info:
        await services.attachments.prepare(sheet)
    assert "the limit is 1 KB" in str(info.value)
    await services.settings.set("attachments.max_mb", 8)
    prepared = await services.attachments.prepare(sheet)
    assert prepared.attachment.info["sheets"] == ["销售", "Notes"]


async def test_pasted_bytes_can_be_prepared(services: Services, tmp_path: Path) -> None:
    png = make_image(tmp_path / "x.png", "PNG", (300, 100)).read_bytes()
    prepared = await services.attachments.prepare_data(png, "clipboard.png")
    assert prepared.is_image and prepared.document.image is not None
    assert prepared.document.image.thumbnail_png.startswith(b"\x89PNG")


# the @ picker ------------------------------------------------------------------


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    files = [
        "README.md",
        "docs/设计说明.md",
        "docs/readme-old.txt",
        "src/app/main.py",
        "src/app/readers.py",
        ".git/config",
        ".hidden/readme.md",
        "node_modules/readme/index.js",
        "env/lib/readme.py",
        "build/readme.bin",
        "src/.secret-readme",
    ]
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name, encoding="utf-8")
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")  # a venv with any name
    return root


async def test_search_matches_paths_and_skips_hidden_and_ignored(workspace: Path) -> None:
    found = await search_workspace_files(workspace, "README")
    assert found == ["README.md", "docs/readme-old.txt"]
    assert await search_workspace_files(workspace, "设计") == ["docs/设计说明.md"]
    assert await search_workspace_files(workspace, "app/") == [
        "src/app/main.py",
        "src/app/readers.py",
    ]
    # no keyword (a bare @): the most recently changed files first
    for age, name in enumerate(["src/app/readers.py", "docs/设计说明.md", "README.md"]):
        os.utime(workspace / name, (1_700_000_000 - age * 60, 1_700_000_000 - age * 60))
    for name in ["docs/readme-old.txt", "src/app/main.py"]:
        os.utime(workspace / name, (1_600_000_000, 1_600_000_000))
    everything = await search_workspace_files(workspace, "", limit=100)
    assert everything == [
        "src/app/readers.py",
        "docs/设计说明.md",
        "README.md",
        "docs/readme-old.txt",  # the same time: by name
        "src/app/main.py",
    ]
    assert await search_workspace_files(workspace, "", limit=2) == everything[:2]


async def test_search_offers_audio_files_but_not_videos(tmp_path: Path) -> None:
    for name in ("standup.m4a", "standup.mov", "standup.zip", "standup notes.md"):
        (tmp_path / name).write_bytes(b"\0")
    found = await search_workspace_files(tmp_path, "standup")
    assert sorted(found) == ["standup notes.md", "standup.m4a"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
async def test_search_never_follows_links_out_of_the_root(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwords.txt").write_text("secret")
    (workspace / "linked-dir").symlink_to(outside, target_is_directory=True)
    (workspace / "passwords-link.txt").symlink_to(outside / "passwords.txt")
    (workspace / "inside-link.md").symlink_to(workspace / "README.md")
    assert await search_workspace_files(workspace, "passwords") == []
    assert await search_workspace_files(workspace, "inside") == ["inside-link.md"]
    with pytest.raises(ConfigError):
        resolve_workspace_file(workspace, "passwords-link.txt")
    with pytest.raises(ConfigError):
        resolve_workspace_file(workspace, "../outside/passwords.txt")
    assert resolve_workspace_file(workspace, "docs/设计说明.md").is_file()


async def test_a_picked_workspace_file_is_prepared(services: Services, workspace: Path) -> None:
    prepared = await services.attachments.prepare_workspace_file(workspace, "docs/设计说明.md")
    assert prepared.name == "设计说明.md" and prepared.document.text == "docs/设计说明.md"
    with pytest.raises(ConfigError):
        await services.attachments.prepare_workspace_file(workspace, "../../etc/passwd")


async def test_a_cancelled_read_stops_its_worker_thread(services: Services, tmp_path: Path) -> None:
    """A chip removed (or Ctrl+C) while its document is read: the read is
    cancelled, and its thread stops at the reader's next page instead of
    reading on alone for up to 30 s (one worker here: it must be free again
    soon). Before, the task ended and the thread went on to its time limit."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from tests.support.pdf_pages import pdf_with_pages, text_operators

    slow = tmp_path / "slow.pdf"  # ~1.5 s a page here: 30 pages outlast the 30 s limit
    slow.write_bytes(pdf_with_pages([None] * 30, text_operators(1)))
    pool = ThreadPoolExecutor(max_workers=1)
    asyncio.get_running_loop().set_default_executor(pool)
    reading = asyncio.create_task(services.attachments.prepare(slow))
    busy = asyncio.create_task(asyncio.sleep(0.8))
    await busy
    assert not reading.done()
    with pytest.raises(TimeoutError):  # the one worker is reading the pages
        await asyncio.wait_for(asyncio.shield(asyncio.to_thread(time.sleep, 0)), 0.3)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    started = time.monotonic()
    await asyncio.wait_for(asyncio.to_thread(time.sleep, 0), 10)
    assert time.monotonic() - started < 10
    assert stored_files(services) == []
