"""GUI tests run offscreen, every ``async def`` test on a qasync loop (the pattern of
tech-notes §4): blocking ``qtbot.wait*`` must not be used inside async tests."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.ui.controllers.event_loop import new_event_loop
from mira_desktop.ui.window.main_window import MainWindow
from tests.support.loopback import LoopbackServer


def _test_loop() -> qasync.QEventLoop:
    """A fresh qasync loop per test whose ``close()`` also frees its timer object.

    qasync's ``close()`` only flags its ``_SimpleTimer`` QObject as stopped: Qt
    timers of pending ``call_later`` handles stay registered. When the garbage
    collector later frees that object from another thread (the database worker,
    the loopback server), Qt cannot unregister them, and its next timer pass
    delivers an event to freed memory (a segfault in a later test). Deleting the
    object here, on the GUI thread, unregisters them.

    Likewise its ``call_soon_threadsafe`` signaller: a worker thread that
    finished just before ``close()`` leaves a queued signal that Qt would still
    deliver later, calling ``call_soon`` on the closed loop and its deleted
    timer ("_SimpleTimer already deleted" in the next test's event processing).
    Deleting the signaller drops such queued calls with it; later emits do not
    happen, since asyncio checks ``is_closed()`` before ``call_soon_threadsafe``."""
    loop = new_event_loop(QApplication.instance() or QApplication([]))
    close = loop.close

    def close_and_free_timers() -> None:
        close()
        for name in ("_QEventLoop__call_soon_signaller", "_timer"):
            qobject = getattr(loop, name, None)
            if qobject is not None and shiboken6.isValid(qobject):
                shiboken6.delete(qobject)

    loop.close = close_and_free_timers  # type: ignore[method-assign]
    return loop


def pytest_asyncio_loop_factories(config, item):  # type: ignore[no-untyped-def]
    return {"qasync": _test_loop}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)


@pytest.fixture
async def services(data_dir: Path, loopback: LoopbackServer) -> AsyncIterator[Services]:
    """Services on a fresh data folder with one provider ("Local", models m1 and m2)
    pointing at the loopback server; a test file may override it."""
    built = build_services(data_dir)
    await built.providers.add_provider("Local", "openai", loopback.url + "/v1")
    await built.store.save_listed_models("Local", ["m1", "m2"])
    await built.settings.set("chat.last_model", {"provider": "Local", "model": "m1"})
    # automatic titles would ask the model too, taking replies queued for the tests
    await built.settings.set("chat.auto_title", False)
    yield built
    await built.aclose()


@pytest.fixture
async def window(qtbot: Any, services: Services) -> AsyncIterator[MainWindow]:
    """The real MainWindow on the test's qasync loop, started and shown."""
    win = MainWindow(services)
    # qtbot closes it after the test: as the system would, or answers a test
    # left unsaved would ask, modally, forever
    qtbot.addWidget(win, before_close_func=lambda w: w.close_without_asking())
    win.show()
    await win.start()
    yield win
    await win.tasks.cancel_all()
    await win.thread_model.aclose()  # a count asked as the test ended


@pytest.fixture
def themed_app(qapp: QApplication) -> Iterator[QApplication]:
    """The application, its palette, style sheet, font, style and colour
    scheme put back after the test (a test that applies a theme)."""
    palette, sheet, font, style = (
        qapp.palette(),
        qapp.styleSheet(),
        qapp.font(),
        qapp.style().name(),
    )
    yield qapp
    qapp.setStyleSheet(sheet)
    qapp.setPalette(palette)
    qapp.setFont(font)
    qapp.setStyle(style)
    qapp.styleHints().setColorScheme(Qt.ColorScheme.Unknown)


@pytest.fixture(autouse=True)
def _formats_locale_restored() -> Iterator[None]:
    """``install_translator`` sets the default ``QLocale`` (dates, numbers): each
    test starts from the suite's, whatever the tests before it installed."""
    before = QLocale()
    yield
    QLocale.setDefault(before)
