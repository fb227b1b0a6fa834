"""The compiled methods of dataclasses, kept between runs (both front ends).

Defining a dataclass compiles its generated methods from source text
(``__init__``, ``__repr__``, ``__eq__``, and for frozen ones ``__hash__``,
``__setattr__``, ``__delattr__``): ~0.1 ms each, 30-45 ms for the ~45
dataclasses a window launch defines, about half of what defining them costs.
The text is the same on every run, so :func:`install` (called by ``app.main``
before the modules defining them are imported) hands ``dataclasses`` the code
compiled by an earlier run for the same text; ``dataclasses`` builds the
functions from it as it would from the text.

The code objects live in a ``marshal`` file beside the package's byte code (as
``.pyc`` files: same place, same trust, same Python version), written at exit
when the run compiled new methods, unless byte code writing is off."""

from __future__ import annotations

import atexit
import importlib.util
import logging
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

log = logging.getLogger(__name__)

#: Entries kept at most (a file that grew past it keeps only this run's).
MAX_ENTRIES = 2000


class CodeCache:
    """Compiled code by source text, loaded from and saved to ``path``. The
    file maps each text to its code's ``marshal`` bytes, so loading it costs
    little more than reading it (~0.3 ms for the ~300 entries of a window
    launch); a code object is read when its text comes up."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.saved: dict[str, bytes] = _load(path)
        self.used: dict[str, bytes] = {}
        self.compiled = 0

    def code(self, source: str) -> CodeType:
        data = self.saved.get(source)
        if data is not None:
            try:
                code = marshal.loads(data)
            except (EOFError, ValueError, TypeError):
                code = None
            if type(code) is CodeType:
                self.used[source] = data
                return code
        code = compile(source, "<string>", "exec")
        self.compiled += 1
        self.used[source] = marshal.dumps(code)
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """``exec`` for ``dataclasses``: source text runs as its cached code."""
        if type(source) is str:
            source = self.code(source)
        exec(source, globals, locals)

    def save(self) -> None:
        """Write the entries (when this run compiled new ones); never raises."""
        if not self.compiled or sys.dont_write_bytecode:
            return
        entries = {**self.saved, **self.used}
        if len(entries) > MAX_ENTRIES:
            entries = dict(self.used)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
            partial.write_bytes(importlib.util.MAGIC_NUMBER + marshal.dumps(entries))
            os.replace(partial, self.path)
        except (OSError, ValueError) as exc:
            log.debug("dataclass code not cached: %s", exc)


def _load(path: Path) -> dict[str, bytes]:
    magic = importlib.util.MAGIC_NUMBER
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    try:
        entries = marshal.loads(data[len(magic) :]) if data.startswith(magic) else None
    except (EOFError, ValueError, TypeError):
        entries = None
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if type(k) is str and type(v) is bytes}


def default_path() -> Path:
    """Beside the package's byte code (``sys.pycache_prefix`` respected)."""
    here = Path(__file__).resolve().parent
    tag = sys.implementation.cache_tag
    if tag is None:  # no byte code caching on this Python
        return here / "__pycache__" / "dataclass-methods.marshal"
    pyc = Path(importlib.util.cache_from_source(str(here / "__init__.py")))
    return pyc.parent / f"dataclass-methods.{tag}.marshal"


def install(path: Path | None = None) -> CodeCache | None:
    """Make ``dataclasses`` compile through a :class:`CodeCache` (once per
    process; the first cache stays). None when already installed."""
    import dataclasses

    current = getattr(dataclasses, "exec", None)
    if isinstance(getattr(current, "__self__", None), CodeCache):
        return None
    cache = CodeCache(path or default_path())
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # shadows the builtin
    atexit.register(cache.save)
    return cache
