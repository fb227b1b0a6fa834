"""A thread with everything an export must handle, built through the real
store: Chinese text, code, a table, thinking, tool calls holding secrets, a
failed answer (a sibling version), an edited question (a second root branch),
a trashed turn, an attachment, and hostile Markdown (raw HTML, a
``javascript:`` link).

Tree (active leaf: A1)::

    U1 ── A1 ── (U2 ── A2: undone, in the trash)
       └─ A1b (failed)
    U1b (edited question) ── A3
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mira_desktop.bootstrap import Services
from mira_desktop.core.attachments import Attachment
from mira_desktop.core.ids import new_id
from mira_desktop.core.models import Message, MessageRole, MessageStatus, Thread, Usage

T0 = "2026-11-30T07:12:30.000Z"

QUESTION = "你好，请解释一下 Python 的列表推导式。"
ANSWER = """## 列表推导式

列表推导式（list comprehension）是一种简洁的写法：

```python
squares = [n * n for n in range(10) if n % 2 == 0]
print(squares)  # 偶数的平方
```

| 写法 | 速度 |
|------|------|
| for 循环 | 慢 |
| 推导式 | 快 |

See [the docs](https://docs.python.org/3/tutorial/datastructures.html) or [click me](javascript:alert(1)).

<img src=x onerror=alert(1)><script>alert("xss")</script>
"""
THINKING = "用户想了解列表推导式。先给定义，再给例子。"
SECRET_VALUES = (
    "sk-live-abcdefghijklmnop",
    "sk-ant-api03-xyzxyzxyzxyz",
    "ghp_abcdefghijklmnopqrstuvwx",
    "hunter2",
    "sk-proj-0123456789abcdef",
)
TOOL_DATA = {
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {
                "name": "web_fetch",
                "arguments": json.dumps(
                    {
                        "url": "https://api.example.com/search?q=python",
                        "headers": {"Authorization": "Bearer sk-live-abcdefghijklmnop"},
                        "api_key": "sk-ant-api03-xyzxyzxyzxyz",
                        "query": "python list comprehension",
                    }
                ),
            },
        },
        {
            "id": "call_2",
            "name": "bash",
            "input": {
                "command": "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwx && gh api user",
                "password": "hunter2",
            },
            "status": "executed",
        },
    ]
}
FAILED_ERROR = {
    "code": "authentication",
    "message": "Incorrect API key provided: sk-proj-0123456789abcdef",
    "hint": "Check the provider's API key in Settings → Providers.",
}


@dataclass(frozen=True)
class Sample:
    thread_id: str
    u1: str
    a1: str
    a1b: str
    u1b: str
    a3: str
    u2: str
    a2: str
    attachment_sha: str


def _at(seconds: int) -> str:
    return f"2026-11-30T07:12:{30 + seconds:02d}.000Z"


async def _add(services: Services, message: Message, *, active: bool = True) -> str:
    await services.store.add_message(message, make_active=active)
    return message.id


async def build_sample(services: Services, title: str = "列表推导式 & <tables>") -> Sample:
    workspace = await services.store.default_workspace()
    thread = await services.store.create_thread(
        Thread(
            id=new_id(),
            title=title,
            workspace_id=workspace.id,
            created_at=T0,
            updated_at=T0,
            model="qwen3:8b",
        )
    )
    tid = thread.id
    u1 = await _add(services, Message(new_id(), tid, MessageRole.USER, QUESTION, _at(0)))
    a1 = await _add(
        services,
        Message(
            new_id(),
            tid,
            MessageRole.ASSISTANT,
            ANSWER,
            _at(1),
            _at(2),
            parent_id=u1,
            thinking=THINKING,
            thinking_ms=12_300,
            model="qwen3:8b",
            provider="local",
            usage=Usage(120, 80, 30, counts_estimated=False, reasoning_estimated=True),
            data=TOOL_DATA,
        ),
    )
    a1b = await _add(
        services,
        Message(
            new_id(),
            tid,
            MessageRole.ASSISTANT,
            "Partial answer before the",
            _at(3),
            parent_id=u1,
            status=MessageStatus.FAILED,
            model="gpt-4o",
            provider="openai",
            error=FAILED_ERROR,
            data={"regenerated_from": a1, "preset": "retry"},
        ),
        active=False,
    )
    u1b = await _add(
        services,
        Message(new_id(), tid, MessageRole.USER, "Explain list comprehensions briefly.", _at(4)),
        active=False,
    )
    a3 = await _add(
        services,
        Message(
            new_id(), tid, MessageRole.ASSISTANT, "Short: `[x for x in xs]`.", _at(5), parent_id=u1b
        ),
        active=False,
    )
    u2 = await _add(
        services, Message(new_id(), tid, MessageRole.USER, "And dicts?", _at(6), parent_id=a1)
    )
    a2 = await _add(
        services,
        Message(new_id(), tid, MessageRole.ASSISTANT, "Dict comprehension.", _at(7), parent_id=u2),
    )
    await services.store.undo_turn(tid)
    sha = await services.media.put(b"notes about lists\n", "text/plain")
    await services.media.attach(
        u1,
        [(None, Attachment(sha256=sha, name="notes.txt", mime="text/plain", kind="file", size=18))],
    )
    return Sample(tid, u1, a1, a1b, u1b, a3, u2, a2, sha)
