"""Threads and messages written with plain SQL, below the repositories: for
tests that need rows the app would not make (a trashed sibling placed just so,
a chain across threads) or that check the SQL layer itself."""

from __future__ import annotations

from typing import Any, Protocol

from mira_desktop.core.ids import new_id, utc_now


class Executes(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


def _insert(conn: Executes, table: str, cols: dict[str, object]) -> None:
    conn.execute(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
        tuple(cols.values()),
    )


def insert_thread(conn: Executes, workspace_id: str, **extra: object) -> str:
    """A thread titled "T" (unless ``extra`` says otherwise); its id."""
    thread_id, now = new_id(), utc_now()
    _insert(
        conn,
        "threads",
        {
            "id": thread_id,
            "title": "T",
            "workspace_id": workspace_id,
            "created_at": now,
            "updated_at": now,
            **extra,
        },
    )
    return thread_id


def insert_message(conn: Executes, thread_id: str, text: str, **extra: object) -> str:
    """A user message (unless ``extra`` says otherwise); its id."""
    message_id, now = new_id(), utc_now()
    _insert(
        conn,
        "messages",
        {
            "id": message_id,
            "thread_id": thread_id,
            "role": "user",
            "text": text,
            "created_at": now,
            "updated_at": now,
            **extra,
        },
    )
    return message_id
