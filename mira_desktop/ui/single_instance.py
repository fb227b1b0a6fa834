"""One window per data folder: a second launch hands over to the first and exits.

Two window processes must never write one database at once (the CLI may: SQLite WAL
and ``BEGIN IMMEDIATE`` make that safe), and a second double-click, or files dropped
on the app icon, should bring the open window forward instead. Per data folder:

* a ``QLockFile`` (``window.lock`` in the data folder, stale only when its process is
  gone) decides who is *the* window — taken before anything opens the database;
* the window listens on a ``QLocalServer`` whose name is a hash of the user and the
  data folder's path, so two data folders run side by side (a stale socket file left
  by a crash is removed by the next lock holder before it listens);
* a later launch connects with ``QLocalSocket``, sends one JSON line and waits for
  the acknowledgement; protocol version 1::

      → {"cmd": "activate", "files": ["/abs/path", ...]}
      ← {"ok": true}            (or {"ok": false, "error": "..."})

The window raises itself on ``activation_requested`` and gets the files through
``files_received(list[str])``. ``--screenshot`` runs never take part in any of this.

Once the window begins to close (``set_closing``) it answers
``{"ok": false, "error": "closing"}``: its shut-down still holds the lock (the
answers stopped and saved, the database closed) but it will not show again.
A later launch told so keeps waiting for the lock, then opens its own window —
relaunching right after closing shows a window, instead of handing over to
one that is going away and exiting.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QLockFile, QObject, Signal
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QWidget

log = logging.getLogger(__name__)

LOCK_FILE = "window.lock"
MAX_LINE = 1 << 20  # 1 MiB: plenty for thousands of paths, bounded for a bad peer
HANDOVER_TIMEOUT_S = 10.0  # the window listens once it is built (after any migration)
CLOSING = "closing"  # the error of a window that is shutting down


def server_name(data_dir: Path) -> str:
    """The local socket name for ``data_dir``: the same user and folder give the same name."""
    try:
        user = getpass.getuser()
    except Exception:  # no login name anywhere (bare containers): fall back to the uid
        user = str(getattr(os, "getuid", lambda: "user")())
    key = f"{user}\0{Path(data_dir).expanduser().resolve()}"
    return "mira-desktop-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


def encode_message(files: list[str]) -> bytes:
    return json.dumps({"cmd": "activate", "files": files}).encode("utf-8") + b"\n"


def decode_message(line: bytes) -> tuple[str, list[str]]:
    """``(command, files)`` of one request line; raises ``ValueError`` on a bad one."""
    message = json.loads(line.decode("utf-8"))
    if not isinstance(message, dict) or not isinstance(message.get("cmd"), str):
        raise ValueError("not a command object")
    files = message.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise ValueError("'files' must be a list of strings")
    return message["cmd"], files


class SingleInstance(QObject):
    """The window's side (``acquire`` + ``listen``) and a later launch's side (``hand_over``)."""

    activation_requested = Signal()
    files_received = Signal(list)

    def __init__(self, data_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self.name = server_name(data_dir)
        self._lock = QLockFile(str(data_dir / LOCK_FILE))
        self._lock.setStaleLockTime(0)  # stale only when the holder's process has gone
        self._server: QLocalServer | None = None
        self._buffers: dict[int, bytearray] = {}  # unread bytes per connection (by id)
        self._held = False
        self._closing = False

    # ---- the first window -----------------------------------------------------------
    def acquire(self) -> bool:
        """Take the data folder's window lock (True when this object holds it
        already); False when another window holds it.

        Needs no QApplication, so a second launch can leave before building one."""
        if self._held:
            return True
        if self._lock.tryLock(0):
            self._held = True
            return True
        log.info("another window holds %s", self.data_dir / LOCK_FILE)
        return False

    def set_closing(self) -> None:
        """The window is closing: later launches are told so (they wait for
        the lock and open their own window) instead of activating it."""
        self._closing = True

    def listen(self) -> bool:
        """Accept later launches (call once the QApplication exists, after ``acquire``)."""
        QLocalServer.removeServer(self.name)  # a crashed window's socket file; we hold the lock
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            log.warning("cannot listen on %s: %s", self.name, server.errorString())
            return False
        server.newConnection.connect(self._accept)
        self._server = server
        log.info("listening for later launches on %s", server.fullServerName())
        return True

    def watch_file_open_events(self, app: QCoreApplication) -> None:
        """On macOS, files dropped on the Dock icon or opened with Mira from Finder reach
        the running app as ``QFileOpenEvent`` (the system keeps one instance itself):
        pass them on through ``files_received`` too. Elsewhere files come as arguments,
        so no application-wide filter (a Python call per event) is installed."""
        if sys.platform == "darwin":
            app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.FileOpen and isinstance(event, QFileOpenEvent):
            if event.file():
                log.info("the system asked the window to open %s", event.file())
                self.files_received.emit([event.file()])
                return True
        return super().eventFilter(watched, event)

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        self._lock.unlock()
        self._held = False

    def _accept(self) -> None:
        assert self._server is not None
        while (socket := self._server.nextPendingConnection()) is not None:
            key = id(socket)
            self._buffers[key] = bytearray()
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)
            socket.destroyed.connect(lambda *_, k=key: self._buffers.pop(k, None))

    def _read(self, socket: QLocalSocket) -> None:
        buffer = self._buffers.get(id(socket))
        if buffer is None:
            return
        buffer += bytes(socket.readAll().data())
        while (end := buffer.find(b"\n")) >= 0:
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            socket.write(self._answer(line))
            socket.flush()
        if len(buffer) > MAX_LINE:
            log.warning(
                "dropping a local connection that sent %d bytes without a newline", len(buffer)
            )
            socket.abort()

    def _answer(self, line: bytes) -> bytes:
        try:
            command, files = decode_message(line)
        except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError included
            log.warning("ignoring a bad message from a later launch: %s", exc)
            return _reply(False, "bad message")
        if command != "activate":
            log.warning("ignoring the unknown command %r from a later launch", command)
            return _reply(False, f"unknown command {command!r}")
        if self._closing:
            log.info("a later launch asked while the window closes: told to wait for it")
            return _reply(False, CLOSING)
        log.info("activated by a later launch with %d file(s): %s", len(files), files)
        self.activation_requested.emit()
        if files:
            self.files_received.emit(files)
        return _reply(True)

    # ---- a later launch ---------------------------------------------------------------
    def hand_over(self, files: list[str], timeout: float = HANDOVER_TIMEOUT_S) -> bool:
        """Ask the running window to come forward and take ``files``; True once it has
        acknowledged. Retries while the window is still starting (it takes the lock
        before it listens) or closing (it says so): False when the window went
        away meanwhile — this object then holds the lock (``acquire``) — or did
        not answer in time. Blocking; needs no QApplication."""
        deadline = time.monotonic() + timeout
        message = encode_message([str(Path(f).absolute()) for f in files])
        while True:
            if self._lock.tryLock(0):  # no window (any more): this launch is the window
                self._held = True
                log.info("the window on %s closed; this launch takes its place", self.data_dir)
                return False
            remaining_ms = int((deadline - time.monotonic()) * 1000)
            if remaining_ms <= 0:
                return False
            socket = QLocalSocket()
            socket.connectToServer(self.name)
            if socket.waitForConnected(min(remaining_ms, 1000)):
                try:
                    answer = _exchange(socket, message, deadline)
                finally:
                    socket.abort()
                if answer != CLOSING:
                    return answer == "ok"
            time.sleep(0.1)


def _exchange(socket: QLocalSocket, message: bytes, deadline: float) -> str:
    """The window's answer: ``"ok"``, ``CLOSING``, or ``"failed"`` (no answer
    in time, a refusal)."""
    socket.write(message)
    if not socket.waitForBytesWritten(max(1, int((deadline - time.monotonic()) * 1000))):
        return "failed"
    reply = bytearray()
    while b"\n" not in reply:
        remaining_ms = int((deadline - time.monotonic()) * 1000)
        if remaining_ms <= 0 or not socket.waitForReadyRead(remaining_ms):
            return "failed"
        reply += bytes(socket.readAll().data())
    try:
        answer = json.loads(bytes(reply[: reply.find(b"\n")]).decode("utf-8"))
    except ValueError:
        return "failed"
    if isinstance(answer, dict) and answer.get("ok") is True:
        return "ok"
    if isinstance(answer, dict) and answer.get("error") == CLOSING:
        return CLOSING
    log.warning("the running window refused the hand-over: %s", answer)
    return "failed"


def _reply(ok: bool, error: str = "") -> bytes:
    body: dict[str, object] = {"ok": ok}
    if error:
        body["error"] = error
    return json.dumps(body).encode("utf-8") + b"\n"


def bring_to_front(window: QWidget) -> None:
    """Show, un-minimise, raise and activate ``window`` (window managers may still only
    flash it in the task bar: focus-stealing prevention is theirs to decide)."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()
