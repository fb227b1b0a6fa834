"""Starting the window: the QApplication, the qasync loop, theme and language,
start-up recovery, and the ``--screenshot`` mode that renders the window
offscreen to a PNG and exits (for docs, bug reports and checks).

Unexpected exceptions are written to the log file in the data folder and shown
as a short notice in the window — never a traceback dialog."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6 import QtCore
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from .. import startup_gc
from ..bootstrap import Services
from ..loop_signals import add_handler
from ..paths import data_dir_overridden, resource_path
from .controllers.event_loop import new_event_loop
from .i18n import install_translator
from .theme import apply_theme
from .window.main_window import MainWindow

if TYPE_CHECKING:
    from ..services.data_folder import FolderSwitch
    from .single_instance import SingleInstance

log = logging.getLogger(__name__)

SCREENSHOT_SIZE = (1280, 820)
#: How long the start-up chores wait after the window shows: its first frames,
#: the picker's bases and the context ring are not held up by maintenance.
CHORES_DELAY_S = 0.1
#: When the token counter's encoding is loaded (see ``start_token_warm_up``).
TOKENS_DELAY_S = 0.4
#: When the garbage collector, paused through the launch, collects once and
#: resumes (``startup_gc.settle``, ~16 ms): with the other deferred work,
#: once the first frames, the chores and the picker are done.
GC_SETTLE_DELAY_S = 0.4


def run_window(args: argparse.Namespace, data_dir: Path) -> int:
    screenshot = getattr(args, "screenshot", None)
    instance: SingleInstance | None = None
    switch: FolderSwitch | None = None
    if screenshot:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    else:  # one window per data folder: a later launch hands over before touching the DB
        from .single_instance import SingleInstance  # QtNetwork: not for --screenshot

        instance = SingleInstance(data_dir)
        if not instance.acquire():
            handed_over = _hand_over(instance, getattr(args, "files", None) or [], data_dir)
            if handed_over is not None:
                return handed_over
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    # Closing the window ends ``_main`` (``_until_closed``), which then shuts
    # down cleanly: tasks cancelled, chores awaited, the database closed. Qt's
    # own quit on the last window would stop the loop under it instead.
    app.setQuitOnLastWindowClosed(False)
    QCoreApplication.setApplicationName("Mira Desktop")
    QCoreApplication.setOrganizationName("Mira")
    app.setDesktopFileName("io.mira.Desktop")
    app.setWindowIcon(QIcon(str(resource_path("icons", "mira.svg"))))
    if instance is not None and not data_dir_overridden(getattr(args, "data_dir", None)):
        from .folder_switch import switch_at_start  # a copy shows its progress: after the app

        before = data_dir
        instance, data_dir, switch = switch_at_start(instance, data_dir)
        if data_dir != before and not instance.acquire():
            handed_over = _hand_over(instance, getattr(args, "files", None) or [], data_dir)
            if handed_over is not None:
                return handed_over
    loop = new_event_loop(app)
    asyncio.set_event_loop(loop)
    closing = asyncio.Event()
    try:
        main = loop.create_task(_main(app, args, data_dir, instance, closing, switch))
        return _run_to_end(app, loop, main, closing)
    finally:
        startup_gc.settle(collect=False)  # a launch that ends before it settled
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
        if instance is not None:
            instance.release()


def _run_to_end(
    app: QApplication,
    loop: asyncio.AbstractEventLoop,
    main: asyncio.Task[int],
    closing: asyncio.Event,
) -> int:
    """Run the loop until ``_main`` has returned, and return its exit code.

    Qt can end its loop under ``_main``: ``QApplication.quit()`` (the desktop
    session ending, say) returns from ``exec()`` at once. Then the launch
    closes as if the window were closed — the window's close, ``closing`` set
    — and the loop runs again, so the shut-down (tasks cancelled, answers
    stopped and saved, the database closed) awaits on a running loop.
    (qasync's ``run_until_complete`` is not used: after the loop stops it
    runs the pending callbacks once more with no loop running, where any task
    that awaits fails with "no running event loop".)"""
    main.add_done_callback(lambda _task: loop.stop())
    _close_on_signals(app, loop, closing)
    while True:
        loop.run_forever()
        if main.done():
            return main.result()
        log.info("Qt quit with the window open; shutting down as on a close")
        _close(app, closing)


def _close(app: QApplication, closing: asyncio.Event) -> None:
    """End the launch as the window's close button does: the window closed
    (its state saved), then ``_main``'s shut-down (``closing`` set)."""
    closing.set()
    for widget in app.topLevelWidgets():
        if isinstance(widget, MainWindow) and widget.isVisible():
            widget.close_without_asking()


def _close_on_signals(
    app: QApplication, loop: asyncio.AbstractEventLoop, closing: asyncio.Event
) -> None:
    """SIGTERM (``kill``, a system shutting down) and SIGINT (Ctrl+C in the
    terminal that started Mira) close the window and shut down cleanly, the
    answer in flight saved as stopped, instead of killing the process in the
    middle of it. A second signal ends the process at once (the signals'
    default action), for a shut-down that does not end. ``loop.close()``
    removes the handlers. Not on Windows, where asyncio has no signal
    handlers."""
    signals = (signal.SIGTERM, signal.SIGINT)

    def on_signal(name: str) -> None:
        log.info("%s received; shutting down as on a close", name)
        for sig in signals:
            loop.remove_signal_handler(sig)
            signal.signal(sig, signal.SIG_DFL)
        _close(app, closing)

    for sig in signals:
        add_handler(loop, sig, on_signal, sig.name)


def end_process(code: int) -> None:
    """End a finished ``--screenshot`` process without the interpreter's and Qt's
    teardown. ``run_window`` has returned: the database is closed (optimised and
    checkpointed by its worker, ``Services.aclose``), the loop and its executors
    are shut down and the PNG is written; what remains (collecting ~500 modules,
    deleting the window's widget tree and the QApplication) only frees memory and
    costs ~0.1 s. ``atexit`` handlers still run (``logging.shutdown`` flushes the
    log file), except PySide6's own (``QtCore.__moduleShutdown``), which is
    that teardown: it deletes the QApplication and with it every widget
    (~5 ms). Returns, for the normal exit, while another non-daemon thread
    still runs."""
    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        log.info("a thread is still running; exiting the usual way")
        return
    qt_teardown = getattr(QtCore, "__moduleShutdown", None)
    if callable(qt_teardown):
        atexit.unregister(qt_teardown)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # closed
            pass
    os._exit(code)


def _hand_over(instance: SingleInstance, files: list[str], data_dir: Path) -> int | None:
    """Exit code of a launch whose data folder already has a window; None when that
    window closed meanwhile (or was closing) and this launch took its place."""
    if instance.hand_over(files):
        log.info("handed %d file(s) over to the window already open on %s", len(files), data_dir)
        return 0
    if instance.acquire():
        return None
    message = (
        f"Mira Desktop is already open on {data_dir} but does not answer. Close it and "
        f"try again; if no Mira is running (on any computer sharing this folder), delete "
        f"{data_dir / 'window.lock'}."
    )
    log.error("%s", message)
    sys.stderr.write(message + "\n")
    return 1


def _serve_later_launches(instance: SingleInstance, window: MainWindow, files: list[str]) -> None:
    """Raise the window when Mira is launched again; the files a launch was
    given (``mira-desktop file.pdf``, the first launch's or a later one's, or
    files opened with Mira on macOS) are attached to the message being
    written, as if dropped on it: each read, or refused with its reason."""
    from .single_instance import bring_to_front

    def received(paths: list[str]) -> None:
        log.info("the window received %d file(s): %s", len(paths), paths)
        window.composer.files_chosen.emit(list(paths))

    app = QApplication.instance()
    instance.activation_requested.connect(lambda: bring_to_front(window))
    instance.files_received.connect(received)
    if isinstance(app, QApplication):  # closed: later launches open their own window
        app.lastWindowClosed.connect(instance.set_closing)
    instance.listen()
    if app is not None:  # always, with a window shown; ``instance()`` is typed optional
        instance.watch_file_open_events(app)
    if files:
        received([str(Path(f).absolute()) for f in files])


async def _main(
    app: QApplication,
    args: argparse.Namespace,
    data_dir: Path,
    instance: SingleInstance | None = None,
    closing: asyncio.Event | None = None,
    switch: FolderSwitch | None = None,
) -> int:
    """The launch: the window shown until it is closed (or ``closing`` is
    set), then its shut-down; the exit code. ``switch``: the data folder
    switch made at this start, told in a notice."""
    from .damaged_database import open_services

    opened, notice = await open_services(data_dir, interactive=not args.screenshot)
    if opened is None:
        return 1
    services = opened
    window: MainWindow | None = None
    try:
        await services.recover()  # interrupted answers become "stopped"
        window = await open_window(app, services, args)
        if switch is not None:
            from .folder_switch import switch_notice

            notice = " ".join(filter(None, (switch_notice(switch), notice)))
        if notice:
            window._show_notice(notice)
        if args.screenshot:
            return await take_screenshot(window, Path(args.screenshot), args.gui_thread)
        # The first frame is the loaded window, at its saved size: no empty frame
        # repainted a moment later, no jump to the saved geometry.
        await window.start(args.gui_thread)
        await window.state.restore()
        window.show()
        start_chores(window)
        start_token_warm_up(window)
        start_looking_for_ollama(window)
        asyncio.get_running_loop().call_later(GC_SETTLE_DELAY_S, startup_gc.settle)
        if instance is not None:
            _serve_later_launches(instance, window, getattr(args, "files", None) or [])
        await _until_closed(app, closing or asyncio.Event())
        return 0
    finally:
        if instance is not None:  # a launch from now on opens its own window
            instance.set_closing()
        if window is not None:  # its tasks (the chores too) end before the database
            await window.tasks.close()
            await window.thread_model.aclose()
        await services.aclose()


def start_chores(window: MainWindow) -> asyncio.Task[None]:
    """Start the start-up chores (``Services.startup_maintenance``: the trash's
    automatic purge, unused attachment files) ``CHORES_DELAY_S`` after the
    window shows its first content: their SQL and file work runs on the
    database thread, and the services they build (attachments, the document
    readers; ~15-20 ms of imports on the Qt thread) are not imported while the
    first frames are painted. The sidebar is reloaded when threads were purged."""

    async def chores() -> None:
        await asyncio.sleep(CHORES_DELAY_S)
        if await window.services.startup_maintenance():
            window.thread_model.refresh()

    return window.tasks.start(chores(), key="startup-chores")


def start_looking_for_ollama(window: MainWindow) -> None:
    """With no model server set up, look for Ollama ``CHORES_DELAY_S`` after
    the window shows (the probe imports the HTTP stack: not during the first
    frames)."""

    async def look() -> None:
        await asyncio.sleep(CHORES_DELAY_S)
        window.look_for_ollama()

    window.tasks.start(look(), key="look-for-ollama")


def start_token_warm_up(window: MainWindow, delay_s: float = TOKENS_DELAY_S) -> None:
    """Load the token counter's encoding ``delay_s`` after the window shows,
    in a worker thread. Counting needs it (the context meter, the usage of an
    answer the server did not count), and building tiktoken's BPE holds the
    GIL for ~180 ms: the Qt thread cannot run meanwhile, wherever the load
    runs. Done while the window settles, that pause is not the first send's
    or the first keystrokes' (it was: a 180-220 ms freeze at the end of the
    first answer)."""

    async def warm_up() -> None:
        await asyncio.sleep(delay_s)
        await asyncio.to_thread(window.services.tokens.load)

    window.tasks.start(warm_up(), key="token-warm-up")


async def open_window(
    app: QApplication, services: Services, args: argparse.Namespace
) -> MainWindow:
    """Build the main window with the saved (or given) theme and language."""
    settings = services.settings
    theme = args.theme or await settings.get("ui.theme")
    language = args.lang or await settings.get("ui.language")
    cache = services.data_dir / "cache"
    install_translator(app, language, cache_dir=cache)
    dark = apply_theme(app, theme)
    window = MainWindow(services)
    window.timeline.set_dark(dark)
    window.timeline.set_thinking_display(await settings.get("ui.thinking_display"))
    window.theme_requested.connect(lambda mode: window.timeline.set_dark(apply_theme(app, mode)))
    window.language_requested.connect(lambda lang: install_translator(app, lang, cache_dir=cache))
    _install_error_hooks(window)
    return window


async def take_screenshot(window: MainWindow, path: Path, thread_id: str | None) -> int:
    window.resize(*SCREENSHOT_SIZE)
    await window.start(thread_id)  # then shown once, loaded (as a normal launch)
    window.show()
    chores = start_chores(window)
    # Let layouts and the coalesced timeline settle (5 x 50 ms, as the benchmark's
    # bare window): qasync runs Qt's events during the sleeps. A nested
    # processEvents() here would run other tasks' wake-ups inside this task
    # ("Cannot enter into task ... while another task is being executed").
    try:
        for _ in range(5):
            await asyncio.sleep(0.05)
    finally:  # the picture shows the folder after its chores, never during them
        await asyncio.wait([chores])
    await window.thread_model.wait_idle()
    window.timeline.flush_stream()
    path.parent.mkdir(parents=True, exist_ok=True)
    ok = window.grab().save(str(path))
    if not ok:
        log.error("could not write the screenshot to %s", path)
        return 1
    return 0


async def _until_closed(app: QApplication, closing: asyncio.Event) -> None:
    app.lastWindowClosed.connect(closing.set)
    await closing.wait()


def _install_error_hooks(window: MainWindow) -> None:
    def excepthook(
        kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        log.error("unexpected error", exc_info=(kind, value, tb))
        window._on_task_error(value)

    sys.excepthook = excepthook

    def loop_handler(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        exc = context.get("exception")
        log.error(
            "unexpected error in the event loop: %s",
            context.get("message"),
            exc_info=exc if isinstance(exc, BaseException) else None,
        )
        if isinstance(exc, BaseException):
            window._on_task_error(exc)

    asyncio.get_event_loop().set_exception_handler(loop_handler)
