"""A launch while the window shuts down (``ui/launch.py``, ``single_instance``).

Closing the window ends ``_main``, whose shut-down (tasks cancelled, the
database closed) still holds the data folder's window lock. A launch in
that moment used to be answered {"ok": true} by the closing window: it
raised a window that was going away, and the launch exited 0 — relaunching
right after closing showed nothing. The closing window now tells it so;
the launch waits for the lock and opens its own window.

The first window here is the real ``_main`` in this process (its window
shown, then closed); the later launch is a real child process running the
launch's hand-over."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from mira_desktop.ui import launch
from mira_desktop.ui.single_instance import SingleInstance
from tests.support.qt_async import until

REPO = Path(__file__).resolve().parents[2]
LATER_LAUNCH = (
    "import sys; from pathlib import Path\n"
    "from mira_desktop.ui.single_instance import SingleInstance\n"
    "instance = SingleInstance(Path(sys.argv[1]))\n"
    "handed = instance.hand_over([])\n"
    "print(handed, instance.acquire(), flush=True)\n"
    "instance.release()\n"
)


async def test_a_launch_while_the_window_closes_opens_its_own_window(
    data_dir: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # _main installs its own
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    quits = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)  # as run_window: closing ends _main, not the loop
    instance = SingleInstance(data_dir)
    assert instance.acquire()
    closing = asyncio.Event()
    args = argparse.Namespace(screenshot=None, gui_thread=None, theme="light", lang="en", files=[])
    main = asyncio.ensure_future(launch._main(app, args, data_dir, instance, closing))
    later: subprocess.Popen[str] | None = None
    try:
        await until(lambda: "listening for later launches" in caplog.text, timeout=20)
        launch._close(app, closing)  # as the close button
        assert await main == 0  # shut down; the lock is released after the loop ends
        later = subprocess.Popen(
            [sys.executable, "-c", LATER_LAUNCH, str(data_dir)],
            cwd=REPO,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
            stdout=subprocess.PIPE,
            text=True,
        )
        # it asks while the lock is still held, and is told to wait
        await until(lambda: "told to wait" in caplog.text, timeout=30)
        assert later.poll() is None
    except BaseException:
        if later is not None:
            later.kill()
            later.communicate()
        raise
    finally:
        if not main.done():
            closing.set()
            await main
        instance.release()  # the launch's end (run_window)
        app.setQuitOnLastWindowClosed(quits)
    assert later is not None
    await until(lambda: later.poll() is not None, timeout=30)
    out, _ = later.communicate()  # it has ended: closes its pipe
    assert out.split() == ["False", "True"] and later.returncode == 0
