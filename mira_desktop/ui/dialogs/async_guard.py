"""Coroutines of a widget that may be destroyed before they finish.

A dialog can be closed and deleted (``WA_DeleteOnClose``) while one of its
service calls is still awaited. Touching its widgets afterwards raises
``RuntimeError`` ("Internal C++ object already deleted"), which a broad
``except`` then logs and tries to show; and a call that holds a C++ pointer
across the await — a ``QSignalBlocker`` made before it, an index of a deleted
model — can crash the process. So a coroutine reads everything it needs
first, then checks :func:`alive` once, then touches its widgets without
awaiting again. :func:`guarded` does that check for a single call.

The task is not cancelled when its widget goes: what it awaits may be a
change the user asked for (a provider removed, a role saved), which still
lands; only its outcome has nowhere to be shown.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import shiboken6
from PySide6.QtCore import QObject

log = logging.getLogger(__name__)

T = TypeVar("T")


def alive(*objects: QObject | None) -> bool:
    """Whether every one of ``objects`` still has its C++ object (none was
    deleted while the caller awaited). Checked after the last await, before
    the first widget is touched."""
    return all(o is not None and shiboken6.isValid(o) for o in objects)


def show_or_log(
    owner: QObject,
    failure: BaseException,
    show: Callable[..., object],
    *args: object,
    **kwargs: object,
) -> None:
    """``show(*args, **kwargs)`` — ``failure`` shown in ``owner`` — while
    ``owner`` lives; once it was deleted (its dialog closed while the work
    that failed ran) ``failure`` is logged instead: nowhere is left to show it."""
    if alive(owner):
        show(*args, **kwargs)
    else:
        log.warning("%s was closed before this was shown: %s", type(owner).__name__, failure)


async def guarded(owner: QObject, work: Awaitable[T]) -> T | None:
    """Await ``work``; ``None`` if ``owner`` was deleted meanwhile — while
    ``work`` ran (it raised touching ``owner``'s widgets: swallowed) or before
    its result came back (the result has nowhere to go). Other errors pass."""
    try:
        result = await work
    except RuntimeError:
        if alive(owner):
            raise
        log.debug("%s was deleted before its work finished", type(owner).__name__)
        return None
    if not alive(owner):
        log.debug("%s was deleted before its work's result came", type(owner).__name__)
        return None
    return result
