"""Export benchmark (issue 9 §6): ``ExportService.export_zip`` of 1,000
threads / 100,000 messages (quick: 50 / 1,000) to a Markdown ZIP, against a
raw JSON dump of the same rows (every column of the threads and their
messages, read on a separate connection and written with ``json.dump``, no
compression) — the floor of "read it all and write it out". Throughput is
messages per second; median of N alternating runs."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from mira_desktop.bootstrap import build_services
from mira_desktop.storage.database import DB_FILENAME

from .common import Figure, dataset, median

log = logging.getLogger(__name__)


def sizes(quick: bool) -> tuple[int, int]:
    return (50, 20) if quick else (1_000, 100)


def raw_dump(database: Path, ids: list[str], target: Path) -> int:
    """Every row of the threads and their messages as JSON; returns the
    number of messages."""
    conn = sqlite3.connect(str(database))
    conn.row_factory = sqlite3.Row
    try:
        out: list[dict[str, Any]] = []
        for start in range(0, len(ids), 400):
            chunk = ids[start : start + 400]
            marks = ",".join("?" for _ in chunk)
            threads = {
                r["id"]: {**dict(r), "messages": []}
                for r in conn.execute(f"SELECT * FROM threads WHERE id IN ({marks})", chunk)
            }
            for row in conn.execute(
                f"SELECT * FROM messages WHERE thread_id IN ({marks}) ORDER BY seq", chunk
            ):
                threads[row["thread_id"]]["messages"].append(dict(row))
            out.extend(threads.values())
    finally:
        conn.close()
    with target.open("w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)
    return sum(len(t["messages"]) for t in out)


async def _zip(folder: Path, ids: list[str], target: Path) -> tuple[float, int]:
    services = build_services(folder)
    try:
        started = time.perf_counter()
        result = await services.exports.export_zip(ids, target)
        return time.perf_counter() - started, result.exported
    finally:
        await services.aclose()


def run(quick: bool, root: Path) -> dict[str, Any]:
    threads, messages = sizes(quick)
    data = dataset(root, "export", [(threads, messages)])
    folder = Path(data["dir"])
    ids = list(data["groups"][0]["ids"])
    runs = 1 if quick else 3
    mira_s: list[float] = []
    raw_s: list[float] = []
    exported = dumped = 0
    with tempfile.TemporaryDirectory(prefix="mira-bench-export-") as tmp:
        zip_path, json_path = Path(tmp) / "threads.zip", Path(tmp) / "threads.json"
        raw_dump(folder / DB_FILENAME, ids, json_path)  # warm the page cache
        for _ in range(runs):
            started = time.perf_counter()
            dumped = raw_dump(folder / DB_FILENAME, ids, json_path)
            raw_s.append(time.perf_counter() - started)
            seconds, exported = asyncio.run(_zip(folder, ids, zip_path))
            mira_s.append(seconds)
        zip_mb = zip_path.stat().st_size / 1e6
        json_mb = json_path.stat().st_size / 1e6
    total = threads * messages
    figures = [
        Figure(
            f"export {threads:,} threads to Markdown ZIP",
            total / median(mira_s),
            "msg/s",
            total / median(raw_s),
            "raw JSON dump msg/s",
            min_ratio=0.5,
        ),
        Figure("export wall time", median(mira_s), "s", median(raw_s), "raw JSON dump"),
    ]
    return {
        "figures": [f.to_dict() for f in figures],
        "details": {
            "threads": threads,
            "messages": total,
            "exported_threads": exported,
            "dumped_messages": dumped,
            "zip_mb": round(zip_mb, 1),
            "json_mb": round(json_mb, 1),
            "mira_s": [round(s, 3) for s in mira_s],
            "raw_s": [round(s, 3) for s in raw_s],
        },
    }
