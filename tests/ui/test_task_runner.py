"""``TaskRunner``: tasks kept, cancelled by key, failures reported; once closed
(the window closing) nothing new runs."""

from __future__ import annotations

import asyncio

from mira_desktop.ui.controllers.tasks import TaskRunner


async def test_a_failure_is_reported_and_a_key_cancels_its_task() -> None:
    errors: list[BaseException] = []
    runner = TaskRunner(on_error=errors.append)

    async def fail() -> None:
        raise ValueError("boom")

    async def wait() -> None:
        await asyncio.sleep(10)

    failing = runner.start(fail())
    waiting = runner.start(wait(), key="w")
    await asyncio.wait([failing])
    assert [str(e) for e in errors] == ["boom"]
    assert runner.cancel("w") and not runner.cancel("w-unknown")
    await asyncio.wait([waiting])
    assert waiting.cancelled() and runner.pending() == 0 and runner.get("w") is None


async def test_after_close_a_started_task_never_runs() -> None:
    ran: list[str] = []
    runner = TaskRunner()

    async def work(name: str) -> None:
        ran.append(name)
        await asyncio.sleep(10)

    first = runner.start(work("before"), key="k")
    await asyncio.sleep(0)
    await runner.close()
    assert first.cancelled() and runner.closed
    late = runner.start(work("after"), key="k")
    await asyncio.wait([late])
    assert late.cancelled() and ran == ["before"] and runner.pending() == 0
