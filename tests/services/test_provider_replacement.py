"""Saving a provider in Settings while answers stream through it
(``ProviderService.update_provider``): the answers already streaming finish
on the old connection, the next request uses the new settings. Real HTTP to
two loopback servers, a real data folder."""

from __future__ import annotations

import asyncio

from mira_desktop.bootstrap import Services
from mira_desktop.core.events import ChatEvent, Completed, TextDelta
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import Gate, LoopbackServer, Reply, openai_stream

from .conftest import CHAT


def gated_stream(first: str, rest: str, gate: Gate) -> Reply:
    """An OpenAI stream that sends ``first``, waits for the gate, then the rest."""
    reply = openai_stream([first, rest])
    reply.chunks.insert(2, gate)  # after the role chunk and the first text
    return reply


async def test_saving_a_provider_lets_its_streaming_answers_finish(
    services: Services, loopback: LoopbackServer, loop_provider: str
) -> None:
    gate = Gate()
    loopback.enqueue(CHAT, gated_stream("before the save, ", "after it", gate))
    with LoopbackServer() as moved:
        moved.enqueue(CHAT, openai_stream(["from the new address"]))
        events: list[ChatEvent] = []

        async def answer() -> None:
            request = SendRequest("a long answer, please", provider=loop_provider, model="m")
            async for event in services.chat.send(request):
                events.append(event)
                if isinstance(event, TextDelta) and not gate.opened.is_set():
                    # the user saves the provider (a new address) mid-answer
                    await services.providers.update_provider(
                        loop_provider, base_url=moved.url + "/v1"
                    )
                    gate.open()

        # before the fix the shared client was closed under the stream, which
        # then waited for a token that never came (the read timeout: 300 s)
        await asyncio.wait_for(answer(), timeout=60)
        final = events[-1]
        assert isinstance(final, Completed), final
        assert final.text == "before the save, after it"
        assert len(loopback.requests) == 1

        again = [
            e async for e in services.chat.send(SendRequest("and now?", thread_id=final.thread_id))
        ]
        second = again[-1]
        assert isinstance(second, Completed) and second.text == "from the new address"
        assert [r.path for r in moved.requests] == [CHAT] and len(loopback.requests) == 1
