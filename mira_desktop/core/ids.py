"""Identifiers and timestamps: UUIDv7 ids (sortable by creation) and UTC ISO-8601 times."""

from __future__ import annotations

import os
import threading
import time
from datetime import UTC, datetime

_lock = threading.Lock()
_last_ms = 0
_counter = 0


def new_id() -> str:
    """Return a UUIDv7 string; ids made in one process sort by creation order."""
    global _last_ms, _counter
    with _lock:
        ms = time.time_ns() // 1_000_000
        if ms <= _last_ms:
            ms = _last_ms
            _counter += 1
            if _counter > 0xFFF:
                ms += 1
                _counter = 0
        else:
            _counter = 0
        _last_ms = ms
        counter = _counter
    rand = int.from_bytes(os.urandom(8), "big") & 0x3FFF_FFFF_FFFF_FFFF
    value = (ms & 0xFFFF_FFFF_FFFF) << 80
    value |= 0x7 << 76
    value |= counter << 64
    value |= 0b10 << 62
    value |= rand
    digits = f"{value:032x}"  # as str(uuid.UUID(int=value)), without importing uuid
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


def utc_now() -> str:
    """Now as an ISO-8601 UTC string with millisecond precision."""
    return format_time(datetime.now(UTC))


def format_time(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
