"""Local-calendar arithmetic of the history (PRODUCT.md §8): the sidebar group a
thread falls in (Pinned, Today, Yesterday, Previous 7 days, Previous 30 days,
then one group per month) and where "today / this week / this month / this
quarter" begin for search filters.

Pure functions: the clock (``now``, an aware datetime) and the local time zone
are passed in, so tests can stand on any midnight in any zone. ``tz=None`` means
the system's local zone, resolved per instant (daylight saving included). Days
are compared as local calendar dates, so "Yesterday" starts at local midnight
whatever the UTC offset. Weeks start on Monday (ISO 8601)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta, tzinfo

from ..core.errors import ConfigError
from ..core.history import ThreadGroup
from ..core.ids import parse_time
from ..core.models import Thread

log = logging.getLogger(__name__)

#: A clock: returns the current time as an aware datetime.
Now = Callable[[], datetime]

PINNED = ThreadGroup("pinned", "Pinned")
TODAY = ThreadGroup("today", "Today")
YESTERDAY = ThreadGroup("yesterday", "Yesterday")
PREVIOUS_7_DAYS = ThreadGroup("previous_7_days", "Previous 7 days")
PREVIOUS_30_DAYS = ThreadGroup("previous_30_days", "Previous 30 days")

SINCE_CHOICES = ("today", "week", "month", "quarter")

#: The groups a thread leaves as the days pass (a month group's key never
#: changes; its label only at a new year, when the year is added).
CLOCK_GROUP_KEYS = frozenset(g.key for g in (TODAY, YESTERDAY, PREVIOUS_7_DAYS, PREVIOUS_30_DAYS))

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def utc_clock() -> datetime:
    """The real clock (the default wherever a ``Now`` is injected)."""
    return datetime.now(UTC)


def to_local(moment: datetime | str, tz: tzinfo | None = None) -> datetime:
    """``moment`` (aware, naive-as-UTC, or an ISO string) in local time."""
    if isinstance(moment, str):
        moment = parse_time(moment)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(tz) if tz is not None else moment.astimezone()


def local_midnight(day: date, tz: tzinfo | None = None) -> datetime:
    """The first instant of a local calendar day, as an aware datetime."""
    naive = datetime(day.year, day.month, day.day)
    return naive.replace(tzinfo=tz) if tz is not None else naive.astimezone()


def month_group(day: date, today: date) -> ThreadGroup:
    name = _MONTHS[day.month - 1]
    label = name if day.year == today.year else f"{name} {day.year}"
    return ThreadGroup(f"month:{day.year:04d}-{day.month:02d}", label)


def group_for(
    updated_at: datetime | str,
    now: datetime,
    tz: tzinfo | None = None,
    *,
    pinned: bool = False,
) -> ThreadGroup:
    """The sidebar group of a thread last active at ``updated_at``. Times in the
    future (another machine's clock) count as today."""
    if pinned:
        return PINNED
    today = to_local(now, tz).date()
    day = to_local(updated_at, tz).date()
    age = (today - day).days
    if age <= 0:
        return TODAY
    if age == 1:
        return YESTERDAY
    if age <= 7:
        return PREVIOUS_7_DAYS
    if age <= 30:
        return PREVIOUS_30_DAYS
    return month_group(day, today)


def thread_group(
    thread: Thread, now: datetime, tz: tzinfo | None = None, *, use_pins: bool = True
) -> ThreadGroup:
    """The group of a thread; ``use_pins=False`` for views without a Pinned group
    (the archive, the trash, a search)."""
    return group_for(thread.updated_at, now, tz, pinned=use_pins and thread.pinned)


def group_threads(
    threads: Iterable[Thread], now: datetime, tz: tzinfo | None = None, *, use_pins: bool = True
) -> list[tuple[ThreadGroup, list[Thread]]]:
    """Threads (already in sidebar order) cut into consecutive groups."""
    groups: list[tuple[ThreadGroup, list[Thread]]] = []
    for thread in threads:
        group = thread_group(thread, now, tz, use_pins=use_pins)
        if groups and groups[-1][0] == group:
            groups[-1][1].append(thread)
        else:
            groups.append((group, [thread]))
    return groups


def since_start(since: str, now: datetime, tz: tzinfo | None = None) -> datetime:
    """Where "today", "week", "month" or "quarter" begins, in local time."""
    today = to_local(now, tz).date()
    if since == "today":
        start = today
    elif since == "week":
        start = today - timedelta(days=today.weekday())
    elif since == "month":
        start = today.replace(day=1)
    elif since == "quarter":
        start = date(today.year, 3 * ((today.month - 1) // 3) + 1, 1)
    else:
        raise ConfigError(
            f"Unknown time filter {since!r}.", hint=f"Use one of: {', '.join(SINCE_CHOICES)}."
        )
    return local_midnight(start, tz)
