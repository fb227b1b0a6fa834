"""Listeners of a service: callbacks told after each change it made.

A dialog that starts a change may be closed (and deleted) before the change
finishes; a signal of the dialog then has no one left to emit it. The service
that made the change outlives every dialog, so the window listens to it and
hears of each change, wherever it was started (:class:`Listeners`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class Listeners:
    """``add_listener(callback)`` / ``remove_listener(callback)``; the service
    calls :meth:`announce` once a change is stored (what the arguments are is
    the service's to say). A listener that fails is logged, the others still
    run."""

    def __init__(self) -> None:
        self._listeners: list[Callable[..., None]] = []

    def add_listener(self, callback: Callable[..., None]) -> None:
        self._listeners.append(callback)

    def remove_listener(self, callback: Callable[..., None]) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    def announce(self, *args: Any) -> None:
        for listener in list(self._listeners):
            try:
                listener(*args)
            except Exception:
                log.exception("a listener of %s failed", type(self).__name__)
