"""Value types of history management (PRODUCT.md §8): which list of threads the
sidebar shows (:class:`ThreadView`), the counts it shows beside them, and the
date group a thread falls in (:class:`ThreadGroup`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ThreadView(StrEnum):
    """The three lists of threads: the sidebar, the archive and the trash."""

    ACTIVE = "active"
    ARCHIVED = "archived"
    TRASH = "trash"


@dataclass(frozen=True, slots=True)
class HistoryCounts:
    """How many threads each view holds (for one workspace, or all)."""

    active: int = 0
    pinned: int = 0
    archived: int = 0
    trash: int = 0


@dataclass(frozen=True, slots=True)
class ThreadGroup:
    """A sidebar group: a stable ``key`` (``"pinned"``, ``"today"``,
    ``"yesterday"``, ``"previous_7_days"``, ``"previous_30_days"`` or
    ``"month:YYYY-MM"``) and an English ``label`` the UI may translate by key."""

    key: str
    label: str
