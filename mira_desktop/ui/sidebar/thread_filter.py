"""Which threads one sidebar list shows and in what order (PRODUCT.md §8): the
view (active chats, the archive or the trash) and an optional workspace.

The lazy list model uses it for live changes — a thread that no longer belongs
(archived, trashed, moved to another workspace) leaves the list, and a changed
thread is put where the database would list it — so it mirrors the ordering of
``storage/history_repo.list_threads``: active pins first by pin order, then the
most recently active; the archive by activity; the trash by deletion time."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from mira_desktop.core.models import Thread

log = logging.getLogger(__name__)

VIEWS = ("active", "archived", "trash")


@dataclass(frozen=True, slots=True)
class ThreadFilter:
    view: str = "active"
    workspace_id: str | None = None

    def accepts(self, thread: Thread) -> bool:
        """Whether ``thread`` belongs in this list."""
        if self.workspace_id is not None and thread.workspace_id != self.workspace_id:
            return False
        if self.view == "trash":
            return thread.deleted_at is not None
        if thread.deleted_at is not None:
            return False
        return thread.archived == (self.view == "archived")

    def before(self, a: Thread, b: Thread) -> bool:
        """Whether ``a`` is listed before ``b`` (ties: ``a`` first, as a fresh change)."""
        if self.view == "trash":
            return (a.deleted_at or "") >= (b.deleted_at or "")
        if self.view == "active" and a.pinned != b.pinned:
            return a.pinned
        if self.view == "active" and a.pinned:
            key_a = (a.pin_order is None, a.pin_order or 0)
            key_b = (b.pin_order is None, b.pin_order or 0)
            if key_a != key_b:
                return key_a < key_b
        return a.updated_at >= b.updated_at

    def position(
        self, rows: Sequence[Thread], thread: Thread, skip: int = -1, *, loaded_all: bool
    ) -> int | None:
        """Row where ``thread`` belongs in ``rows`` without row ``skip`` (its
        own, when it is there); None when it sorts after every row and
        ``rows`` are not ``loaded_all`` (its place is on a later page)."""
        for row, other in enumerate(rows):
            if row != skip and self.before(thread, other):
                return row - (0 <= skip < row)
        return len(rows) - (skip >= 0) if loaded_all else None

    @property
    def uses_pins(self) -> bool:
        return self.view == "active"


def same_place(old: Thread, new: Thread) -> bool:
    """Whether ``new`` sorts where ``old`` did in every list (only its other
    fields changed)."""
    return (old.updated_at, old.pinned, old.pin_order, old.deleted_at) == (
        new.updated_at,
        new.pinned,
        new.pin_order,
        new.deleted_at,
    )
