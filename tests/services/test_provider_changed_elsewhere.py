"""A provider changed by another process on the same data folder (the CLI
beside a running window): ``provider remove loop`` then ``provider add loop``
with another base URL and key. The window's services had built a client for
"loop" and kept it by name; its next chat must go to the new server with the
new key, not the old connection. Two ``Services`` on one real data folder,
two real loopback servers."""

from __future__ import annotations

from pathlib import Path

from mira_desktop.bootstrap import Services, build_services
from mira_desktop.core.events import Completed
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import LoopbackServer, openai_stream

from .conftest import CHAT


async def ask(services: Services, text: str) -> Completed:
    events = [e async for e in services.chat.send(SendRequest(text, provider="loop", model="m"))]
    final = events[-1]
    assert isinstance(final, Completed), final
    return final


async def test_a_provider_replaced_by_another_process_is_used_as_replaced(
    data_dir: Path, services: Services, loopback: LoopbackServer
) -> None:
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "sk-old")
    loopback.enqueue(CHAT, openai_stream(["from the old server"]))
    assert (await ask(services, "first")).text == "from the old server"

    with LoopbackServer() as moved:
        moved.enqueue(CHAT, openai_stream(["from the new server"]))
        other = build_services(data_dir)  # the CLI, as another process would
        try:
            await other.providers.remove_provider("loop")
            await other.providers.add_provider("loop", "openai", moved.url + "/v1", "sk-new")
        finally:
            await other.aclose()

        assert (await ask(services, "second")).text == "from the new server"
        (sent,) = moved.requests
        assert sent.headers["authorization"] == "Bearer sk-new"
        assert len(loopback.requests) == 1


async def test_a_key_changed_by_another_process_is_sent(
    data_dir: Path, services: Services, loopback: LoopbackServer
) -> None:
    """The same provider (same id, same address), only its key changed."""
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "sk-old")
    loopback.enqueue(CHAT, openai_stream(["one"]))
    loopback.enqueue(CHAT, openai_stream(["two"]))
    await ask(services, "first")
    other = build_services(data_dir)
    try:
        await other.providers.update_provider("loop", api_key="sk-new")
    finally:
        await other.aclose()
    await ask(services, "second")
    assert [r.headers["authorization"] for r in loopback.requests] == [
        "Bearer sk-old",
        "Bearer sk-new",
    ]


async def test_an_unchanged_provider_keeps_its_client(
    services: Services, loopback: LoopbackServer
) -> None:
    """Freshness costs no rebuild: the same adapter while nothing changed."""
    await services.providers.add_provider("loop", "openai", loopback.url + "/v1", "sk-old")
    _, first = await services.providers.chat_provider("loop")
    _, again = await services.providers.chat_provider("loop")
    assert again is first
