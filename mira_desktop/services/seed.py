"""``SeedService``: synthetic history for development and the benchmarks
(``mira-desktop dev seed``, ``tests/benchmarks``).

``seed(threads, messages)`` writes ``threads`` threads of exactly ``messages``
messages each (so the total is their product): user and assistant turns
alternating, chained as one branch (each message's parent is the one before,
the last is the thread's active leaf). About a third of the threads are in
Chinese, the rest in English, and either language borrows words from the
other; user turns are short (one to three sentences), answers are a few
paragraphs, and about one answer in seven carries a fenced code block. Threads
are spread over the last ``span_days`` days, oldest first (so row order follows
time, as in a real file), and their messages a minute or two apart.

Text is generated in a worker thread while the previous batch is being
written (the database worker releases the GIL inside SQLite), and rows go in
by the tens of thousands per transaction. The same ``seed`` argument gives the
same text."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..core.ids import format_time, new_id
from .timeframes import Now, utc_clock

if TYPE_CHECKING:
    from ..storage.seed_repo import SeedStore

log = logging.getLogger(__name__)


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_ENGLISH = _words(
    "the of and to in is you that it for on are as with they at be this have from or one"
    " had by but not what all were we when your can there use an each which do how their"
    " if will up other about out many then them these so some would make like into time"
    " has look more write see number way could people than first been call who now find"
    " long down day did get come made may part python error database server model learning"
    " machine network function variable install config memory thread window search index"
    " query result token stream provider answer question context cache latency request"
    " response schema migration table column batch vector embedding prompt summary budget"
    " invoice meeting travel recipe garden weather report draft review deadline customer"
    " market price team plan project release version branch commit test build deploy"
)
_TECH = _words("Python SQLite Qt API JSON HTTP GPU CPU Linux Docker Rust React SQL CSV PDF")
_CHINESE = _words(
    "我们 今天 讨论 人工智能 机器学习 最新 进展 数据库 服务器 模型 网络 函数 变量 安装 配置"
    " 内存 线程 窗口 搜索 索引 查询 结果 问题 回答 上下文 中文 测试 桌面 助手 项目 计划 团队"
    " 客户 市场 价格 报告 会议 时间 系统 安全 性能 优化 部署 版本 文件 用户 需要 可以 如何"
    " 为什么 因为 所以 但是 如果 已经 还是 非常 重要 建议 方法 步骤 例子 自然语言处理 深度学习"
    " 旅行 天气 晚饭 学习 工作 周末 预算 合同 发票 产品 设计 代码 错误 日志 接口 缓存"
)
_CODE = (
    (
        "python",
        [
            "import sqlite3",
            "def load(path: str) -> list[dict]:",
            "    with open(path, encoding='utf-8') as f:",
            "        return [json.loads(line) for line in f]",
            "for row in rows:",
            "    total += row['amount']",
            "print(f'{total:.2f}')",
            "conn = sqlite3.connect('mira.db')",
        ],
    ),
    (
        "javascript",
        [
            "const res = await fetch(url, { method: 'POST' });",
            "if (!res.ok) throw new Error(res.statusText);",
            "const data = await res.json();",
            "items.forEach((item) => console.log(item.id));",
        ],
    ),
    (
        "sql",
        [
            "SELECT id, title FROM threads",
            "WHERE archived = 0",
            "ORDER BY updated_at DESC",
            "LIMIT 50;",
        ],
    ),
)
MODELS = ("gpt-4o-mini", "qwen2.5:7b", "llama3.1:8b")
CODE_SHARE = 1 / 7
CHINESE_SHARE = 1 / 3


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


class TextGenerator:
    """Mixed English and Chinese chat text of realistic lengths (see the
    module docstring), from one seeded random generator."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    @property
    def rng(self) -> random.Random:
        return self._rng

    def _english_sentence(self) -> str:
        rng = self._rng
        words = rng.choices(_ENGLISH, k=rng.randint(6, 18))
        if rng.random() < 0.3:
            words[rng.randrange(len(words))] = rng.choice(_TECH)
        if rng.random() < 0.1:
            words.insert(rng.randrange(len(words)), rng.choice(_CHINESE))
        return _capitalised(" ".join(words)) + rng.choice((".", ".", ".", "?", "!"))

    def _chinese_sentence(self) -> str:
        rng = self._rng
        words = rng.choices(_CHINESE, k=rng.randint(5, 14))
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), f" {rng.choice(_TECH)} ")
        return "".join(words) + rng.choice(("。", "。", "？", "！"))

    def sentence(self, chinese: bool) -> str:
        return self._chinese_sentence() if chinese else self._english_sentence()

    def title(self, chinese: bool) -> str:
        rng = self._rng
        if chinese:
            return "".join(rng.choices(_CHINESE, k=rng.randint(2, 4)))
        return _capitalised(" ".join(rng.choices(_ENGLISH, k=rng.randint(2, 5))))

    def user_text(self, chinese: bool) -> str:
        sep = "" if chinese else " "
        return sep.join(self.sentence(chinese) for _ in range(self._rng.randint(1, 3)))

    def assistant_text(self, chinese: bool) -> str:
        rng = self._rng
        sep = "" if chinese else " "
        paragraphs = [
            sep.join(self.sentence(chinese) for _ in range(rng.randint(2, 5)))
            for _ in range(rng.randint(1, 4))
        ]
        if rng.random() < CODE_SHARE:
            language, lines = rng.choice(_CODE)
            body = "\n".join(rng.sample(lines, k=min(len(lines), rng.randint(3, 6))))
            paragraphs.insert(rng.randint(1, len(paragraphs)), f"```{language}\n{body}\n```")
        if rng.random() < 0.2:
            paragraphs.append("\n".join(f"- {self.sentence(chinese)}" for _ in range(3)))
        return "\n\n".join(paragraphs)


@dataclass(frozen=True, slots=True)
class SeedReport:
    """What ``seed`` wrote; ``thread_ids`` oldest first."""

    threads: int
    messages: int
    seconds: float
    thread_ids: tuple[str, ...] = field(repr=False, default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "threads": self.threads,
            "messages": self.messages,
            "seconds": round(self.seconds, 2),
        }


Progress = Callable[[int, int], None]
Rows = tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]


class SeedService:
    def __init__(self, store: SeedStore, *, now: Now = utc_clock) -> None:
        self._store = store
        self._now = now

    async def seed(
        self,
        threads: int,
        messages: int,
        *,
        seed: int = 0,
        span_days: float = 365.0,
        batch_messages: int = 20_000,
        progress: Progress | None = None,
    ) -> SeedReport:
        """Write ``threads`` × ``messages`` (messages per thread); ``progress``
        gets (threads done, threads) after each batch."""
        if threads <= 0 or messages < 0:
            return SeedReport(0, 0, 0.0)
        started = time.perf_counter()
        workspace_id = await self._store.default_workspace_id()
        generator = TextGenerator(random.Random(seed))
        end = self._now() - timedelta(seconds=150 * messages + 60)
        start = end - timedelta(days=span_days)
        step = (end - start) / max(threads, 1)
        per_batch = max(1, batch_messages // max(messages, 1))
        ids: list[str] = []
        written = 0
        pending: asyncio.Future[int] | None = None
        for first in range(0, threads, per_batch):
            count = min(per_batch, threads - first)
            moments = [start + step * (first + n) for n in range(count)]
            rows = await asyncio.to_thread(
                _build_rows, generator, workspace_id, moments, messages, ids
            )
            if pending is not None:
                written += await pending
            pending = asyncio.ensure_future(self._store.insert_batch(*rows))
            if progress is not None:
                progress(first + count, threads)
        if pending is not None:
            written += await pending
        await self._store.checkpoint()
        seconds = time.perf_counter() - started
        log.info("seeded %d threads, %d messages in %.1f s", threads, written, seconds)
        return SeedReport(threads, written, seconds, tuple(ids))


def _build_rows(
    generator: TextGenerator,
    workspace_id: str,
    moments: list[datetime],
    messages: int,
    ids: list[str],
) -> Rows:
    """Rows of one batch of threads (``seed_repo`` column order); appends the
    new thread ids to ``ids``."""
    rng = generator.rng
    thread_rows: list[tuple[Any, ...]] = []
    message_rows: list[tuple[Any, ...]] = []
    for moment in moments:
        thread_id = new_id()
        chinese = rng.random() < CHINESE_SHARE
        model = rng.choice(MODELS)
        parent: str | None = None
        when, stamp = moment, format_time(moment)
        for n in range(messages):
            message_id = new_id()
            user = n % 2 == 0
            text = generator.user_text(chinese) if user else generator.assistant_text(chinese)
            stamp = format_time(when)
            message_rows.append(
                (
                    message_id,
                    thread_id,
                    parent,
                    "user" if user else "assistant",
                    text,
                    None if user else model,
                    None if user else "Local",
                    None if user else max(1, len(text) // 4),
                    stamp,
                    stamp,
                )
            )
            parent = message_id
            when += timedelta(seconds=rng.randint(20, 150))
        title = generator.title(chinese)
        thread_rows.append((thread_id, title, workspace_id, parent, format_time(moment), stamp))
        ids.append(thread_id)
    return thread_rows, message_rows
