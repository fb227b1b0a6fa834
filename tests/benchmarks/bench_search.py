"""Quick search benchmark (not collected by pytest): builds a data folder with
N synthetic messages (English words and Chinese text mixed, spread over a year,
in 10 workspaces' worth of threads) and times ``SearchService.search`` for
typical queries, including the thread hop to the database worker.

    .venv/bin/python tests/benchmarks/bench_search.py --messages 200000 [--dir DIR]

A data folder that already holds the messages is reused (``--dir``)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sqlite3
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mira_desktop.bootstrap import build_services
from mira_desktop.core.ids import format_time, new_id
from mira_desktop.storage.database import DB_FILENAME, open_database

log = logging.getLogger(__name__)

_WORD_TEXT = (
    "the of and to in is you that it he was for on are as with his they at be this have from"
    " or one had by word but not what all were we when your can said there use an each which"
    " she do how their if will up other about out many then them these so some her would make"
    " like him into time has look two more write go see number no way could people my than first"
    " water been call who oil its now find long down day did get come made may part python error"
    " database server model learning machine network function variable install config memory"
    " thread window search index query result token stream provider answer question context"
)
WORDS = _WORD_TEXT.split(" ")
CJK = "我们今天讨论了人工智能和机器学习的最新进展数据库服务器模型网络函数变量安装配置内存线程窗口搜索索引查询结果问题回答上下文中文测试桌面助手"
PHRASES = ["机器学习", "人工智能", "数据库", "学习", "深度学习", "自然语言处理"]
QUERIES = [
    "learning",
    "machine learning",
    "python error",
    "学习",
    "机器学习",
    "数据库 server",
    "zzqxyw",
    "ok",
    "qz",
    "鬼",
    '"config memory"',
]


def _text(rng: random.Random) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(4, 14)):
        if rng.random() < 0.7:
            parts.append(" ".join(rng.choices(WORDS, k=rng.randint(2, 6))))
        else:
            chars = "".join(rng.choices(CJK, k=rng.randint(3, 10)))
            parts.append(chars + (rng.choice(PHRASES) if rng.random() < 0.2 else ""))
    return ", ".join(parts)


def populate(data_dir: Path, messages: int, per_thread: int = 20) -> None:
    db = open_database(data_dir)
    if db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] >= messages:
        return
    db.conn.close()
    rng = random.Random(5)
    conn = sqlite3.connect(data_dir / DB_FILENAME)
    ws = conn.execute("SELECT id FROM workspaces WHERE is_default = 1").fetchone()[0]
    start = datetime.now(UTC) - timedelta(days=365)
    step = timedelta(days=365) / messages
    conn.execute("BEGIN")
    for t in range(messages // per_thread):
        tid, moment = new_id(), start + step * t * per_thread
        title = " ".join(rng.choices(WORDS, k=3)) + (
            "" if rng.random() < 0.5 else rng.choice(PHRASES)
        )
        conn.execute(
            "INSERT INTO threads(id, title, workspace_id, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (tid, title, ws, format_time(moment), format_time(moment + step * per_thread)),
        )
        rows = [
            (
                new_id(),
                tid,
                "user" if i % 2 == 0 else "assistant",
                _text(rng),
                format_time(moment + step * i),
                format_time(moment + step * i),
            )
            for i in range(per_thread)
        ]
        conn.executemany(
            "INSERT INTO messages(id, thread_id, role, text, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.execute("COMMIT")
    conn.execute("PRAGMA optimize")
    conn.close()


async def measure(data_dir: Path, runs: int) -> None:
    services = build_services(data_dir)
    try:
        for since in (None, "week", "quarter"):
            for query in QUERIES:
                await services.search.search(query, since=since)  # warm the page cache
                times, hits = [], 0
                for _ in range(runs):
                    began = time.perf_counter()
                    hits = len(await services.search.search(query, since=since))
                    times.append((time.perf_counter() - began) * 1000)
                times.sort()
                p95 = times[int(len(times) * 0.95) - 1]
                print(
                    f"{query!r:22} since={since!s:8} hits={hits:3}"
                    f"  p50={statistics.median(times):6.1f} ms  p95={p95:6.1f} ms"
                )
    finally:
        await services.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--dir", type=Path)
    args = parser.parse_args()
    data_dir = args.dir or Path(tempfile.mkdtemp(prefix="mira-bench-"))
    data_dir.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    populate(data_dir, args.messages)
    size = (data_dir / DB_FILENAME).stat().st_size / 1e6
    print(
        f"{args.messages} messages in {data_dir} ({size:.0f} MB), ready in "
        f"{time.perf_counter() - began:.0f} s"
    )
    asyncio.run(measure(data_dir, args.runs))


if __name__ == "__main__":
    main()
