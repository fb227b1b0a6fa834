"""Invariants of the conversation tree under random sequences of send / edit /
regenerate / undo / restore / switch (hypothesis), on the real services and a
real SQLite file. The model is an in-process scripted provider (a fake, not a
mock) so a few hundred turns take seconds; the HTTP path is covered by
``test_conversation_tree.py``.

After every step: nothing was ever hard-deleted; every message's parent is in
its thread and the parent chain ends at a root; the active leaf and its whole
path are live (exactly one active path); the service's active branch is that
path, its sibling indexes and counts match the tree, roles alternate; and the
request the model got was built from the active branch only."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mira_desktop.core.errors import ConfigError
from mira_desktop.core.events import Completed, StreamDone, StreamEvent, TextDelta
from mira_desktop.core.models import ChatRequest, ModelInfo
from mira_desktop.services.chat import ChatService, SendRequest
from mira_desktop.services.context import history_messages
from mira_desktop.services.conversation import ConversationService
from mira_desktop.services.providers import ProviderService
from mira_desktop.services.regenerate import PRESET_GUIDANCE, RegeneratePreset, RegenerateRequest
from mira_desktop.storage.secrets import SecretStore
from mira_desktop.storage.store import Store


class ScriptedProvider:
    """Answers every request with a numbered text and remembers the requests."""

    name = "scripted"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        yield TextDelta(f"answer {len(self.requests)}")
        yield StreamDone("stop")

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def aclose(self) -> None:
        return None


class WordCounter:
    def count(self, text: str) -> int:
        return len(text.split())


@dataclass
class World:
    store: Store
    chat: ChatService
    tree: ConversationService
    provider: ScriptedProvider
    thread_id: str = ""
    seen: set[str] = field(default_factory=set)
    counter: int = 0


Row = dict[str, Any]


async def snapshot(world: World) -> tuple[dict[str, Row], str | None]:
    def read(db: Any) -> tuple[dict[str, Row], str | None]:
        rows = {r["id"]: r for r in db.query("SELECT * FROM messages ORDER BY seq")}
        leaf = db.execute(
            "SELECT active_leaf_id FROM threads WHERE id = ?", [world.thread_id]
        ).fetchone()[0]
        return rows, leaf

    return await world.store.worker.run(read)


def chain(rows: dict[str, Row], leaf: str | None) -> list[str]:
    path: list[str] = []
    while leaf is not None:
        assert leaf not in path, "a cycle in the parent chain"
        path.append(leaf)
        leaf = rows[leaf]["parent_id"]
    return path[::-1]


def live_ids(rows: dict[str, Row]) -> list[str]:
    """Messages whose whole path is live (what the user can reach)."""
    return [m for m in rows if all(rows[a]["deleted_at"] is None for a in chain(rows, m))]


async def check_invariants(world: World) -> tuple[dict[str, Row], str | None]:
    rows, leaf = await snapshot(world)
    assert world.seen <= set(rows), "a message was hard-deleted"
    world.seen |= set(rows)
    for row in rows.values():
        parent = row["parent_id"]
        assert parent is None or rows[parent]["thread_id"] == row["thread_id"]
        chain(rows, row["id"])  # terminates at a root
    path = chain(rows, leaf)
    assert all(rows[m]["deleted_at"] is None for m in path), "the active path runs through trash"
    for row in rows.values():  # nothing live hides under the trash (search would find it)
        if row["deleted_at"] is None:
            assert all(rows[a]["deleted_at"] is None for a in chain(rows, row["id"]))
    branch = await world.tree.active_branch(world.thread_id)
    assert [m.id for m in branch] == path
    for message in branch:
        versions = [
            r["id"]
            for r in rows.values()
            if r["parent_id"] == message.parent_id and r["deleted_at"] is None
        ]
        assert message.sibling_count == len(versions)
        assert message.sibling_index == versions.index(message.id)
    assert [str(m.role) for m in branch] == ["user", "assistant"] * (len(branch) // 2)
    return rows, leaf


def expected_request(rows: dict[str, Row], history: list[str], text: str) -> list[tuple[str, str]]:
    return [(m["role"], m["text"]) for m in _history(rows, history)] + [("user", text)]


def _history(rows: dict[str, Row], ids: list[str]) -> list[Row]:
    return [{"role": rows[m]["role"], "text": rows[m]["text"]} for m in ids]


def sent(world: World) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in world.provider.requests[-1].messages]


async def run_to_end(world: World, events: AsyncIterator[Any]) -> Any:
    final = None
    async for event in events:
        final = event
    assert isinstance(final, Completed), final
    return final


async def do_send(world: World, _: int, rows: dict[str, Row], leaf: str | None) -> None:
    world.counter += 1
    text = f"question {world.counter}"
    await run_to_end(world, world.chat.send(SendRequest(text, thread_id=world.thread_id)))
    assert sent(world) == expected_request(rows, chain(rows, leaf), text)
    new_rows, new_leaf = await snapshot(world)
    user = new_rows[new_rows[new_leaf]["parent_id"]]
    assert user["text"] == text and user["parent_id"] == leaf


async def do_edit(world: World, pick: int, rows: dict[str, Row], leaf: str | None) -> None:
    users = [m for m in chain(rows, leaf) if rows[m]["role"] == "user"]
    if not users:
        return
    target = rows[users[pick % len(users)]]
    world.counter += 1
    text = f"edited {world.counter}"
    await run_to_end(world, world.chat.edit(world.thread_id, target["id"], text))
    history = chain(rows, target["parent_id"])
    assert sent(world) == expected_request(rows, history, text)
    new_rows, new_leaf = await snapshot(world)
    new_user = new_rows[new_rows[new_leaf]["parent_id"]]
    assert new_user["parent_id"] == target["parent_id"] and new_user["text"] == text
    assert new_rows[target["id"]] == target  # the old version is untouched


async def do_regenerate(world: World, pick: int, rows: dict[str, Row], leaf: str | None) -> None:
    answers = [m for m in chain(rows, leaf) if rows[m]["role"] == "assistant"]
    if not answers:
        return
    target = rows[answers[pick % len(answers)]]
    preset = list(RegeneratePreset)[pick % 4]  # not CUSTOM
    request = RegenerateRequest(world.thread_id, target["id"], preset=preset)
    await run_to_end(world, world.chat.regenerate(request))
    question = rows[target["parent_id"]]
    expected = expected_request(rows, chain(rows, question["parent_id"]), question["text"])
    if preset in PRESET_GUIDANCE:
        guidance = f"[Regeneration guidance: {PRESET_GUIDANCE[preset]}]"
        expected[-1] = ("user", f"{question['text']}\n\n{guidance}")
    assert sent(world) == expected
    new_rows, new_leaf = await snapshot(world)
    assert new_rows[new_leaf]["parent_id"] == question["id"] and new_leaf != target["id"]
    assert new_rows[target["id"]] == target


async def do_undo(world: World, _: int, rows: dict[str, Row], leaf: str | None) -> None:
    if leaf is None:
        try:
            await world.tree.undo_last_turn(world.thread_id)
        except ConfigError:
            return
        raise AssertionError("undo with nothing to undo must be refused")
    undone = await world.tree.undo_last_turn(world.thread_id)
    path = chain(rows, leaf)
    assert list(undone.message_ids) == path[-2:]
    question = rows[path[-2]]
    others = [
        r["id"]
        for r in rows.values()
        if r["parent_id"] == question["parent_id"]
        and r["deleted_at"] is None
        and r["id"] != question["id"]
    ]
    if others:  # another version of the question comes into view, down to its leaf
        new_rows, _ = await snapshot(world)
        assert chain(new_rows, undone.active_leaf_id)[len(path) - 2] == others[-1]
    else:
        assert undone.active_leaf_id == question["parent_id"]


async def do_restore(world: World, pick: int, rows: dict[str, Row], leaf: str | None) -> None:
    trashed = [m for m in rows if rows[m]["deleted_at"] is not None]
    if not trashed:
        return
    target = trashed[pick % len(trashed)]
    branch = await world.tree.restore_turn(world.thread_id, target)
    assert target in [m.id for m in branch]


async def do_switch(world: World, pick: int, rows: dict[str, Row], leaf: str | None) -> None:
    reachable = live_ids(rows)
    if not reachable:
        return
    target = reachable[pick % len(reachable)]
    branch = await world.tree.switch_branch(world.thread_id, target)
    assert target in [m.id for m in branch]
    new_rows, new_leaf = await snapshot(world)
    assert not [
        r for r in new_rows.values() if r["parent_id"] == new_leaf and r["deleted_at"] is None
    ], "switching must follow the branch down to a leaf"


STEPS = {
    "send": do_send,
    "edit": do_edit,
    "regenerate": do_regenerate,
    "undo": do_undo,
    "restore": do_restore,
    "switch": do_switch,
}


async def scenario(data_dir: Path, steps: list[tuple[str, int]]) -> None:
    store = Store.open(data_dir)
    provider = ScriptedProvider()
    providers = ProviderService(store, SecretStore(data_dir), lambda config, key: provider)
    chat = ChatService(store, providers, WordCounter(), flush_interval=60)
    world = World(store, chat, ConversationService(store, chat.is_running), provider)
    try:
        await providers.add_provider("fake", "openai", "http://127.0.0.1:9/v1")
        first = SendRequest("question 0", provider="fake", model="m")
        world.thread_id = (await run_to_end(world, chat.send(first))).thread_id
        for name, pick in steps:
            rows, leaf = await check_invariants(world)
            await STEPS[name](world, pick, rows, leaf)
        await check_invariants(world)
        # history_messages is what requests are made of: the active branch only
        branch = await world.tree.active_branch(world.thread_id)
        assert len(history_messages(branch)) == len(branch)
    finally:
        await chat.stop_all()
        store.close()


step = st.tuples(st.sampled_from(sorted(STEPS)), st.integers(min_value=0, max_value=1000))


@settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(step, min_size=4, max_size=30))
def test_tree_invariants_hold_for_any_sequence_of_operations(steps: list[tuple[str, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(Path(tmp), steps))
