"""Batch export to a ZIP (PRODUCT.md §8, §9): one file per thread in the chosen
format, progress reported, cancellation (a token or the task) leaves no ZIP,
an error leaves no ZIP, and 1,000 threads export in reasonable time."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import zipfile
from pathlib import Path

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.errors import ConfigError, NotFoundError
from mira_desktop.core.models import Thread
from mira_desktop.core.transfer import ThreadSnapshot
from mira_desktop.services.export import ExportProgress
from mira_desktop.services.export.zip_export import write_zip

from .bulk import seed_threads
from .sample import build_sample


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """An empty folder for the archives (the data folder is in tmp_path too)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return archive.namelist()


@pytest.mark.parametrize("inner", ["md", "html", "json"])
async def test_one_file_per_thread_in_the_chosen_format(
    services: Services, out: Path, inner: str
) -> None:
    one = await build_sample(services, "Same title")
    two = await build_sample(services, "Same title")
    three = await build_sample(services, "列表/推导式")
    target = out / "out.zip"
    ids = [one.thread_id, two.thread_id, three.thread_id]
    result = await services.exports.export_zip(ids, target, inner=inner)
    assert result.path == target and result.exported == 3 and not result.cancelled
    everything = names(target)
    entries = [e for e in everything if not e.startswith("attachments/")]
    # the three threads share one attachment's content: its file is in once
    [attachment] = [e for e in everything if e.startswith("attachments/")]
    assert attachment == f"attachments/{one.attachment_sha[:12]}-notes.txt"
    assert result.attachments == 1 and result.to_dict()["attachments"] == 1
    with zipfile.ZipFile(target) as archive:
        assert archive.read(attachment) == b"notes about lists\n"
    assert len(entries) == 3 and len(set(entries)) == 3
    assert all(e.endswith(f".{inner}") and "/" not in e for e in entries)
    assert entries[2].startswith("列表-推导式-")
    with zipfile.ZipFile(target) as archive:
        first = archive.read(entries[0]).decode("utf-8")
    if inner == "json":
        assert json.loads(first)["thread"]["id"] == one.thread_id
    elif inner == "html":
        assert first.startswith("<!DOCTYPE html>") and "Same title" in first
    else:
        assert first.startswith("# Same title")
    assert [p.name for p in out.iterdir()] == ["out.zip"]  # no part file left


async def test_progress_arrives_on_the_loop_thread(services: Services, out: Path) -> None:
    ids = await seed_threads(services, 120, messages=2)
    events: list[ExportProgress] = []
    threads: set[int] = set()

    def seen(event: ExportProgress) -> None:
        events.append(event)
        threads.add(threading.get_ident())

    await services.exports.export_zip(ids, out / "p.zip", progress=seen)
    await asyncio.sleep(0)  # the last call_soon_threadsafe callback
    assert [(e.done, e.total) for e in events] == [(n, 120) for n in range(1, 121)]
    assert threads == {threading.get_ident()}
    assert events[0].title.startswith("Thread ")


async def test_a_cancel_token_leaves_no_zip(services: Services, out: Path) -> None:
    ids = await seed_threads(services, 400, messages=2)
    cancel = threading.Event()
    target = out / "cancelled.zip"

    def stop_early(event: ExportProgress) -> None:
        if event.done >= 3:
            cancel.set()

    result = await services.exports.export_zip(ids, target, progress=stop_early, cancel=cancel)
    assert result.cancelled and result.path is None and result.exported < 400
    assert list(out.iterdir()) == []


async def test_cancelling_the_task_leaves_no_zip(services: Services, out: Path) -> None:
    ids = await seed_threads(services, 400, messages=4)
    started = asyncio.Event()
    task = asyncio.create_task(
        services.exports.export_zip(
            ids, out / "x.zip", inner="html", progress=lambda e: started.set()
        )
    )
    await asyncio.wait_for(started.wait(), 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert list(out.iterdir()) == []  # the job stopped and removed its part file


def _snapshot(title: str) -> ThreadSnapshot:
    return ThreadSnapshot(
        Thread(id=f"id-{title}", title=title, workspace_id="w", created_at="", updated_at="")
    )


def test_an_error_mid_way_leaves_no_zip_and_keeps_an_old_one(tmp_path: Path) -> None:
    target = tmp_path / "keep.zip"
    target.write_bytes(b"the previous export")

    def render(snapshot: ThreadSnapshot) -> str:
        if snapshot.thread.title == "t3":
            raise RuntimeError("disk on fire")
        return snapshot.thread.title

    with pytest.raises(RuntimeError):
        write_zip(
            target,
            [f"t{n}" for n in range(6)],
            lambda ids: [_snapshot(i) for i in ids],
            render,
            "md",
            batch=2,
        )
    assert [p.name for p in tmp_path.iterdir()] == ["keep.zip"]
    assert target.read_bytes() == b"the previous export"


def test_cancel_is_checked_between_threads(tmp_path: Path) -> None:
    calls: list[int] = []
    result = write_zip(
        tmp_path / "c.zip",
        [f"t{n}" for n in range(10)],
        lambda ids: [_snapshot(i) for i in ids],
        lambda s: s.thread.title,
        "md",
        progress=lambda e: calls.append(e.done),
        cancelled=lambda: len(calls) >= 4,
        batch=3,
    )
    assert result.cancelled and result.exported == 4 and calls == [1, 2, 3, 4]
    assert list(tmp_path.iterdir()) == []


async def test_bad_requests(services: Services, out: Path) -> None:
    with pytest.raises(ConfigError, match="nothing to export"):
        await services.exports.export_zip([], out / "x.zip")
    with pytest.raises(NotFoundError, match="No thread with id nope"):
        await services.exports.export_zip(["nope"], out / "x.zip")
    with pytest.raises(ConfigError, match="Unknown export format"):
        await services.exports.export_zip(["nope"], out / "x.zip", inner="pdf")
    assert list(out.iterdir()) == []


async def test_1000_threads_as_markdown(services: Services, out: Path) -> None:
    ids = await seed_threads(services, 1000)  # 10,000 messages
    started = time.perf_counter()
    result = await services.exports.export_zip(ids, out / "all.zip")
    seconds = time.perf_counter() - started
    print(f"\n1,000 threads / 10,000 messages → Markdown ZIP in {seconds:.2f} s")
    assert result.exported == 1000 and len(set(names(out / "all.zip"))) == 1000
    assert seconds < 10


@pytest.mark.slow
async def test_1000_threads_as_html(services: Services, out: Path) -> None:
    ids = await seed_threads(services, 1000)
    started = time.perf_counter()
    result = await services.exports.export_zip(ids, out / "all.zip", inner="html")
    seconds = time.perf_counter() - started
    print(f"\n1,000 threads / 10,000 messages → HTML ZIP in {seconds:.2f} s")
    assert result.exported == 1000
    assert seconds < 30


async def test_an_attachment_whose_file_is_gone_is_left_out(services: Services, out: Path) -> None:
    sample = await build_sample(services, "Lost file")
    stored = services.data_dir / "media" / sample.attachment_sha[:2] / sample.attachment_sha
    stored.unlink()
    result = await services.exports.export_zip([sample.thread_id], out / "lost.zip")
    assert result.attachments == 0
    assert [e for e in names(out / "lost.zip") if e.startswith("attachments/")] == []
