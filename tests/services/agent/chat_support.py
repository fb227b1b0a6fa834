"""Helpers of the agent's chat tests: a send with the agent on in a
workspace, and running it with approvals answered by tool name."""

from __future__ import annotations

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import ToolCardChanged, ToolStatus
from mira_desktop.core.events import ChatEvent
from mira_desktop.services.chat import SendRequest


def request(text: str, workspace_id: str, **kwargs: object) -> SendRequest:
    return SendRequest(
        text, provider="loop", model="m", workspace_id=workspace_id, agent=True, **kwargs
    )


QUESTIONS = "ask_user_question"


async def run(
    services: Services,
    send: SendRequest,
    decide: dict[str, bool] | None = None,
    answers: list[str] | None = None,
) -> list[ChatEvent]:
    """Every event of a send; a card waiting for approval is answered from
    ``decide`` (by tool name), questions with ``answers`` (None dismisses)."""
    events: list[ChatEvent] = []
    async for event in services.chat.send(send):
        events.append(event)
        if isinstance(event, ToolCardChanged) and event.card.status is ToolStatus.WAITING:
            if event.card.name == QUESTIONS:
                assert services.chat.answer(event.thread_id, event.card.call_id, answers)
                continue
            assert decide is not None, f"unexpected approval: {event.card}"
            assert services.chat.waiting_calls(event.thread_id) == [event.card.call_id]
            services.chat.decide(event.thread_id, event.card.call_id, decide[event.card.name])
    return events


def cards(events: list[ChatEvent]) -> list[ToolCardChanged]:
    return [e for e in events if isinstance(e, ToolCardChanged)]
