"""The sidebar's pages read by key (``HistoryService.list_threads_after``) on
a real data folder: page after page gives each view in the order of
``list_threads`` — pins by pin order, threads of the same minute, the archive
and the trash — and a row the CLI (a real subprocess) trashes or purges
meanwhile shifts nothing: the next page starts right after the last row shown."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mira_desktop.bootstrap import Services
from mira_desktop.core.models import Thread
from tests.cli.test_cli import cli

from .seed import execute, make_thread


async def pages(services: Services, size: int, view: str = "active") -> list[list[str]]:
    found: list[list[str]] = []
    after: Thread | None = None
    while True:
        page = await services.history.list_threads_after(after, size, view=view)
        found.append([t.title for t in page])
        if len(page) < size:
            return found
        after = page[-1]


async def test_pages_by_key_follow_each_views_order(services: Services) -> None:
    for n in range(12):  # four threads to a minute: ties broken as list_threads does
        thread = await make_thread(services, f"t{n:02d}")
        stamp = f"2026-05-0{1 + n // 4}T10:00:00.000Z"
        await execute(services, "UPDATE threads SET updated_at = ? WHERE id = ?", stamp, thread.id)
    titles = {t.title: t.id for t in await services.history.list_threads(0, 100)}
    for title in ("t03", "t07", "t01"):
        await services.history.pin(titles[title])
    for title in ("t10", "t05"):
        await services.history.archive(titles[title])
    for title in ("t11", "t04", "t09"):
        await services.history.trash(titles[title])
    for view in ("active", "archived", "trash"):
        listed = [t.title for t in await services.history.list_threads(0, 100, view=view)]
        for size in (1, 2, 3, 100):
            found = await pages(services, size, view)
            assert [title for page in found for title in page] == listed, (view, size)
    active = [t.title for t in await services.history.list_threads(0, 100)]
    assert active[:3] == ["t03", "t07", "t01"] and len(active) == 7


async def test_a_row_trashed_or_purged_elsewhere_skips_nothing(
    services: Services, data_dir: Path
) -> None:
    start = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    made = [
        await make_thread(services, f"t{n:02d}", at=start + timedelta(minutes=n)) for n in range(10)
    ]
    first = await services.history.list_threads_after(None, 4)
    shown = [t.title for t in first]
    assert shown == ["t09", "t08", "t07", "t06"]
    for args in (("thread", "trash", made[8].id), ("thread", "purge", made[6].id, "--force")):
        result = await asyncio.to_thread(cli, data_dir, *args)
        assert result.returncode == 0, result.stderr
    # the page after "t06" (purged since, as listed) starts with "t05"
    second = await services.history.list_threads_after(first[-1], 4)
    assert [t.title for t in second] == ["t05", "t04", "t03", "t02"]
    by_offset = await services.history.list_threads(4, 4)  # what OFFSET paging gave
    assert [t.title for t in by_offset] == ["t03", "t02", "t01", "t00"]  # "t05", "t04" lost
