"""``HistoryService``: the sidebar's history management (PRODUCT.md §8) — the
paged views (active, archived, trash) with their counts and date groups, the
remembered collapse state of groups, pins and their order (Ctrl+1…9), rename,
archive, and the trash: delete, restore, purge for good, empty, and the
automatic purge after ``trash.purge_days`` days run at start-up.

The clock and the local time zone are injected (``now`` returns an aware
datetime; ``tz=None`` is the system zone), so tests stand on any midnight."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING

from ..core.errors import ConfigError, MiraError, worded
from ..core.history import HistoryCounts, ThreadGroup, ThreadView
from ..core.ids import format_time
from ..core.models import Thread
from .settings import SettingsService
from .timeframes import Now, group_threads, thread_group, utc_clock

if TYPE_CHECKING:
    from ..storage.history_store import HistoryStore
    from ..storage.media_store import MediaStore

log = logging.getLogger(__name__)

COLLAPSED_GROUPS_KEY = "sidebar.collapsed_groups"
PURGE_DAYS_KEY = "trash.purge_days"
DEFAULT_PURGE_DAYS = 30
#: automatic titles (a model's suggestion, the first words) stay short
TITLE_LIMIT = 60
#: a title the user typed is kept whole up to this hard cap (drawn elided)
USER_TITLE_LIMIT = 500


def _view(view: ThreadView | str) -> ThreadView:
    try:
        return ThreadView(view)
    except ValueError:
        raise ConfigError(
            f"Unknown view {view!r}.", hint="Use active, archived or trash."
        ) from None


def clean_title(title: str, limit: int = USER_TITLE_LIMIT) -> str:
    """A title the user typed as one line with single spaces, never cut: one
    longer than ``limit`` characters is refused (ConfigError), not shortened."""
    title = " ".join(title.split())
    if not title:
        raise ConfigError("A title cannot be empty.")
    if len(title) > limit:
        raise worded(
            ConfigError,
            "A title holds at most {limit} characters; this one has {count}.",
            {"limit": limit, "count": len(title)},
            hint="Shorten it.",
        )
    return title


class HistoryService:
    def __init__(
        self,
        store: HistoryStore,
        settings: SettingsService,
        *,
        now: Now = utc_clock,
        tz: tzinfo | None = None,
        media: MediaStore | None = None,
    ) -> None:
        """``media``: where the files of what a purge released are deleted at
        once (someone deleting a private file for good expects it gone now)."""
        self._store = store
        self._settings = settings
        self._media = media
        self._now = now
        self._tz = tz

    # views
    async def list_threads(
        self,
        offset: int = 0,
        limit: int = 100,
        workspace_id: str | None = None,
        view: ThreadView | str = ThreadView.ACTIVE,
    ) -> list[Thread]:
        """One page of a view (see ``storage/history_repo.list_threads`` for the order)."""
        return await self._store.list_threads(offset, limit, workspace_id, _view(view))

    async def list_threads_after(
        self,
        after: Thread | None,
        limit: int = 100,
        workspace_id: str | None = None,
        view: ThreadView | str = ThreadView.ACTIVE,
    ) -> list[Thread]:
        """The page of a view after the thread ``after`` as it was listed (None:
        the first page): paging by key, so rows removed or moved meanwhile by
        another process never shift it (``storage/thread_pages``)."""
        return await self._store.list_threads_after(after, limit, workspace_id, _view(view))

    async def count_threads(
        self, workspace_id: str | None = None, view: ThreadView | str = ThreadView.ACTIVE
    ) -> int:
        return await self._store.count_threads(workspace_id, _view(view))

    async def outside_change_mark(self) -> int:
        """A number that changes when another process (the CLI) commits to the
        data folder's database: compare it to notice outside changes cheaply."""
        return await self._store.outside_change_mark()

    async def counts(self, workspace_id: str | None = None) -> HistoryCounts:
        return await self._store.counts(workspace_id)

    def group_of(self, thread: Thread, *, use_pins: bool = True) -> ThreadGroup:
        """The date group of a thread, by the injected clock and zone."""
        return thread_group(thread, self._now(), self._tz, use_pins=use_pins)

    def group(
        self, threads: Sequence[Thread], *, use_pins: bool = True
    ) -> list[tuple[ThreadGroup, list[Thread]]]:
        return group_threads(threads, self._now(), self._tz, use_pins=use_pins)

    # collapsed groups (remembered across restarts)
    async def collapsed_groups(self) -> set[str]:
        value = await self._settings.get(COLLAPSED_GROUPS_KEY)
        return {str(key) for key in value} if isinstance(value, list) else set()

    async def set_group_collapsed(self, key: str, collapsed: bool) -> set[str]:
        keys = await self.collapsed_groups()
        if collapsed:
            keys.add(key)
        else:
            keys.discard(key)
        await self._settings.set(COLLAPSED_GROUPS_KEY, sorted(keys))
        return keys

    async def toggle_group(self, key: str) -> bool:
        """Flip a group's state; returns True when it is now collapsed."""
        collapsed = key not in await self.collapsed_groups()
        await self.set_group_collapsed(key, collapsed)
        return collapsed

    # pins
    async def pin(self, thread_id: str) -> Thread:
        return await self._store.pin(thread_id)

    async def unpin(self, thread_id: str) -> Thread:
        return await self._store.unpin(thread_id)

    async def reorder_pins(self, ordered_ids: Sequence[str]) -> list[Thread]:
        return await self._store.reorder_pins(ordered_ids)

    async def pinned_threads(self, limit: int = 9, workspace_id: str | None = None) -> list[Thread]:
        """The first ``limit`` active pins, in order: Ctrl+1 … Ctrl+9."""
        return await self._store.pinned_threads(limit, workspace_id)

    # titles and archive
    async def rename(self, thread_id: str, title: str) -> Thread:
        """A title the user chose; automatic titles never overwrite it."""
        return await self._store.rename(thread_id, clean_title(title))

    async def archive(self, thread_id: str) -> Thread:
        return await self._store.set_archived(thread_id, True)

    async def unarchive(self, thread_id: str) -> Thread:
        return await self._store.set_archived(thread_id, False)

    # trash
    async def trash(self, thread_id: str) -> int:
        return await self.trash_many([thread_id])

    async def trash_many(self, thread_ids: Sequence[str]) -> int:
        """Move threads to the trash (batch mode); returns how many moved."""
        return await self._store.trash(thread_ids, format_time(self._now()))

    async def restore(self, thread_id: str) -> Thread:
        return await self._store.restore(thread_id)

    async def purge(self, thread_id: str, *, force: bool = False) -> None:
        """Delete a trashed thread for good (ask the user first). A thread not in
        the trash is refused unless ``force``."""
        await self._collect(await self._store.purge(thread_id, force=force))

    async def empty_trash(self) -> int:
        purged, released = await self._store.purge_trashed(None)
        await self._collect(released)
        return purged

    async def _collect(self, released: list[str]) -> None:
        """The files of media nothing references any more, deleted now rather
        than by a later start-up's collection (never fatal: that one still
        would)."""
        if self._media is None or not released:
            return
        try:
            await self._media.collect_garbage(only=released)
        except MiraError:
            log.warning("the files of purged messages were not deleted", exc_info=True)

    async def purge_days(self) -> int | None:
        """Days a thread stays in the trash; None (setting 0 or off) keeps it."""
        value = await self._settings.get(PURGE_DAYS_KEY, DEFAULT_PURGE_DAYS)
        try:
            days = int(value)
        except (TypeError, ValueError):
            log.warning("ignoring a bad %s setting: %r", PURGE_DAYS_KEY, value)
            days = DEFAULT_PURGE_DAYS
        return days if days > 0 else None

    async def purge_expired(self, now: datetime | None = None) -> int:
        """Purge threads trashed more than ``trash.purge_days`` days ago, and the
        messages of turns undone that long ago (start-up)."""
        days = await self.purge_days()
        if days is None:
            return 0
        cutoff = format_time((now or self._now()) - timedelta(days=days))
        purged, released = await self._store.purge_trashed(cutoff)
        if purged:
            log.info("purged %d thread(s) trashed more than %d days ago", purged, days)
        # undone turns are trash too (PRODUCT §5: "to trash, restorable")
        _, undone = await self._store.purge_undone(cutoff)
        await self._collect(sorted({*released, *undone}))
        return purged
