"""Ending a test's MainWindow as the app ends it (``ui/launch.py``): its tasks
cancelled, then the history list's loads, so no count asked as the test ended
is left for the loop to drop unrun (a "coroutine was never awaited" warning
that fails whichever test the worker runs next)."""

from __future__ import annotations

from mira_desktop.ui.window.main_window import MainWindow


async def close_window(window: MainWindow) -> None:
    await window.tasks.cancel_all()
    await window.thread_model.aclose()
