"""``HistoryTally`` against a count of the whole history: after random turns,
edits, regenerations, undos, attachments named and checkpoints moving, the
tally equals the full count, and only the messages that changed are counted
again."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from mira_desktop.core.attachments import Attachment
from mira_desktop.core.models import Message, MessageRole, MessageStatus
from mira_desktop.services.context import history_entries
from mira_desktop.services.meter_history import HistoryTally, Keyed

OVERHEAD = 4


def fake_count(text: str) -> int:
    return len(text.split()) + len(text) // 7


class Counter:
    """Counts keyed texts like the meter (a cache by key), and records them."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, int], int] = {}
        self.asked: list[str] = []

    def __call__(self, items: list[Keyed]) -> list[int]:
        out = []
        for key, text in items:
            self.asked.append(key[0])
            if key not in self.cache:
                self.cache[key] = fake_count(text)
            out.append(self.cache[key])
        return out


def full_count(replay: list[Message], earlier: dict, system: str) -> int:
    entries = history_entries(replay, earlier)
    total = sum(OVERHEAD + fake_count(m.content) for _, m in entries)
    return total + (OVERHEAD + fake_count(system) if system else 0)


def message(n: int, role: MessageRole, text: str, **extra: object) -> Message:
    return Message(
        id=f"m{n}", thread_id="t", role=role, text=text, created_at="2026-12-01T00:00:00Z", **extra
    )


def attachment(name: str) -> Attachment:
    return Attachment(sha256=name * 8, name=name, mime="text/plain", kind="file", size=10)


def test_a_turn_counts_only_the_new_messages() -> None:
    counter = Counter()
    tally = HistoryTally(counter, OVERHEAD)
    replay = [
        message(n, MessageRole.USER if n % 2 == 0 else MessageRole.ASSISTANT, f"text {n} " * 5)
        for n in range(400)
    ]
    assert tally.total("t", replay, {}, "be brief") == full_count(replay, {}, "be brief")
    counter.asked.clear()
    turn = [message(400, MessageRole.USER, "a question"), message(401, MessageRole.ASSISTANT, "ok")]
    after = [*replay, *turn]
    assert tally.total("t", after, {}, "be brief") == full_count(after, {}, "be brief")
    assert counter.asked == ["m400", "m401", "system"]


@pytest.mark.parametrize("seed", range(6))
def test_random_histories_count_as_a_full_count_would(seed: int) -> None:
    rng = random.Random(seed)
    counter = Counter()
    tally = HistoryTally(counter, OVERHEAD, size=2)
    replay: list[Message] = []
    earlier: dict[str, list[Attachment]] = {}
    serial = 0
    for _ in range(150):
        action = rng.choice(["turn", "turn", "rewrite", "edit", "undo", "files", "cut", "fail"])
        if action == "turn" or not replay:
            for role in (MessageRole.USER, MessageRole.ASSISTANT):
                serial += 1
                replay.append(message(serial, role, f"words {rng.random()} " * rng.randrange(4)))
        elif action == "rewrite":  # the streaming answer written again: a new object
            replay[-1] = replace(replay[-1], text=replay[-1].text + " more")
        elif action == "edit":  # another version from a point on
            at = rng.randrange(len(replay))
            serial += 1
            replay = [*replay[:at], message(serial, MessageRole.USER, f"edited {rng.random()}")]
        elif action == "undo":
            replay = replay[: max(0, len(replay) - 2)]
        elif action == "files":
            users = [m for m in replay if m.role is MessageRole.USER]
            if users:
                earlier[rng.choice(users).id] = [attachment(f"f{rng.randrange(3)}")]
        elif action == "cut":  # a checkpoint: the replay starts later
            replay = replay[rng.randrange(len(replay) + 1) :]
        else:  # a failed answer without text is left out of the request
            serial += 1
            replay.append(message(serial, MessageRole.ASSISTANT, "", status=MessageStatus.FAILED))
        system = rng.choice(["", "a role prompt", f"summary {rng.randrange(3)}"])
        thread = rng.choice(["t", "t", "t", "other"])
        assert tally.total(thread, replay, earlier, system) == full_count(replay, earlier, system)


def test_threads_measured_at_once_from_worker_threads() -> None:
    """The meter measures in worker threads: several threads' tallies kept
    and dropped at once stay right (and raise nothing)."""
    tally = HistoryTally(Counter(), OVERHEAD, size=2)
    histories = {
        f"t{k}": [message(n, MessageRole.USER, f"thread {k} text {n}") for n in range(50 + k)]
        for k in range(6)
    }

    def measure(k: int) -> list[bool]:
        thread = f"t{k % 6}"
        replay = histories[thread]
        return [
            tally.total(thread, replay, {}, "") == full_count(replay, {}, "") for _ in range(40)
        ]

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(measure, range(12)))
    assert all(all(r) for r in results)
