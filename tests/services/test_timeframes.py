"""Sidebar date groups and search time windows: local calendar days in any zone,
across midnight, month and year boundaries and daylight-saving changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from mira_desktop.core.errors import ConfigError
from mira_desktop.core.ids import format_time
from mira_desktop.core.models import Thread
from mira_desktop.services.timeframes import group_for, group_threads, since_start

SHANGHAI = ZoneInfo("Asia/Shanghai")  # UTC+8, no DST
NEW_YORK = ZoneInfo("America/New_York")  # DST on 2024-03-10


def local(tz: ZoneInfo, *args: int) -> datetime:
    return datetime(*args, tzinfo=tz)


def key(updated: datetime, now: datetime, tz: ZoneInfo | None = None) -> str:
    return group_for(format_time(updated), now, tz).key


def test_midnight_is_local_not_utc() -> None:
    now = local(SHANGHAI, 2024, 3, 10, 0, 30)  # 2024-03-09 16:30 UTC
    just_before = local(SHANGHAI, 2024, 3, 9, 23, 59)  # same UTC day as now
    just_after = local(SHANGHAI, 2024, 3, 10, 0, 1)
    assert key(just_before, now, SHANGHAI) == "yesterday"
    assert key(just_after, now, SHANGHAI) == "today"
    # in UTC both are on the 9th, like now: both "today"
    assert key(just_before, now.astimezone(UTC), UTC) == "today"


def test_day_boundaries_of_the_7_and_30_day_groups() -> None:
    now = local(SHANGHAI, 2024, 6, 20, 9, 0)
    day = lambda n: local(SHANGHAI, 2024, 6, 20, 23, 59) - timedelta(days=n)  # noqa: E731
    assert [key(day(n), now, SHANGHAI) for n in (0, 1, 2, 7, 8, 30)] == [
        "today",
        "yesterday",
        "previous_7_days",
        "previous_7_days",
        "previous_30_days",
        "previous_30_days",
    ]
    assert key(day(31), now, SHANGHAI) == "month:2024-05"
    # a clock running ahead on another machine still counts as today
    assert key(now + timedelta(hours=3), now, SHANGHAI) == "today"


def test_month_and_year_boundaries() -> None:
    now = local(NEW_YORK, 2024, 3, 1, 0, 10)
    assert key(local(NEW_YORK, 2024, 2, 29, 23, 50), now, NEW_YORK) == "yesterday"
    february = group_for(local(NEW_YORK, 2024, 2, 1, 12, 0), now, NEW_YORK)  # 29 days
    assert (february.key, february.label) == ("previous_30_days", "Previous 30 days")
    january = group_for(local(NEW_YORK, 2024, 1, 31, 23, 59), now, NEW_YORK)  # 30 days
    assert january.key == "previous_30_days"
    january = group_for(local(NEW_YORK, 2024, 1, 30, 23, 59), now, NEW_YORK)  # 31 days
    assert (january.key, january.label) == ("month:2024-01", "January")
    last_year = group_for(local(NEW_YORK, 2023, 12, 31, 23, 59), now, NEW_YORK)
    assert (last_year.key, last_year.label) == ("month:2023-12", "December 2023")


def test_daylight_saving_day_is_still_one_day() -> None:
    now = local(NEW_YORK, 2024, 3, 11, 0, 30)  # EDT, UTC-4
    assert key(local(NEW_YORK, 2024, 3, 10, 0, 30), now, NEW_YORK) == "yesterday"  # EST
    assert key(local(NEW_YORK, 2024, 3, 11, 0, 0), now, NEW_YORK) == "today"


def test_pinned_group_and_consecutive_grouping() -> None:
    now = local(SHANGHAI, 2024, 6, 20, 12, 0)

    def thread(name: str, days_ago: int, pinned: bool = False) -> Thread:
        moment = format_time(now - timedelta(days=days_ago))
        return Thread(name, name, "ws", moment, moment, pinned=pinned)

    threads = [thread("p", 90, True), thread("a", 0), thread("b", 0), thread("c", 1)]
    grouped = group_threads(threads, now, SHANGHAI)
    assert [(g.key, [t.id for t in ts]) for g, ts in grouped] == [
        ("pinned", ["p"]),
        ("today", ["a", "b"]),
        ("yesterday", ["c"]),
    ]
    unpinned = group_threads(threads[:1], now, SHANGHAI, use_pins=False)
    assert unpinned[0][0].key == "month:2024-03"


@pytest.mark.parametrize(
    ("since", "expected"),
    [
        ("today", local(SHANGHAI, 2024, 8, 15, 0, 0)),
        ("week", local(SHANGHAI, 2024, 8, 12, 0, 0)),  # Monday
        ("month", local(SHANGHAI, 2024, 8, 1, 0, 0)),
        ("quarter", local(SHANGHAI, 2024, 7, 1, 0, 0)),
    ],
)
def test_since_windows_start_at_local_midnight(since: str, expected: datetime) -> None:
    now = local(SHANGHAI, 2024, 8, 15, 7, 0)  # a Thursday, 2024-08-14 23:00 UTC
    assert since_start(since, now, SHANGHAI) == expected


def test_unknown_since_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="yesterday"):
        since_start("yesterday", datetime.now(UTC), SHANGHAI)
