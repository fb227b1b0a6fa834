"""Running a coroutine for a widget that may be destroyed before it finishes.

A dialog can be closed and deleted while one of its service calls is still awaited;
touching its widgets afterwards raises ``RuntimeError`` ("Internal C++ object already
deleted"). ``guarded`` swallows exactly that case — the result has nowhere to go — and
lets every other error through.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QObject

log = logging.getLogger(__name__)

T = TypeVar("T")


async def guarded(owner: QObject, work: Awaitable[T]) -> T | None:
    """Await ``work``; return ``None`` if ``owner`` was deleted meanwhile."""
    try:
        return await work
    except RuntimeError:
        if shiboken6.isValid(owner):
            raise
        log.debug("%s was deleted before its work finished", type(owner).__name__)
        return None
