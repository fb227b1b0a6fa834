"""Tool calling through the three adapters and the real loopback server: the
tools, an assistant's earlier calls and the tools' results go out in each
vendor's shape; the calls a model streams back come out whole through
:class:`~mira_desktop.core.events.ToolCallCollector`; plain chat is unchanged."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from mira_desktop.core.events import (
    StreamDone,
    StreamEvent,
    ToolCallCollector,
    ToolCallDelta,
    UsageReported,
)
from mira_desktop.core.models import ChatMessage, ChatRequest, ToolCall, ToolSpec
from mira_desktop.core.ports import ChatProvider
from mira_desktop.providers import anthropic, ollama, openai_compat
from mira_desktop.providers.anthropic import AnthropicProvider
from mira_desktop.providers.ollama import OllamaProvider
from mira_desktop.providers.openai_compat import OpenAIProvider
from mira_desktop.providers.request_body import (
    SLICE,
    _KeptMessages,
    _plain_key,
    dumps,
    encode_body,
)
from tests.support.loopback import (
    LoopbackServer,
    Reply,
    anthropic_stream,
    anthropic_tool_stream,
    ollama_stream,
    ollama_tool_stream,
    openai_stream,
    openai_tool_stream,
    raw_stream,
    sse,
)
from tests.support.replies import CallSpec

from .helpers import collect, request, text, tool_calls

READ_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "relative to the workspace"}},
    "required": ["path"],
}
TOOLS = (
    ToolSpec("read", "Read a file of the workspace.", READ_SCHEMA),
    ToolSpec("ls", "List the workspace's root.", {}),
)
EMPTY_SCHEMA = {"type": "object", "properties": {}}

READ = ToolCall("call_1", "read", {"path": "笔记/今天.md"})
LS = ToolCall("call_2", "ls", {})
HISTORY = (
    ChatMessage("system", "You are an agent."),
    ChatMessage("user", "读一下今天的笔记"),
    ChatMessage("assistant", "Let me look.", tool_calls=(READ, LS)),
    ChatMessage("tool", "# 今天\n买牛奶", tool_call_id="call_1", name="read"),
    ChatMessage("tool", "a.md\nb.md", tool_call_id="call_2", name="ls"),
)

#: two parallel calls, with Chinese, quotes, escapes and nesting in the arguments
CALLS: list[CallSpec] = [
    ("call_a", "read", {"path": "笔记/今天.md", "note": "“引号” \\ 和\n换行"}),
    ("call_b", "grep", {"pattern": "买.*奶", "paths": ["a.md", "子/b.md"], "max": 3}),
]


def tool_request(messages: tuple[ChatMessage, ...] = HISTORY) -> ChatRequest:
    return ChatRequest(model="agent-model", messages=messages, tools=TOOLS)


def assembled(events: list[StreamEvent]) -> ToolCallCollector:
    collector = ToolCallCollector()
    for delta in tool_calls(events):
        collector.add(delta)
    return collector


def decoded_arguments(message: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI message with its tool calls' JSON-text arguments decoded."""
    calls = []
    for call in message["tool_calls"]:
        arguments = call["function"]["arguments"]
        assert isinstance(arguments, str)
        calls.append({**call, "function": {**call["function"], "arguments": json.loads(arguments)}})
    return {**message, "tool_calls": calls}


@pytest.fixture
async def ollama_provider(loopback: LoopbackServer) -> AsyncIterator[OllamaProvider]:
    async with OllamaProvider("ollama", loopback.url) as provider:
        yield provider


@pytest.fixture
async def claude(loopback: LoopbackServer) -> AsyncIterator[AnthropicProvider]:
    async with AnthropicProvider("claude", loopback.url, "sk-ant-test") as provider:
        yield provider


# --------------------------------------------------------------------------- request bodies


async def test_openai_request_with_tools_and_a_tool_history(loopback, openai):
    loopback.enqueue("/v1/chat/completions", openai_stream(["ok"]))
    await collect(openai, tool_request())
    body = loopback.requests[-1].json
    assert body["tools"] == [
        {"type": "function", "function": {
            "name": "read", "description": "Read a file of the workspace.",
            "parameters": READ_SCHEMA,
        }},
        {"type": "function", "function": {
            "name": "ls", "description": "List the workspace's root.", "parameters": EMPTY_SCHEMA,
        }},
    ]  # fmt: skip
    messages = body["messages"]
    assert messages[:2] == [
        {"role": "system", "content": "You are an agent."},
        {"role": "user", "content": "读一下今天的笔记"},
    ]
    assert decoded_arguments(messages[2]) == {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "read", "arguments": {"path": "笔记/今天.md"}}},
            {"id": "call_2", "type": "function", "function": {"name": "ls", "arguments": {}}},
        ],
    }  # fmt: skip
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "# 今天\n买牛奶"},
        {"role": "tool", "tool_call_id": "call_2", "content": "a.md\nb.md"},
    ]
    assert set(body) == {"model", "messages", "stream", "stream_options", "tools"}


async def test_openai_assistant_without_text_sends_null_content(loopback, openai):
    loopback.enqueue("/v1/chat/completions", openai_stream(["ok"]))
    history = (ChatMessage("user", "ls"), ChatMessage("assistant", "", tool_calls=(LS,)))
    await collect(openai, tool_request(history))
    assistant = loopback.requests[-1].json["messages"][1]
    assert assistant["content"] is None
    assert assistant["tool_calls"][0]["function"] == {"name": "ls", "arguments": "{}"}


async def test_ollama_request_with_tools_and_a_tool_history(loopback, ollama_provider):
    loopback.enqueue("/api/chat", ollama_stream(["ok"]))
    await collect(ollama_provider, tool_request())
    body = loopback.requests[-1].json
    assert body == {
        "model": "agent-model",
        "stream": True,
        "tools": [
            {"type": "function", "function": {
                "name": "read", "description": "Read a file of the workspace.",
                "parameters": READ_SCHEMA,
            }},
            {"type": "function", "function": {
                "name": "ls", "description": "List the workspace's root.",
                "parameters": EMPTY_SCHEMA,
            }},
        ],
        "messages": [
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": "读一下今天的笔记"},
            {"role": "assistant", "content": "Let me look.", "tool_calls": [
                {"function": {"name": "read", "arguments": {"path": "笔记/今天.md"}}},
                {"function": {"name": "ls", "arguments": {}}},
            ]},
            {"role": "tool", "content": "# 今天\n买牛奶", "tool_name": "read"},
            {"role": "tool", "content": "a.md\nb.md", "tool_name": "ls"},
        ],
    }  # fmt: skip


async def test_anthropic_request_with_tools_and_a_tool_history(loopback, claude):
    loopback.enqueue("/v1/messages", anthropic_stream(["ok"]))
    await collect(claude, tool_request())
    body = loopback.requests[-1].json
    assert body == {
        "model": "agent-model",
        "max_tokens": 4096,
        "stream": True,
        "system": "You are an agent.",
        "tools": [
            {"name": "read", "description": "Read a file of the workspace.",
             "input_schema": READ_SCHEMA},
            {"name": "ls", "description": "List the workspace's root.",
             "input_schema": EMPTY_SCHEMA},
        ],
        "messages": [
            {"role": "user", "content": "读一下今天的笔记"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "call_1", "name": "read",
                 "input": {"path": "笔记/今天.md"}},
                {"type": "tool_use", "id": "call_2", "name": "ls", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "# 今天\n买牛奶"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "a.md\nb.md"},
            ]},
        ],
    }  # fmt: skip


def test_anthropic_messages_alternate_around_tool_results() -> None:
    """A system message among the results does not split them; the user's next
    message joins the results (after them); what follows is left as it was,
    two plain user messages in a row included."""
    messages = (
        ChatMessage("user", "go"),
        ChatMessage("assistant", "  \n", tool_calls=(READ, LS)),
        ChatMessage("tool", "one", tool_call_id="call_1", name="read"),
        ChatMessage("system", "Mid-run note."),
        ChatMessage("tool", "", tool_call_id="call_2", name="ls"),
        ChatMessage("user", "stop there"),
        ChatMessage("assistant", "Stopped."),
        ChatMessage("user", "again"),
        ChatMessage("user", "and again"),
    )
    body = anthropic.build_body(tool_request(messages))
    assert body["system"] == "Mid-run note."
    assert body["messages"] == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [  # whitespace-only text: no text block
            {"type": "tool_use", "id": "call_1", "name": "read", "input": {"path": "笔记/今天.md"}},
            {"type": "tool_use", "id": "call_2", "name": "ls", "input": {}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "call_2", "content": anthropic.EMPTY_RESULT},
            {"type": "text", "text": "stop there"},
        ]},
        {"role": "assistant", "content": "Stopped."},
        {"role": "user", "content": "again"},
        {"role": "user", "content": "and again"},
    ]  # fmt: skip


def test_anthropic_results_after_results_of_another_turn_stay_apart() -> None:
    messages = (
        ChatMessage("user", "go"),
        ChatMessage("assistant", "", tool_calls=(READ,)),
        ChatMessage("tool", "one", tool_call_id="call_1"),
        ChatMessage("assistant", "", tool_calls=(LS,)),
        ChatMessage("tool", "two", tool_call_id="call_2"),
    )
    roles = [m["role"] for m in anthropic.build_body(tool_request(messages))["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]


@pytest.mark.parametrize(
    ("make", "path", "reply"),
    [
        (lambda url: OpenAIProvider("o", url + "/v1"), "/v1/chat/completions", openai_stream),
        (lambda url: OllamaProvider("l", url), "/api/chat", ollama_stream),
        (lambda url: AnthropicProvider("a", url, "k"), "/v1/messages", anthropic_stream),
    ],
    ids=["openai", "ollama", "anthropic"],
)
async def test_plain_chat_sends_no_tools(
    loopback: LoopbackServer,
    make: Callable[[str], Any],
    path: str,
    reply: Callable[[list[str]], Reply],
) -> None:
    loopback.enqueue(path, reply(["ok"]))
    async with make(loopback.url) as provider:
        await collect(provider, request())
    body = loopback.requests[-1].json
    assert "tools" not in body
    assert body["messages"] == [{"role": "user", "content": "Hello"}]


# --------------------------------------------------------------------------- streamed calls


async def test_openai_streamed_calls_come_out_whole(loopback, openai):
    loopback.enqueue("/v1/chat/completions", openai_tool_stream(CALLS, "我来看看。"))
    events, error = await collect(openai, tool_request())
    assert error is None
    assert len(tool_calls(events)) > 2 * len(CALLS)  # really in fragments
    collector = assembled(events)
    assert collector.calls() == [ToolCall(*call) for call in CALLS]
    assert collector.malformed() == []
    assert text(events) == "我来看看。"
    assert events[-2:] == [UsageReported(42, 17, None), StreamDone("tool_calls")]


async def test_openai_calls_in_one_piece(loopback, openai):
    loopback.enqueue("/v1/chat/completions", openai_tool_stream(CALLS, split_arguments=False))
    events, _error = await collect(openai, tool_request())
    assert assembled(events).calls() == [ToolCall(*call) for call in CALLS]
    assert text(events) == ""


async def test_ollama_calls_come_out_whole_with_ids_made_up(loopback, ollama_provider):
    loopback.enqueue("/api/chat", ollama_tool_stream(CALLS, "我来看看。"))
    events, error = await collect(ollama_provider, tool_request())
    assert error is None
    assert assembled(events).calls() == [
        ToolCall("call_0", "read", CALLS[0][2]),
        ToolCall("call_1", "grep", CALLS[1][2]),
    ]
    assert text(events) == "我来看看。"
    assert events[-1] == StreamDone("stop")


async def test_anthropic_streamed_calls_come_out_whole(loopback, claude):
    loopback.enqueue("/v1/messages", anthropic_tool_stream(CALLS, "我来看看。"))
    events, error = await collect(claude, tool_request())
    assert error is None
    collector = assembled(events)
    assert collector.calls() == [ToolCall(*call) for call in CALLS]
    assert collector.malformed() == []
    assert text(events) == "我来看看。"
    assert events[-2:] == [UsageReported(42, 17), StreamDone("tool_use")]


BAD_CALLS: list[CallSpec] = [
    ("call_a", "read", '{"path": "笔记/今'),  # cut off
    ("call_b", "ls", "[1, 2]"),  # JSON, not an object
    ("call_c", "ls", ""),  # nothing: no arguments
]


@pytest.mark.parametrize(
    ("make", "path", "reply"),
    [
        (lambda url: OpenAIProvider("o", url + "/v1"), "/v1/chat/completions", openai_tool_stream),
        (lambda url: OllamaProvider("l", url), "/api/chat", ollama_tool_stream),
        (lambda url: AnthropicProvider("a", url, "k"), "/v1/messages", anthropic_tool_stream),
    ],
    ids=["openai", "ollama", "anthropic"],
)
async def test_malformed_arguments_are_reported(
    loopback: LoopbackServer,
    make: Callable[[str], Any],
    path: str,
    reply: Callable[[list[CallSpec]], Reply],
) -> None:
    loopback.enqueue(path, reply(BAD_CALLS))
    provider: ChatProvider
    async with make(loopback.url) as provider:
        events, error = await collect(provider, tool_request())
    assert error is None
    collector = assembled(events)
    calls = collector.calls()
    assert [(c.name, c.arguments) for c in calls] == [("read", {}), ("ls", {}), ("ls", {})]
    assert [(call.name, raw) for call, raw in collector.malformed()] == [
        ("read", '{"path": "笔记/今'),
        ("ls", "[1, 2]"),
    ]


async def test_anthropic_input_sent_whole_at_block_start(loopback, claude):
    """A server imitating the API may send the input in ``content_block_start``."""
    block = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "中.md"}}
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    loopback.enqueue(
        "/v1/messages",
        raw_stream([
            sse({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
            sse(start),
            sse({"type": "content_block_stop", "index": 0}),
            sse({"type": "message_stop"}),
        ]),
    )  # fmt: skip
    events, error = await collect(claude, tool_request())
    assert error is None
    assert assembled(events).calls() == [ToolCall("toolu_1", "read", {"path": "中.md"})]


async def test_openai_arguments_sent_as_an_object(loopback, openai):
    """Some OpenAI-compatible servers put the arguments object itself in the
    delta; it is passed on as JSON text."""
    call = {"index": 0, "id": "c1", "type": "function",
            "function": {"name": "read", "arguments": {"path": "中.md"}}}  # fmt: skip
    chunk = {"choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}
    loopback.enqueue("/v1/chat/completions", raw_stream([sse(chunk), sse("[DONE]")]))
    events, error = await collect(openai, tool_request())
    assert error is None
    assert tool_calls(events) == [ToolCallDelta(0, "c1", "read", '{"path": "\\u4e2d.md"}')]
    assert assembled(events).calls() == [ToolCall("c1", "read", {"path": "中.md"})]


# --------------------------------------------------------------------------- encoding


def _long_tool_history(turns: int) -> tuple[ChatMessage, ...]:
    """A history of agent turns: question, call, result, answer — the tool
    result's text repeated as a user's message to tempt the kept encodings."""
    messages: list[ChatMessage] = []
    for n in range(turns):
        call = ToolCall(f"call_{n}", "read", {"path": f"第{n}.md"})
        messages += [
            ChatMessage("user", f"question {n}"),
            ChatMessage("assistant", "" if n % 2 else "looking", tool_calls=(call,)),
            ChatMessage("tool", f"result {n}", tool_call_id=f"call_{n}", name="read"),
            ChatMessage("user", f"result {n}"),
            ChatMessage("assistant", f"answer {n}"),
        ]
    return tuple(messages)


@pytest.mark.parametrize("adapter", [openai_compat, ollama, anthropic], ids=lambda m: m.__name__)
def test_tool_shapes_are_not_taken_for_plain_messages(adapter: Any) -> None:
    """The encodings kept for plain ``{"role", "content"}`` messages are never
    used for the tool shapes (more keys, or content that is not text), and a
    long body encodes exactly as httpx encodes it, the first time and again."""
    request = tool_request(_long_tool_history(SLICE // 2))
    body = adapter.build_body(request)
    for message in body["messages"]:
        if "tool_calls" in message or message["role"] == "tool" or "tool_call_id" in message:
            assert _plain_key(message) is None
        if not isinstance(message["content"], str):
            assert _plain_key(message) is None
    expected = httpx.Request("POST", "http://x", json=body).content
    assert len(body["messages"]) > SLICE
    assert encode_body(body) == expected
    assert encode_body(body) == expected  # with the plain ones kept


def test_a_plain_message_and_a_tool_message_of_the_same_text() -> None:
    kept = _KeptMessages()
    plain = {"role": "tool", "content": "x"}
    shaped = {"role": "tool", "tool_call_id": "c", "content": "x"}
    for items in ([plain, shaped], [shaped, plain], [plain, shaped, plain]):
        assert kept.encode(items) == dumps(items)[1:-1].encode("utf-8")
    assert list(kept._kept) == [("tool", "x")]
