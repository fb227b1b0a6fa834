"""One window per data folder: a later launch hands its files to the open window and
exits 0, two data folders run side by side, a crashed window's lock and socket do not
block the next start. The end-to-end tests run real ``mira-desktop`` processes
offscreen; the window says it is ready with its "listening" log line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from mira_desktop.ui.single_instance import (
    SingleInstance,
    decode_message,
    encode_message,
    server_name,
)

READY = "listening for later launches"
ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    return dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
        PYTHONPATH=str(ROOT),
    )


def _mira(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "mira_desktop", "--data-dir", str(data_dir), *args]


def _log(data_dir: Path) -> str:
    path = data_dir / "logs" / "mira.log"
    return path.read_text("utf-8") if path.is_file() else ""


def _wait_for_log(data_dir: Path, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        log = _log(data_dir)
        if text in log:
            return log
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared in the log:\n{_log(data_dir)}")


@pytest.fixture
def windows(tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.terminate()
    for process in started:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _open_window(data_dir: Path, cwd: Path, windows: list[subprocess.Popen[bytes]]) -> None:
    windows.append(
        subprocess.Popen(
            _mira(data_dir),
            cwd=cwd,
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    )


def test_a_second_launch_hands_its_files_to_the_open_window(
    tmp_path: Path, windows: list[subprocess.Popen[bytes]]
) -> None:
    data, other = tmp_path / "data", tmp_path / "other-data"
    _open_window(data, tmp_path, windows)
    _open_window(other, tmp_path, windows)  # another data folder: its own window
    _wait_for_log(data, READY)
    _wait_for_log(other, READY)
    (tmp_path / "notes.md").write_text("# notes\n")

    started = time.monotonic()
    second = subprocess.run(
        _mira(data, "notes.md"), cwd=tmp_path, env=_env(), capture_output=True, timeout=60
    )
    elapsed = time.monotonic() - started

    assert second.returncode == 0, second.stderr.decode()
    assert elapsed < 15
    expected = str(tmp_path / "notes.md")
    log = _wait_for_log(data, "prepared attachment notes.md")  # attached, as if dropped
    assert f"activated by a later launch with 1 file(s): [{expected!r}]" in log
    assert "handed 1 file(s) over to the window already open" in log
    assert log.count(READY) == 1  # the second launch never became a window
    assert "activated" not in _log(other)
    assert all(process.poll() is None for process in windows)  # both windows still open


def test_screenshot_runs_beside_an_open_window(
    tmp_path: Path, windows: list[subprocess.Popen[bytes]]
) -> None:
    data = tmp_path / "data"
    _open_window(data, tmp_path, windows)
    _wait_for_log(data, READY)
    shot = tmp_path / "shot.png"
    result = subprocess.run(
        _mira(data, "--screenshot", str(shot)), cwd=tmp_path, env=_env(), timeout=60
    )
    assert result.returncode == 0 and shot.stat().st_size > 0
    assert "activated" not in _log(data)


def test_a_crashed_window_does_not_block_the_next_one(qapp: object, tmp_path: Path) -> None:
    holder = (
        "import sys; from pathlib import Path\n"
        "from PySide6.QtCore import QCoreApplication\n"
        "from mira_desktop.ui.single_instance import SingleInstance\n"
        "app = QCoreApplication([])\n"
        "s = SingleInstance(Path(sys.argv[1]))\n"
        "assert s.acquire() and s.listen()\n"
        "print('ready', flush=True)\n"
        "app.exec()\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", holder, str(tmp_path)],
        env=_env(),
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None and process.stdout.readline().strip() == "ready"
            assert not SingleInstance(tmp_path).acquire()  # held by a live process
        finally:
            process.kill()  # no clean-up: the lock file (and on Unix the socket file) remain
    assert (tmp_path / "window.lock").exists()

    instance = SingleInstance(tmp_path)
    try:
        assert instance.acquire()
        assert instance.listen()
    finally:
        instance.release()


# PySide keeps the GIL in blocking socket calls, so the clients of the in-process
# window below run in child processes while the test spins the Qt event loop.
HAND_OVER = (
    "import sys; from pathlib import Path\n"
    "from mira_desktop.ui.single_instance import SingleInstance\n"
    "print(SingleInstance(Path(sys.argv[1])).hand_over(sys.argv[2:]))\n"
)
RAW_CLIENT = (
    "import sys\n"
    "from PySide6.QtNetwork import QLocalSocket\n"
    "socket = QLocalSocket(); socket.connectToServer(sys.argv[1])\n"
    "assert socket.waitForConnected(5000)\n"
    "for line in sys.argv[2:]:\n"
    "    socket.write(line.encode() + b'\\n'); socket.waitForBytesWritten(5000)\n"
    "    data = b''\n"
    "    while not data.endswith(b'\\n') and socket.waitForReadyRead(5000):\n"
    "        data += bytes(socket.readAll().data())\n"
    "    sys.stdout.write(data.decode())\n"
)


def _client(qtbot: QtBot, tmp_path: Path, *args: str) -> str:
    with subprocess.Popen(
        [sys.executable, "-c", *args],
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        qtbot.waitUntil(lambda: process.poll() is not None, timeout=20_000)
        assert process.stdout is not None
        out = process.stdout.read()
    assert process.returncode == 0
    return out


def test_hand_over_protocol_in_process(qtbot: QtBot, tmp_path: Path) -> None:
    window = SingleInstance(tmp_path)
    assert window.acquire() and window.listen()
    assert not SingleInstance(tmp_path).acquire()
    activations: list[bool] = []
    window.activation_requested.connect(lambda: activations.append(True))
    try:
        with qtbot.waitSignal(window.files_received, timeout=20_000) as received:
            out = _client(qtbot, tmp_path, HAND_OVER, str(tmp_path), "x.txt", "/abs/y z")
        assert out.strip() == "True"
        assert received.args == [[str(tmp_path / "x.txt"), "/abs/y z"]]
        assert activations == [True]
    finally:
        window.release()


def test_the_window_refuses_bad_messages(qtbot: QtBot, tmp_path: Path) -> None:
    window = SingleInstance(tmp_path)
    assert window.acquire() and window.listen()
    try:
        with qtbot.assertNotEmitted(window.activation_requested):
            out = _client(qtbot, tmp_path, RAW_CLIENT, window.name, "not json", '{"cmd": "rm"}')
        assert out.splitlines() == [
            '{"ok": false, "error": "bad message"}',
            '{"ok": false, "error": "unknown command \'rm\'"}',
        ]
    finally:
        window.release()


def test_a_closing_window_says_so_and_does_not_activate(qtbot: QtBot, tmp_path: Path) -> None:
    window = SingleInstance(tmp_path)
    assert window.acquire() and window.listen()
    window.set_closing()
    try:
        with qtbot.assertNotEmitted(window.activation_requested):
            line = '{"cmd": "activate", "files": []}'
            out = _client(qtbot, tmp_path, RAW_CLIENT, window.name, line)
        assert out.splitlines() == ['{"ok": false, "error": "closing"}']
    finally:
        window.release()


def test_server_name_is_per_data_folder(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert server_name(a) == server_name(tmp_path / "x" / ".." / "a")
    assert server_name(a) != server_name(b)
    assert server_name(a).startswith("mira-desktop-") and len(server_name(a)) < 50


def test_messages_round_trip_and_bad_ones_are_rejected() -> None:
    assert decode_message(encode_message(["/a", "/b c"]).rstrip(b"\n")) == (
        "activate",
        ["/a", "/b c"],
    )
    for bad in (b"[]", b'{"files": []}', b'{"cmd": "activate", "files": [1]}', b"\xff"):
        with pytest.raises(ValueError):
            decode_message(bad)


def test_file_open_events_become_received_files(qtbot: QtBot, tmp_path: Path) -> None:
    from PySide6.QtGui import QFileOpenEvent

    instance = SingleInstance(tmp_path)
    with qtbot.waitSignal(instance.files_received, timeout=1000) as received:
        assert instance.eventFilter(instance, QFileOpenEvent("/Users/me/notes.md"))
    assert received.args == [["/Users/me/notes.md"]]
