"""The window's listeners on its services (``Listeners`` of ``services/listeners.py``).

A dialog opened with ``WA_DeleteOnClose`` is deleted as soon as it is closed,
also while a change it started is still being stored; a signal of the dialog
then never comes. So the window hears of changes from the service that made
them — it outlives every dialog — and follows each one, wherever started
(a dialog, closed or not; the window itself). Services built on first use are
listened to from the moment they exist; every listener is removed when the
window closes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...bootstrap import Services


class ServiceListeners:
    def __init__(self, services: Services) -> None:
        self._services = services
        self._listening: list[tuple[str, Callable[..., None]]] = []

    def listen(self, service: str, callback: Callable[..., None]) -> None:
        """``callback(...)`` after each change ``service`` announces."""
        self._listening.append((service, callback))
        self._services.on_built(service, lambda s: s.add_listener(callback))

    def stop(self) -> None:
        """No more calls (the window closes)."""
        built: dict[str, Any] = self._services.built
        for service, callback in self._listening:
            if service in built:
                built[service].remove_listener(callback)
        self._listening.clear()
