"""The agent through each vendor's wire format (PRODUCT.md §11, §12): the
same edit, asked for by an OpenAI-compatible server, Ollama's /api/chat and
Anthropic's Messages API, played by the loopback server — the file changes,
and the tool's result goes back in that vendor's shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mira_desktop.bootstrap import Services
from mira_desktop.core.agent import AgentMode, ToolStatus, answer_cards
from mira_desktop.core.events import Completed
from mira_desktop.services.chat import SendRequest
from tests.support.loopback import (
    LoopbackServer,
    anthropic_stream,
    anthropic_tool_stream,
    ollama_stream,
    ollama_tool_stream,
    openai_stream,
    openai_tool_stream,
)

from .chat_support import run

EDIT = {"path": "src/app.py", "old_string": "hello", "new_string": "bonjour"}
VENDORS: dict[str, tuple[str, str, Any, Any]] = {
    # kind: (path the server answers on, base URL suffix, tool reply, text reply)
    "openai": ("/v1/chat/completions", "/v1", openai_tool_stream, openai_stream),
    "ollama": ("/api/chat", "", ollama_tool_stream, ollama_stream),
    "anthropic": ("/v1/messages", "", anthropic_tool_stream, anthropic_stream),
}


def tool_result(kind: str, body: dict[str, Any]) -> str:
    """The text of the tool's result in the vendor's shape of the last request."""
    last = body["messages"][-1]
    if kind == "anthropic":
        assert last["role"] == "user"
        [block] = last["content"]
        assert block["type"] == "tool_result" and block["tool_use_id"] == "e1"
        return str(block["content"])
    assert last["role"] == "tool"
    if kind == "openai":
        assert last["tool_call_id"] == "e1"
    else:
        assert last["tool_name"] == "edit"
    return str(last["content"])


@pytest.mark.parametrize("kind", list(VENDORS))
async def test_the_agent_edits_through_every_wire_format(
    services: Services, loopback: LoopbackServer, workspace_id: str, project: Path, kind: str
) -> None:
    path, suffix, tool_reply, text_reply = VENDORS[kind]
    await services.providers.add_provider("v", kind, loopback.url + suffix, "sk-test")
    loopback.enqueue(path, tool_reply([("e1", "edit", EDIT)]))
    loopback.enqueue(path, text_reply(["C'est fait."]))
    send = SendRequest(
        "Greet in French",
        provider="v",
        model="m",
        workspace_id=workspace_id,
        agent=True,
        agent_mode=AgentMode.AUTO,
    )
    events = await run(services, send)
    assert isinstance(events[-1], Completed), [(r.path, r.json) for r in loopback.requests]
    assert (project / "src" / "app.py").read_text() == "print('bonjour')\n"
    [card] = answer_cards(events[-1].message.data)
    assert (card.name, card.status) == ("edit", ToolStatus.DONE)
    first, second = (r.json for r in loopback.requests if r.path == path)
    assert "edit" in {t.get("name") or t["function"]["name"] for t in first["tools"]}
    assert tool_result(kind, second).startswith("Edited src/app.py: 1 replacement")


async def _think_hard(services: Services, loopback: LoopbackServer) -> None:
    await services.providers.add_provider("claude", "anthropic", loopback.url, "sk-test")
    await services.providers.update_model_settings(
        "claude", "m", context_window=None, vision=False, tier=None,
        compaction_threshold=None, reasoning="high",
    )  # fmt: skip


async def test_anthropic_thinking_goes_back_with_the_tool_calls(
    services: Services, loopback: LoopbackServer, workspace_id: str, project: Path
) -> None:
    """With extended thinking on, the API refuses tool results whose call is
    not preceded by the signed reasoning that led to it: the agent hands each
    round's thinking blocks back as they came, redacted ones too."""
    await _think_hard(services, loopback)
    path = "/v1/messages"
    loopback.enqueue(
        path,
        anthropic_tool_stream(
            [("e1", "edit", EDIT)],
            "Editing.",
            thinking=["The greeting ", "is in app.py."],
            signature="sig-1",
            redacted="opaque==",
        ),
    )
    loopback.enqueue(
        path,
        anthropic_tool_stream(
            [("r1", "read", {"path": "src/app.py"})], thinking=["Check it."], signature="sig-2"
        ),
    )
    loopback.enqueue(path, anthropic_stream(["C'est fait."], thinking_chunks=["Done."]))
    send = SendRequest(
        "Greet in French", provider="claude", model="m", workspace_id=workspace_id,
        agent=True, agent_mode=AgentMode.AUTO,
    )  # fmt: skip
    events = await run(services, send)
    assert isinstance(events[-1], Completed), [(r.path, r.json) for r in loopback.requests]
    first, second, third = (r.json for r in loopback.requests if r.path == path)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 16_384}
    assistant = second["messages"][-2]
    assert assistant["role"] == "assistant"
    assert assistant["content"][:3] == [
        {"type": "thinking", "thinking": "The greeting is in app.py.", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "opaque=="},
        {"type": "text", "text": "Editing."},
    ]
    assert assistant["content"][3]["type"] == "tool_use"
    # each round hands back its own reasoning, the earlier rounds' stay as they were
    later = third["messages"][-2]["content"]
    assert later[0] == {"type": "thinking", "thinking": "Check it.", "signature": "sig-2"}
    assert third["messages"][-4]["content"][0]["signature"] == "sig-1"
    # the thinking card shows all of it; the signatures are not shown or saved
    message = events[-1].message
    assert "The greeting is in app.py." in message.thinking and "Done." in message.thinking
    assert "sig-1" not in repr(message.data) and "opaque" not in message.thinking
