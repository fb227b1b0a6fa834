"""A normal window launch, end to end in a fresh interpreter: the program's own
entry (``main()`` without ``argv``) on a data folder with one provider (the
loopback server), a question sent, and the window closed, as a person closes
it, while the answer is still streaming.

Closing must run the launch's clean shut-down (the answer stopped and saved
with its text, tasks cancelled, chores awaited, the database closed) and exit
0. Qt's automatic quit on the last window used to stop the event loop under
it: exit code 1 and "Event loop stopped before Future completed" in the log
on every close, with the launch's own shut-down skipped (the answer in this
test was still saved, by the loop's teardown cancelling its task). The same
launch checks the garbage collector's start-up pause (``startup_gc``).

The same again with ``QApplication.quit()`` instead of the close: Qt returns
from its loop at once, and the launch must still shut down as on a close (it
used to stop under ``_main``: exit 1, the shut-down skipped). And with SIGTERM,
which used to end the process on the spot."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import build_services
from mira_desktop.core.models import MessageStatus
from tests.support.loopback import LoopbackServer
from tests.support.replies import Hang, raw_stream

CHAT = "/v1/chat/completions"
REPO = Path(__file__).resolve().parents[1]

SCRIPT = """
    import gc, json, os, signal, sys, time
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication
    from mira_desktop.app import main
    from mira_desktop.ui.launch import GC_SETTLE_DELAY_S

    app = QApplication([])
    seen = {}

    def step(window, shown_at):
        texts = [window.timeline.message_text(i) for i in window.timeline.message_ids()]
        settled = time.monotonic() - shown_at > GC_SETTLE_DELAY_S + 0.5
        if "Partial words" in texts and settled:
            seen["running"] = window.composer.is_running()
            seen["settled"] = [gc.isenabled(), gc.get_freeze_count() > 1000]
            if ACTION == "quit":  # as the desktop session ending, mid-answer
                QApplication.quit()
            elif ACTION == "term":  # as `kill` or a system shutting down
                os.kill(os.getpid(), signal.SIGTERM)
            else:
                window.close()  # as the close button, mid-answer
        else:
            QTimer.singleShot(50, lambda: step(window, shown_at))

    def ask(window):
        window.composer.set_text("Write a long essay")
        window.composer.send_requested.emit(window.composer.text())
        step(window, time.monotonic())

    class Watch(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Show and obj.objectName() == "MainWindow":
                if "shown" not in seen:
                    seen["shown"] = gc.isenabled()
                    QTimer.singleShot(200, lambda: ask(obj))
            return False

    watch = Watch()
    app.installEventFilter(watch)
    sys.argv = ["mira-desktop", "--data-dir", DATA]
    code = main()
    print(json.dumps({"code": code, **seen, "after": gc.isenabled()}))
"""


def _delta(text: str) -> str:
    return "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}) + "\n"


async def _prepare(data: Path, url: str) -> None:
    services = build_services(data)
    await services.providers.add_provider("Local", "openai", url + "/v1")
    await services.store.save_listed_models("Local", ["m1"])
    await services.settings.set("chat.last_model", {"provider": "Local", "model": "m1"})
    await services.settings.set("chat.auto_title", False)
    await services.aclose()


async def _last_message(data: Path) -> tuple[MessageStatus, str, int]:
    services = build_services(data)
    try:
        threads = await services.store.list_threads()
        messages = await services.threads.get_active_messages(threads[0].id)
        return messages[-1].status, messages[-1].text, len(threads)
    finally:
        await services.aclose()


@pytest.fixture(
    scope="module",
    params=[
        "close",
        "quit",
        pytest.param(
            "term",
            marks=pytest.mark.skipif(
                sys.platform == "win32", reason="no SIGTERM handler on Windows"
            ),
        ),
    ],
)
def closed_launch(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[dict[str, Any]]:
    """The launch, ended mid-answer by closing the window, by
    ``QApplication.quit()`` (what a desktop session ending does) or by SIGTERM
    (``kill``, a system shutting down)."""
    data = tmp_path_factory.mktemp("launch") / "data"
    with LoopbackServer() as loopback:
        asyncio.run(_prepare(data, loopback.url))
        loopback.enqueue(CHAT, raw_stream([_delta("Partial "), _delta("words"), Hang()]))
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                f"DATA = {str(data)!r}\nACTION = {request.param!r}\n" + textwrap.dedent(SCRIPT),
            ],
            cwd=REPO,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        disconnected = loopback.wait_for_disconnect(timeout=2)
    log = "".join(p.read_text(encoding="utf-8") for p in (data / "logs").glob("*.log"))
    lines = done.stdout.strip().splitlines()
    yield {
        "rc": done.returncode,
        "stderr": done.stderr,
        "log": log,
        "state": json.loads(lines[-1]) if lines else {},
        "data": data,
        "disconnected": disconnected,
    }


def test_closing_the_window_shuts_down_cleanly(closed_launch: dict[str, Any]) -> None:
    assert closed_launch["rc"] == 0, closed_launch["stderr"][-2000:] + closed_launch["log"][-2000:]
    assert closed_launch["state"]["code"] == 0
    assert "ERROR" not in closed_launch["log"], closed_launch["log"][-2000:]
    db = closed_launch["data"] / "mira.sqlite3"
    assert not db.with_name(db.name + "-wal").exists()  # closed, checkpointed
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_closing_mid_answer_stops_and_keeps_the_answer(closed_launch: dict[str, Any]) -> None:
    """Saved as stopped, with its text, before the process ends (the next
    start's recovery is not needed); the request was cut."""
    assert closed_launch["state"]["running"] is True  # closed while streaming
    status, text, threads = asyncio.run(_last_message(closed_launch["data"]))
    assert (status, text, threads) == (MessageStatus.STOPPED, "Partial words", 1)
    assert closed_launch["disconnected"]


def test_the_launch_runs_without_the_collector_until_it_has_settled(
    closed_launch: dict[str, Any],
) -> None:
    """No collection while the window is built and first shown;
    ``GC_SETTLE_DELAY_S`` later one collection, start-up's objects frozen and
    the collector back on."""
    state = closed_launch["state"]
    assert state["shown"] is False
    assert state["settled"] == [True, True]
    assert state["after"] is True
