"""Many threads fast: raw SQL in one transaction (the batch-export benchmark)."""

from __future__ import annotations

from typing import Any

from mira_desktop.bootstrap import Services
from mira_desktop.core.ids import new_id
from mira_desktop.storage.database import write

TEXTS = (
    "How do I read a CSV file in Python? 怎么读取 CSV？",
    "Use the csv module:\n\n```python\nimport csv\nwith open('a.csv') as f:\n"
    "    for row in csv.reader(f):\n        print(row)\n```\n\n| col | type |\n|---|---|\n"
    "| a | int |\n\nSee [docs](https://docs.python.org/3/library/csv.html).",
)


async def seed_threads(services: Services, count: int, messages: int = 10) -> list[str]:
    """``count`` threads of ``messages`` alternating messages each; their ids."""
    workspace = (await services.store.default_workspace()).id
    thread_rows: list[tuple[Any, ...]] = []
    message_rows: list[tuple[Any, ...]] = []
    for n in range(count):
        thread_id = new_id()
        moment = f"2026-01-01T00:00:{n % 60:02d}.000Z"
        parent = None
        for index in range(messages):
            message_id = new_id()
            role = "user" if index % 2 == 0 else "assistant"
            message_rows.append(
                (message_id, thread_id, parent, role, TEXTS[index % 2], moment, moment, "m1")
            )
            parent = message_id
        thread_rows.append((thread_id, f"Thread {n} 线程", workspace, parent, moment, moment))

    def run(db: Any) -> None:
        with write(db) as conn:
            conn.executemany(
                "INSERT INTO threads(id, title, workspace_id, active_leaf_id, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                thread_rows,
            )
            conn.executemany(
                "INSERT INTO messages(id, thread_id, parent_id, role, text, created_at,"
                " updated_at, model) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                message_rows,
            )

    await services.store.worker.run(run)
    return [row[0] for row in thread_rows]
