"""A data folder switch chosen in Settings is made by the window's next start,
end to end in a fresh interpreter (the program's own entry, no --data-dir):
the data are copied before any database opens — with what was written after
the choice — the window runs on the new folder and says so, and the choice
is remembered for later starts."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mira_desktop.bootstrap import build_services
from mira_desktop.paths import DATA_DIR_ENV, chosen_data_dir, default_data_dir
from tests.services.seed import make_thread

REPO = Path(__file__).resolve().parents[1]

SCRIPT = """
    import json, sys
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication
    from mira_desktop.app import main

    app = QApplication([])
    seen = {}

    def look(window):
        seen["data_dir"] = str(window.services.data_dir)
        seen["notice"] = window.notice_bar.text()
        window.close()

    class Watch(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Show and obj.objectName() == "MainWindow":
                if "shown" not in seen:
                    seen["shown"] = True
                    QTimer.singleShot(0, lambda: look(obj))
            return False

    watch = Watch()
    app.installEventFilter(watch)
    sys.argv = ["mira-desktop"]
    code = main()
    print(json.dumps({"code": code, **seen}))
"""


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The platform's data and configuration folders, in the test's own folder."""
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "share"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    return env


async def _choose(old: Path, target: Path) -> None:
    services = build_services(old)
    try:
        await make_thread(services, "Before the choice", ["hello"])
        await services.data_folder.change_to(target)
        await make_thread(services, "After the choice", ["still here"])
    finally:
        await services.aclose()


def test_the_next_start_copies_the_data_and_uses_the_new_folder(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    old = default_data_dir()
    target = tmp_path / "new place"
    asyncio.run(_choose(old, target))
    env = {
        **os.environ,
        **homes,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    env.pop(DATA_DIR_ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert state["code"] == 0 and state["data_dir"] == str(target.resolve())
    assert state["notice"].startswith(f"Your data were copied to {target.resolve()}")
    from mira_desktop.services.data_folder import read_switch

    assert chosen_data_dir() == target.resolve() and read_switch() is None
    with sqlite3.connect(target / "mira.sqlite3") as conn:
        titles = sorted(row[0] for row in conn.execute("SELECT title FROM threads"))
    assert titles == ["After the choice", "Before the choice"]
    assert (old / "mira.sqlite3").is_file()  # kept as it was
