"""A cheaper form of the check PySide6 makes on every module imported after it.

PySide6's import hook (``shibokensupport.feature``, PYSIDE-2029) records for
each newly imported module whether its source mentions "PySide6", for its
``__feature__`` switching (``snake_case``, ``true_property``; Mira uses
neither). It reads the source with ``inspect.getsource``: linecache, encoding
detection and a list of lines per module, ~0.17 ms each, ~25 ms for the ~150
modules the window imports before its first frame. :func:`install` makes the
same test on the file's bytes (~0.02 ms); modules without a ``.py`` file are
left to PySide6's own check, and a PySide6 without that hook is left alone."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

_MARK = "_mira_bytes_check"


def install() -> bool:
    """Load PySide6 and replace its per-module source check (once). False when
    this PySide6 has no such check."""
    import PySide6  # noqa: F401  (loads shiboken6 and its import hook)

    feature = sys.modules.get("shibokensupport.feature")
    original: Callable[[ModuleType], bool] | None = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or original is None or not callable(original):
        return False
    if getattr(original, _MARK, False):
        return True
    feature._mod_uses_pyside = _bytes_check(original)  # type: ignore[attr-defined]
    return True


def _bytes_check(original: Callable[[ModuleType], bool]) -> Callable[[ModuleType], bool]:
    def mod_uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            return original(module)

    setattr(mod_uses_pyside, _MARK, True)
    mod_uses_pyside.__wrapped__ = original  # type: ignore[attr-defined]
    return mod_uses_pyside
